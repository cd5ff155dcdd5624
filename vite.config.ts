import { defineConfig } from 'vite';

// The widget as a library: one self-contained ES module and one classic script (IIFE), Lit and qrcode
// bundled in, for `<script type="module" src=".../widget/referral-widget.js">` on any page.
// `vite` (the dev server) serves index.html and proxies /api to a local service.
export default defineConfig({
  build: {
    outDir: 'dist/widget',
    emptyOutDir: true,
    target: 'es2021',
    sourcemap: true,
    minify: true,
    lib: {
      entry: 'src/widget/index.ts',
      name: 'RefkitWidget',
      formats: ['es', 'iife'],
      fileName: (format) => (format === 'es' ? 'referral-widget.js' : 'referral-widget.iife.js'),
    },
    rolldownOptions: {
      // Library mode keeps the ES build's whitespace (for a consumer's bundler to re-minify); this file is
      // served to browsers as is, so it is minified in full, like the IIFE.
      output: { minify: true },
      // The IIFE build has no import.meta and gets `{}` for it: src/widget/script-origin.ts reads
      // document.currentScript first there, so the empty object is what we want.
      checks: { emptyImportMeta: false },
    },
  },
  server: {
    proxy: {
      // The dev page's widget calls its own origin (its default api-base); forward that to `npm start`'s
      // service. The Origin header is dropped so that the service treats the calls like same-origin ones
      // instead of refusing the dev server's origin (403 forbidden_origin).
      '/api': {
        target: process.env.REFKIT_URL ?? 'http://localhost:8787',
        configure: (proxy) => proxy.on('proxyReq', (req) => req.removeHeader('origin')),
      },
    },
  },
});
