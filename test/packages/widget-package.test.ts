/**
 * @refkit/widget as users get it: the tarball `npm pack` makes of the built workspace, installed in a fresh
 * project with React, React DOM and Vue (one install for the whole file), then
 * - its files: the build, the declarations, the manifest, README and CHANGELOG; no sources, no tests;
 * - on a server (plain Node, no DOM): each export imports without touching `window` or defining the
 *   element, and React's and Vue's server renders write `<referral-widget campaign-id="...">`;
 * - its types, as a user's compiler (the root's tsc, NodeNext) reads them: a .tsx file using the React
 *   and Vue components and the element compiles, and wrong props or event details do not;
 * - in Chromium: a React app and a Vue app, bundled by Vite from the installed package and served from
 *   their own origin, sign a visitor up with a real service (SQLite) through the widget, and the app's
 *   own handler receives the typed detail; a second copy of the package on the page does not throw.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { chromium, type Browser } from 'playwright-core';
import { build } from 'vite';
import { databaseKinds } from '../server/helpers/databases.js';
import { startService, type TestService } from '../server/helpers/service.js';
import { freshProject, packed, ROOT, type Project } from './helpers/project.js';

const run = promisify(execFile);
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/** The user's project: installed once, for every test of the file. */
let projectReady: Promise<Project> | undefined;
const project = () => (projectReady ??= freshProject(['widget'], ['react', 'react-dom', 'vue', '@types/react']));

let typesChecked: Promise<string> | undefined;
const typeCheck = () => (typesChecked ??= project().then(checkTypes));

before(() => void typeCheck().catch(() => {}));
after(() => projectReady?.then((p) => p.remove()));

const write = (dir: string, files: Record<string, string>) => {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
};

describe('@refkit/widget, packed', () => {
  it('holds the build, its declarations, custom-elements.json, README and CHANGELOG; no sources or tests', async () => {
    const { stdout } = await run('tar', ['-tzf', await packed('widget')]);
    const files = stdout
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    for (const file of ['package.json', 'README.md', 'CHANGELOG.md', 'dist/custom-elements.json']) assert.ok(files.includes(file), `${file} is missing`);
    for (const entry of ['index', 'react', 'vue']) {
      assert.ok(files.includes(`dist/${entry}.js`), `dist/${entry}.js is missing`);
      assert.ok(files.includes(`dist/${entry}.d.ts`), `dist/${entry}.d.ts is missing`);
    }
    assert.ok(
      files.some((f) => /^dist\/chunks\/share-view-.*\.js$/.test(f)),
      'the share view is a chunk of its own',
    );
    const unwanted = files.filter((f) => !f.startsWith('dist/') && !['package.json', 'README.md', 'CHANGELOG.md'].includes(f));
    assert.deepEqual(unwanted, [], 'only dist/, package.json, README and CHANGELOG');
    assert.deepEqual(
      files.filter((f) => (f.endsWith('.ts') && !f.endsWith('.d.ts')) || /test/i.test(f)),
      [],
      'no TypeScript sources and no tests',
    );
  });

  it('imports only what it depends on: Refkit is bundled, lit, @lit/localize, @lit/react, React and Vue are not', async () => {
    const { dir } = await project();
    const pkgDir = join(dir, 'node_modules/@refkit/widget');
    const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')) as { dependencies: object; peerDependencies: object; exports: object };
    const allowed = new Set([...Object.keys(pkg.dependencies), ...Object.keys(pkg.peerDependencies)]);
    const { stdout } = await run('find', ['dist', '-name', '*.js'], { cwd: pkgDir });
    const bare = new Set<string>();
    for (const file of stdout.split('\n').filter(Boolean)) {
      const code = readFileSync(join(pkgDir, file), 'utf8');
      // Static imports and re-exports (each a line of its own in the build), and dynamic imports.
      const specifiers = [...code.matchAll(/^(?:import|export)\b[^;'"]*?(?:from\s*)?["']([^"']+)["']/gm), ...code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!);
      for (const s of specifiers.filter((s) => !s.startsWith('.'))) bare.add(s.split('/').slice(0, s.startsWith('@') ? 2 : 1).join('/'));
    }
    assert.deepEqual([...bare].filter((name) => !allowed.has(name)), [], 'every bare import is a dependency or a peer');
    assert.ok(bare.has('lit') && bare.has('react') && bare.has('vue'), `lit, react and vue stay imports (${[...bare].join(', ')})`);
    const manifest = JSON.parse(readFileSync(join(pkgDir, 'dist/custom-elements.json'), 'utf8')) as {
      modules: { path: string; declarations: { tagName?: string; attributes?: { name: string }[] }[] }[];
    };
    const [module] = manifest.modules;
    assert.equal(module?.path, 'dist/index.js');
    assert.equal(module?.declarations[0]?.tagName, 'referral-widget');
    assert.ok(module?.declarations[0]?.attributes?.some((a) => a.name === 'campaign-id'));
  });

  it('on a server (Node, no DOM): imports without a DOM and defines nothing; React and Vue render <referral-widget campaign-id>', async () => {
    const p = await project();
    write(p.dir, {
      'ssr.mjs': `
        import * as widget from '@refkit/widget';
        import * as forReact from '@refkit/widget/react';
        import * as forVue from '@refkit/widget/vue';
        import { createElement } from 'react';
        import { renderToString } from 'react-dom/server';
        import { createSSRApp, h } from 'vue';
        import { renderToString as renderVue } from 'vue/server-renderer';
        const props = { campaignId: 'launch', apiBase: 'https://refkit.example', firstNameField: true, lastNameField: false, onReferralSignup() {} };
        const footer = 'Terms apply';
        console.log(JSON.stringify({
          exports: Object.keys(widget).sort(),
          react: typeof forReact.ReferralWidget,
          vue: typeof forVue.ReferralWidget,
          window: typeof window,
          document: typeof document,
          defined: globalThis.customElements?.get('referral-widget') !== undefined,
          reactHtml: renderToString(createElement(forReact.ReferralWidget, { ...props, className: 'promo' }, createElement('p', { slot: 'footer' }, footer))),
          vueHtml: await renderVue(createSSRApp({ render: () => h(forVue.ReferralWidget, { ...props, class: 'promo' }, () => h('p', { slot: 'footer' }, footer)) })),
        }));
      `,
    });
    const out = JSON.parse((await p.exec('node', ['ssr.mjs'])).stdout) as Record<string, unknown>;
    assert.deepEqual(out.exports, ['ReferralWidget', 'captureReferralCode', 'getPromotionCode', 'getReferralCode']);
    assert.equal(out.react, 'object');
    assert.equal(out.vue, 'object');
    assert.equal(out.window, 'undefined');
    assert.equal(out.document, 'undefined');
    assert.equal(out.defined, false, 'nothing defined on the server');
    for (const html of [out.reactHtml, out.vueHtml] as string[]) {
      assert.match(html, /^<referral-widget [^>]*campaign-id="launch"/);
      assert.match(html, /api-base="https:\/\/refkit.example"/);
      assert.match(html, /first-name(="")?[ >]/);
      assert.doesNotMatch(html, /last-name/);
      assert.doesNotMatch(html, /campaignId|onReferralSignup/);
      assert.match(html, /class="promo"/);
      assert.match(html, /<p slot="footer">Terms apply<\/p><\/referral-widget>$/);
    }
  });

  describe('in Chromium, bundled by Vite, with a real service', () => {
    let service: TestService;
    let browser: Browser;
    let site: { url: string; server: Server };
    let campaignId: string;

    before(async () => {
      const [sqlite] = await databaseKinds();
      const [p, started, launched] = await Promise.all([
        project(),
        startService(sqlite!),
        chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS }),
      ]);
      service = started;
      browser = launched;
      campaignId = await service.campaign();
      const app = join(p.dir, 'app');
      write(app, {
        'config.js': `export const campaignId = ${JSON.stringify(campaignId)};\nexport const apiBase = ${JSON.stringify(service.url)};\n`,
        'react.html': '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>React</title></head><body><div id="root"></div><script type="module" src="./react.js"></script></body></html>',
        'react.js': `
          import { createElement as h, useState } from 'react';
          import { createRoot } from 'react-dom/client';
          import { ReferralWidget as Element } from '@refkit/widget';
          import { ReferralWidget } from '@refkit/widget/react';
          import { apiBase, campaignId } from './config.js';

          function App() {
            const [signup, setSignup] = useState(null);
            return h('main', null,
              h(ReferralWidget, { campaignId, apiBase, onReferralSignup: (event) => setSignup(event.detail) }, h('p', { slot: 'footer' }, 'Terms apply')),
              signup && h('output', { id: 'signup' }, [signup.outcome, signup.participant.email, signup.participant.referralCode, String(signup.referrerPromotionCode)].join(' ')));
          }
          createRoot(document.getElementById('root')).render(h(App));

          // A second copy of the package (its own element class and chunks) on the same page.
          window.secondCopy = import('./widget-copy/dist/index.js').then(
            (copy) => ({ ok: copy.ReferralWidget !== Element && customElements.get('referral-widget') === Element }),
            (err) => ({ error: String(err) }),
          );
        `,
        'vue.html': '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vue</title></head><body><div id="root"></div><script type="module" src="./vue.js"></script></body></html>',
        'vue.js': `
          import { createApp, h, ref } from 'vue';
          import { ReferralWidget } from '@refkit/widget/vue';
          import { apiBase, campaignId } from './config.js';

          createApp({
            setup() {
              const signup = ref(null);
              return () => h('main', [
                h(ReferralWidget, { campaignId, apiBase, firstNameField: true, onReferralSignup: (event) => (signup.value = event.detail) }),
                signup.value && h('output', { id: 'signup' }, [signup.value.outcome, signup.value.participant.email, signup.value.participant.firstName].join(' ')),
              ]);
            },
          }).mount('#root');
        `,
      });
      cpSync(join(p.dir, 'node_modules/@refkit/widget/dist'), join(app, 'widget-copy/dist'), { recursive: true });
      // The root's Vite, building the project's app: its imports resolve in the project's node_modules.
      await build({
        root: app,
        configFile: false,
        logLevel: 'warn',
        build: { outDir: join(p.dir, 'site'), emptyOutDir: true, target: 'es2022', rolldownOptions: { input: { react: join(app, 'react.html'), vue: join(app, 'vue.html') } } },
      });
      site = await serve(join(p.dir, 'site'));
      // The app's origin is the campaign's site.
      await service.admin.updateCampaign({ id: campaignId, hostURL: `${site.url}/` });
    });
    after(async () => {
      await browser?.close();
      site?.server.close();
      await service?.close();
    });

    it('React: a visitor signs up in <ReferralWidget>; onReferralSignup gets the detail; a second copy of the package does not throw', async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(`${site.url}/react.html`);
      const widget = page.locator('referral-widget');
      assert.equal(await widget.getAttribute('campaign-id'), campaignId);
      assert.equal(await widget.getAttribute('api-base'), service.url);
      await widget.getByLabel('Email address').fill('ann@example.com');
      await widget.getByRole('button', { name: 'Get my referral link' }).click();
      await page.locator('#signup').waitFor();
      const ann = await service.admin.getParticipant(campaignId, 'ann@example.com');
      assert.equal(await page.locator('#signup').textContent(), `created ann@example.com ${ann.referralCode} null`);
      await widget.getByLabel('Your referral link', { exact: true }).waitFor();
      assert.equal(await widget.getByLabel('Your referral link', { exact: true }).inputValue(), ann.shareLink);
      assert.equal(await widget.getByText('Terms apply').count(), 1, 'children go to the element (its footer slot)');
      assert.deepEqual(await page.evaluate(() => (window as unknown as { secondCopy: Promise<unknown> }).secondCopy), { ok: true });
      assert.deepEqual(errors, []);
      await page.close();
    });

    it('Vue: a visitor signs up in <ReferralWidget>; the component emits referralSignup with the detail', async () => {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(`${site.url}/vue.html`);
      const widget = page.locator('referral-widget');
      assert.equal(await widget.getAttribute('campaign-id'), campaignId);
      await widget.getByLabel('First name').fill('Bea');
      await widget.getByLabel('Email address').fill('bea@example.com');
      await widget.getByRole('button', { name: 'Get my referral link' }).click();
      await page.locator('#signup').waitFor();
      assert.equal(await page.locator('#signup').textContent(), 'created bea@example.com Bea');
      assert.equal((await service.admin.getParticipant(campaignId, 'bea@example.com')).firstName, 'Bea');
      assert.deepEqual(errors, []);
      await page.close();
    });
  });

  it('its types: a .tsx file using the React and Vue components and the element compiles with tsc; wrong props and details do not', async () => {
    assert.equal(await typeCheck(), '', 'tsc found errors');
  });
});

/**
 * A user's .tsx file, checked by the root's tsc as a user's compiler reads the installed package; started
 * as soon as the project is installed, so that it runs beside the tests before it. Resolves to tsc's
 * complaints ('' for none).
 */
async function checkTypes(p: Project): Promise<string> {
  write(p.dir, {
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        jsx: 'react-jsx',
        strict: true,
        noEmit: true,
        // The package's own declarations are checked too; React's and Vue's are theirs to check.
        skipLibCheck: false,
        types: [],
      },
      files: ['typed.tsx'],
    }),
    'typed.tsx': `
      import { h, type VNode } from 'vue';
      import { ReferralWidget, type ReferralSignupEvent } from '@refkit/widget/react';
      import { ReferralWidget as VueReferralWidget } from '@refkit/widget/vue';
      import { captureReferralCode, getPromotionCode, getReferralCode, ReferralWidget as Element, type Participant, type PromotionCodeRef, type WidgetState } from '@refkit/widget';

      export const page = (
        <ReferralWidget
          campaignId="launch"
          apiBase="https://refkit.example"
          firstNameField
          className="promo"
          onReferralSignup={(event) => {
            const who: Participant = event.detail.participant;
            const outcome: 'created' | 'existing' | 'pending' = event.detail.outcome;
            const code: PromotionCodeRef | null = event.detail.referrerPromotionCode;
            console.log(who.email, outcome, code?.id);
          }}
          onReferralCode={(event) => console.log(event.detail.code, event.detail.valid === true)}
          onReferralError={(event) => console.log(event.detail.status + 1, event.detail.code)}
        >
          <p slot="footer">Terms apply</p>
        </ReferralWidget>
      );
      export const handler = (event: ReferralSignupEvent): string | undefined => event.detail.participant.referralCode;

      // @ts-expect-error campaignId is required
      export const noCampaign = <ReferralWidget />;
      // @ts-expect-error campaignId is a string
      export const numbered = <ReferralWidget campaignId={42} />;
      // @ts-expect-error firstNameField is a boolean
      export const wrongFlag = <ReferralWidget campaignId="launch" firstNameField="yes" />;
      // @ts-expect-error the detail of referral-signup has no such field
      export const wrongDetail = <ReferralWidget campaignId="launch" onReferralSignup={(event) => event.detail.nothing} />;
      // @ts-expect-error there is no such event
      export const wrongEvent = <ReferralWidget campaignId="launch" onReferralSignedUp={() => {}} />;

      type VueProps = InstanceType<typeof VueReferralWidget>['$props'];
      export const vueProps: VueProps = {
        campaignId: 'launch',
        showLeaderboard: true,
        onReferralSignup: (event) => console.log(event.detail.participant.email, event.detail.outcome),
        onReferralError: (event) => console.log(event.detail.message),
      };
      export const vnode: VNode = h(VueReferralWidget, vueProps);
      // @ts-expect-error campaignId is required
      export const vueNoCampaign: VueProps = {};
      // @ts-expect-error campaignId is a string
      export const vueNumbered: VueProps = { campaignId: 42 };
      // @ts-expect-error the detail of referral-code has no such field
      export const vueWrongDetail: VueProps = { campaignId: 'launch', onReferralCode: (event) => event.detail.nothing };

      // The element, as the DOM's types know it once the package is imported.
      const element: Element = document.createElement('referral-widget');
      element.campaignId = 'launch';
      const state: WidgetState = element.state;
      element.addEventListener('referral-signup', (event) => console.log(event.detail.participant.shareLink, state));
      // @ts-expect-error campaignId is a string
      element.campaignId = 1;
      export const code: string | undefined = getReferralCode('launch');
      export const discount: Promise<PromotionCodeRef | null> = getPromotionCode('launch', 'https://refkit.example');
      export const captured: Promise<void> = captureReferralCode({ apiBase: 'https://refkit.example' });
    `,
  });
  try {
    await p.exec(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.json']);
    return '';
  } catch (err) {
    const { stdout, stderr } = err as { stdout?: string; stderr?: string };
    return `${stdout ?? ''}${stderr ?? ''}` || String(err);
  }
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

/** The built app, from a port of its own: another origin than the service's. */
function serve(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const path = normalize(new URL(req.url ?? '/', 'http://x').pathname).replace(/^(\.\.[/\\])+/, '');
    try {
      const body = readFileSync(join(dir, path));
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server })));
}
