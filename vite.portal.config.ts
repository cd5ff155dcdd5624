import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const PORTAL_I18N = fileURLToPath(new URL('src/portal/i18n.ts', import.meta.url));
const WIDGET_DIR = fileURLToPath(new URL('src/widget/', import.meta.url));

/**
 * The widget's views the portal shows (its share view, the QR code) ask their `./i18n.js` for the active
 * language: in the portal that is the portal's module (src/portal/i18n.ts), which configures
 * @lit/localize once, with the widget's catalogue and the portal's together.
 */
function portalLanguage(): Plugin {
  return {
    name: 'refkit-portal-i18n',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === './i18n.js' && importer?.startsWith(WIDGET_DIR)) return PORTAL_I18N;
      return null;
    },
  };
}

// The referrer's portal: one page, served by the service at /portal/{campaignId} (Lit, the widget's share
// view and the dashboard's styles). `npx vite -c vite.portal.config.ts` serves it for development at
// /portal/ and proxies /api to `npm start`'s service.
export default defineConfig({
  root: 'src/portal',
  base: '/portal/',
  plugins: [portalLanguage()],
  build: {
    outDir: '../../dist/portal',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
  },
  server: {
    proxy: { '/api': { target: process.env.REFKIT_URL ?? 'http://localhost:8787' } },
  },
});
