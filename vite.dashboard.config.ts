import { defineConfig } from 'vite';

// The owner's dashboard: a small single-page app served by the service at /admin/ (Lit, like the widget).
// `npx vite -c vite.dashboard.config.ts` serves it for development and proxies /api to `npm start`'s service.
export default defineConfig({
  root: 'src/dashboard',
  base: '/admin/',
  build: {
    outDir: '../../dist/dashboard',
    emptyOutDir: true,
    target: 'es2021',
    sourcemap: true,
  },
  server: {
    proxy: { '/api': { target: process.env.REFKIT_URL ?? 'http://localhost:8787' } },
  },
});
