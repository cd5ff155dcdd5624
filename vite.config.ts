import { defineConfig } from 'vite';

// The widget as a library: one self-contained ES module and one classic script (IIFE), Lit and qrcode
// bundled in, for `<script type="module" src=".../widget/referral-widget.js">` on any page.
export default defineConfig({
  build: {
    outDir: 'dist/widget',
    emptyOutDir: true,
    target: 'es2021',
    sourcemap: true,
    // Library mode leaves the ES build unminified by default; this bundle is shipped as is.
    minify: true,
    lib: {
      entry: 'src/widget/index.ts',
      name: 'RefkitWidget',
      formats: ['es', 'iife'],
      fileName: (format) => (format === 'es' ? 'referral-widget.js' : 'referral-widget.iife.js'),
    },
  },
});
