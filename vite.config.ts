import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';

const OUT_DIR = 'dist/widget';

/**
 * Writes .br and .gz beside every script the build emits, so the service sends them precompressed
 * (src/server/operations/routes/assets.ts; @fastify/static picks the best encoding the browser accepts).
 */
function precompress(): Plugin {
  return {
    name: 'refkit-precompress',
    apply: 'build',
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
      for (const file of walk(OUT_DIR).filter((f) => f.endsWith('.js'))) {
        const raw = readFileSync(file);
        writeFileSync(`${file}.gz`, gzipSync(raw, { level: 9 }));
        writeFileSync(`${file}.br`, brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
      }
    },
  };
}

// The widget as a library, for `<script type="module" src=".../widget/referral-widget.js">` on any page:
// - the ES module is split: the entry (the sign-up form, Lit, English texts) loads first; the share view,
//   the QR encoder and each other language are chunks under chunks/ with a content hash in their names,
//   fetched when needed;
// - the classic script (IIFE) cannot load chunks, so it stays one self-contained file.
// `vite` (the dev server) serves index.html and proxies /api to a local service.
export default defineConfig({
  plugins: [precompress()],
  build: {
    outDir: OUT_DIR,
    emptyOutDir: true,
    target: 'es2022',
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
      output: { minify: true, chunkFileNames: 'chunks/[name]-[hash].js' },
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
