// The last step of @refkit/widget's build (its `build` script, cwd packages/widget), after `vite build`
// (the JavaScript in dist/) and `tsc -p tsconfig.json` (declarations of every module it reaches, in
// dist/.types/, laid out as in the repository, since the sources live in src/ and packages/widget/src;
// a source that is a .d.ts already, such as packages/node/src/openapi.d.ts, is read where it is):
// - the declarations a user's compiler reads, and only those (the ones the exports' declarations import,
//   transitively), moved beside the JavaScript: dist/index.d.ts, dist/react.d.ts, dist/vue.d.ts, and the
//   rest under dist/types/, their relative imports rewritten to match; one that imports a package the
//   package does not depend on fails the build;
// - dist/custom-elements.json, the root's manifest (`npm run manifest`) with its module paths made the
//   package's: the element is declared and defined by dist/index.js.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = fileURLToPath(new URL('../', import.meta.url));
const ROOT = join(PACKAGE, '../..');
const EMITTED = join(PACKAGE, 'dist/.types');
const DIST = join(PACKAGE, 'dist');
const ENTRIES = ['index', 'react', 'vue'];

const pkg = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'));
const allowed = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})]);

/** Where an emitted declaration (its path relative to the repository) goes in dist/. */
function target(file) {
  const entry = /^packages\/widget\/src\/([^/]+)\.d\.ts$/.exec(file);
  if (entry && ENTRIES.includes(entry[1])) return `${entry[1]}.d.ts`;
  return `types/${file.replace(/^packages\/widget\/src\//, 'package/').replace(/^packages\/node\/src\//, 'api/contract/').replace(/^src\//, '')}`;
}

const SPECIFIER = /(\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\2/g;
const packageName = (specifier) => specifier.split('/').slice(0, specifier.startsWith('@') ? 2 : 1).join('/');

const done = new Map();
const todo = ENTRIES.map((e) => `packages/widget/src/${e}.d.ts`);
while (todo.length) {
  const file = todo.pop();
  if (done.has(file)) continue;
  const from = target(file);
  // A source that is a declaration file itself (the generated wire contract) is not emitted: it is taken as it is.
  const emitted = join(EMITTED, file);
  const text = readFileSync(existsSync(emitted) ? emitted : join(ROOT, file), 'utf8').replace(SPECIFIER, (all, lead, quote, specifier) => {
    if (!specifier.startsWith('.')) {
      if (!allowed.has(packageName(specifier))) throw new Error(`${file} imports ${specifier}, which @refkit/widget does not depend on`);
      return all;
    }
    const imported = posix.join(posix.dirname(file), specifier.replace(/\.js$/, '.d.ts'));
    todo.push(imported);
    let path = posix.relative(posix.dirname(from), target(imported)).replace(/\.d\.ts$/, '.js');
    if (!path.startsWith('.')) path = `./${path}`;
    return `${lead}${quote}${path}${quote}`;
  });
  done.set(file, text);
}
for (const [file, text] of done) {
  const out = join(DIST, target(file));
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, text);
}
rmSync(EMITTED, { recursive: true, force: true });

// The manifest: one module, dist/index.js, that declares ReferralWidget and defines <referral-widget>.
const manifest = JSON.parse(readFileSync(join(ROOT, 'custom-elements.json'), 'utf8'));
const element = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'referral-widget');
if (!element) throw new Error('custom-elements.json declares no <referral-widget>: run npm run manifest at the root');
const MODULE = 'dist/index.js';
const declaration = { name: element.name, module: MODULE };
writeFileSync(
  join(DIST, 'custom-elements.json'),
  `${JSON.stringify(
    {
      schemaVersion: manifest.schemaVersion,
      readme: '',
      modules: [
        {
          kind: 'javascript-module',
          path: MODULE,
          declarations: [element],
          exports: [
            { kind: 'js', name: element.name, declaration },
            { kind: 'custom-element-definition', name: element.tagName, declaration },
          ],
        },
      ],
    },
    null,
    2,
  )}\n`,
);
console.log(`${relative(ROOT, DIST)}: ${done.size} declaration files and custom-elements.json`);
