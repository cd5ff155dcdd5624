import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('./', import.meta.url));

/** Resolved by the app that installs the package, never bundled here: one copy of each per page. */
const EXTERNAL = /^(lit|@lit\/localize|@lit\/react|react|react-dom|vue)(\/|$)/;

// @refkit/widget's JavaScript (run with cwd packages/widget by its `build` script): ES modules for an app's
// bundler, one per export (index, react, vue), with Refkit's own code (src/widget, src/api) and qrcode
// bundled; the element they share is a chunk, and so are the parts the element loads when it needs them
// (the share view, the QR encoder, each language), under dist/chunks/. Not minified: the app's bundler
// minifies. The script-tag build is the root's vite.config.ts, untouched by this one.
export default defineConfig({
  root: here,
  // The package ships no public/ folder and no HTML.
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    minify: false,
    sourcemap: false,
    lib: {
      entry: { index: 'src/index.ts', react: 'src/react.ts', vue: 'src/vue.ts' },
      formats: ['es'],
      fileName: (_format, entry) => `${entry}.js`,
    },
    rolldownOptions: {
      external: (id) => EXTERNAL.test(id),
      output: { chunkFileNames: 'chunks/[name]-[hash].js' },
    },
  },
});
