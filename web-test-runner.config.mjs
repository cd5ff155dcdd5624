// Widget unit tests in Debian's Chromium. From shared/recipes: qrcode is CommonJS with circular
// requires that the dev server cannot serve as is, so it is bundled to ESM once and imports point there.
import { esbuildPlugin } from '@web/dev-server-esbuild';
import { chromeLauncher } from '@web/test-runner-chrome';
import { buildSync } from 'esbuild';

buildSync({ entryPoints: ['node_modules/qrcode/lib/browser.js'], bundle: true, format: 'esm', outfile: 'node_modules/.cache/wtr/qrcode.js', logLevel: 'error' });

export default {
  files: 'test/widget/**/*.test.ts',
  testFramework: { config: { timeout: 8000 } },
  nodeResolve: true,
  plugins: [
    { name: 'qrcode-esm', resolveImport: ({ source }) => (source === 'qrcode' ? '/node_modules/.cache/wtr/qrcode.js' : undefined) },
    esbuildPlugin({ ts: true, tsconfig: './tsconfig.json' }),
  ],
  browsers: [
    chromeLauncher({
      launchOptions: {
        executablePath: '/usr/bin/chromium',
        args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
      },
    }),
  ],
};
