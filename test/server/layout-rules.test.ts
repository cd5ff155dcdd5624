/**
 * The layout's import rules (.dependency-cruiser.mjs, run by `npm run lint`) catch what they are for:
 * each rule is shown a small tree that breaks it, and the tree as it is passes. A rule that stopped
 * matching (a renamed folder, a wrong pattern) would let the breach through and fail here. And the
 * layout's own check (scripts/check-layout.js): a crowded folder and a folder without a README fail.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from './helpers/root.js';

const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const trees: string[] = [];
after(() => trees.forEach((t) => rmSync(t, { recursive: true, force: true })));

/** A tree of TypeScript files (path -> source) with the project's rules and a tsconfig, in a directory of its own. */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'refkit-layout-'));
  trees.push(dir);
  cpSync(join(ROOT, '.dependency-cruiser.mjs'), join(dir, '.dependency-cruiser.mjs'));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }));
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

/** The names of the rules the tree breaks (empty when it passes), from depcruise's JSON. */
function broken(dir: string): string[] {
  const run = spawnSync(process.execPath, [DEPCRUISE, 'src', '--config', '.dependency-cruiser.mjs', '--output-type', 'json'], { cwd: dir, encoding: 'utf8' });
  assert.ok(run.stdout.startsWith('{'), `depcruise ran: ${run.stderr}`);
  const result = JSON.parse(run.stdout) as { summary: { violations: { rule: { name: string } }[] } };
  return [...new Set(result.summary.violations.map((v) => v.rule.name))].sort();
}

const ok = 'export const x = 1;\n';

describe('layout rules', () => {
  it('a tree that keeps the layers passes', () => {
    const dir = tree({
      'src/server/kernel/errors.ts': ok,
      'src/server/store/store.ts': "import './../rewards/store/payment-store.js';\nexport class Store {}\n",
      'src/server/rewards/store/payment-store.ts': "import '../../kernel/errors.js';\n" + ok,
      'src/server/rewards/domain/rewards.ts': "import '../store/payment-store.js';\nimport '../../store/store.js';\n" + ok,
      'src/server/referrals/domain/signups.ts': "import '../../rewards/domain/rewards.js';\n" + ok,
      'src/server/referrals/routes/referral-api.ts': "import '../domain/signups.js';\nimport '../../http/access.js';\n" + ok,
      'src/server/http/access.ts': "import '../referrals/domain/signups.js';\n" + ok,
      'src/server/app.ts': "import './referrals/routes/referral-api.js';\n" + ok,
    });
    assert.deepEqual(broken(dir), []);
  });

  it('a cycle fails, also when one of its imports is only a type', () => {
    const dir = tree({
      'src/widget/a.ts': "import type { B } from './b.js';\nexport type A = { b?: B };\n",
      'src/widget/b.ts': "import { x } from './c.js';\nexport type B = number;\nexport const y = x;\n",
      'src/widget/c.ts': "import type { A } from './a.js';\nexport const x = 1;\nexport type C = A;\n",
    });
    assert.deepEqual(broken(dir), ['no-circular']);
  });

  it('each layering rule fails the import that breaks it, and only that one', () => {
    // Each line: a file, the import in it that breaks a rule, and that rule.
    const breaches: [string, string, string][] = [
      ['src/server/kernel/time.ts', '../rewards/domain/rewards.js', 'kernel-below-all'],
      ['src/server/store/tables.ts', '../rewards/domain/rewards.js', 'store-base-below-domains'],
      ['src/server/rewards/store/payment-store.ts', '../domain/rewards.js', 'store-sql-only'],
      ['src/server/referrals/domain/signups.ts', '../../rewards/store/refund-store.js', 'store-own-capability'],
      ['src/server/rewards/domain/ledger.ts', '../../http/access.js', 'domain-below-routes'],
      ['src/server/rewards/routes/reward-admin.ts', '../store/refund-store.js', 'routes-through-domain'],
      ['src/server/rewards/routes/dispute-admin.ts', '../../referrals/routes/widget.js', 'routes-own-capability'],
      ['src/server/http/access.ts', '../referrals/routes/widget.js', 'http-below-routes'],
      ['src/widget/index.ts', '../server/kernel/errors.js', 'browser-apart-from-server'],
      ['src/api/schemas.ts', '../widget/qr.js', 'api-below-all'],
    ];
    const targets = ['src/server/rewards/domain/rewards.ts', 'src/server/rewards/store/refund-store.ts', 'src/server/referrals/routes/widget.ts', 'src/server/kernel/errors.ts', 'src/widget/qr.ts'];
    const dir = tree({
      ...Object.fromEntries(targets.map((f) => [f, ok])),
      ...Object.fromEntries(breaches.map(([file, target]) => [file, `import '${target}';\n${ok}`])),
    });
    const run = spawnSync(process.execPath, [DEPCRUISE, 'src', '--config', '.dependency-cruiser.mjs', '--output-type', 'json'], { cwd: dir, encoding: 'utf8' });
    const violations = (JSON.parse(run.stdout) as { summary: { violations: { from: string; rule: { name: string } }[] } }).summary.violations;
    assert.deepEqual(
      violations.map((v) => `${v.from}: ${v.rule.name}`).sort(),
      breaches.map(([file, , rule]) => `${file}: ${rule}`).sort(),
    );
  });

  it('the layout check: a folder of 26 source files, or a capability without a README, fails it; the project passes', () => {
    const check = (cwd: string) => spawnSync(process.execPath, [join(ROOT, 'scripts/check-layout.js')], { cwd, encoding: 'utf8' });
    const crowded = tree(Object.fromEntries(Array.from({ length: 26 }, (_, i) => [`src/widget/f${i}.ts`, ok])));
    mkdirSync(join(crowded, 'src/server/rewards'), { recursive: true });
    const run = check(crowded);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /src\/widget holds 26 source files/);
    assert.match(run.stderr, /src\/server\/rewards has no README\.md/);
    const project = check(ROOT);
    assert.equal(project.status, 0, project.stderr);
  });
});
