/**
 * The import rules of the layout (docs/architecture.md#layout), checked by `npm run lint`.
 *
 * src/server is a composition root (app.ts, serve.ts, runtime.ts, config.ts, cli.ts and cli/) over
 * capability folders, each with up to three layers: routes/ (HTTP), domain/ (the rules) and store/
 * (its SQL), over a shared base: kernel/ (context, errors, ids, time, money, paging, ...), store/ (the
 * connection, tables, migrations, group commit, and the Store every domain reaches its SQL through)
 * and http/ (what every route shares: access, errors, validation, limits).
 * A capability reaches another only through its public face, its domain/ folder.
 */
const CAPS = '(accounts|billing|campaigns|emails|engagement|operations|payouts|portal|privacy|referrals|rewards|webhooks)';
const ROOT = '^src/server/(app|serve|runtime|config|banner|seed|database-url|cli)\\.ts$|^src/server/cli/';

export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle anywhere, type-only imports included: move what both sides need down a layer.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'kernel-below-all',
      severity: 'error',
      comment: 'kernel/ is the base every capability stands on: it imports only the wire schemas, itself and the Store (Ctx carries it).',
      from: { path: '^src/server/kernel/' },
      to: { path: '^src/server/', pathNot: '^src/server/(kernel/|store/store\\.ts$)' },
    },
    {
      name: 'store-base-below-domains',
      severity: 'error',
      comment: 'store/ holds SQL only: it never imports a rule, a route or the HTTP layer.',
      from: { path: '^src/server/store/' },
      to: { path: `^src/server/(${CAPS}/(domain|routes)/|http/|cli/)|${ROOT}` },
    },
    {
      name: 'store-sql-only',
      severity: 'error',
      comment: "A capability's store/ holds its SQL: it imports the store base and the kernel, never a rule, a route or the HTTP layer.",
      from: { path: `^src/server/${CAPS}/store/` },
      to: { path: `^src/server/(${CAPS}/(domain|routes)/|http/|cli/)|${ROOT}` },
    },
    {
      name: 'store-own-capability',
      severity: 'error',
      comment: "A capability's store modules are its own: another capability reaches that SQL through the Store (store/store.ts).",
      from: { path: `^src/server/${CAPS}/(domain|store)/` },
      to: { path: `^src/server/${CAPS}/store/`, pathNot: '^src/server/$1/store/' },
    },
    {
      name: 'domain-below-routes',
      severity: 'error',
      comment: 'Rules know nothing of HTTP: domain/ never imports routes/, http/ or the composition root.',
      from: { path: `^src/server/${CAPS}/domain/` },
      to: { path: `^src/server/(${CAPS}/routes/|http/|cli/)|${ROOT}` },
    },
    {
      name: 'routes-through-domain',
      severity: 'error',
      comment:
        'Routes reach the data through domain rules, never the SQL. One exception: http/idempotency.ts keeps the ' +
        'HTTP exchange itself (an Idempotency-Key, the status and body answered), which belongs to no capability.',
      from: { path: `^src/server/(${CAPS}/routes|http)/`, pathNot: '^src/server/http/idempotency\\.ts$' },
      to: { path: `^src/server/(${CAPS}/)?store/` },
    },
    {
      name: 'routes-own-capability',
      severity: 'error',
      comment: "A capability's routes are its own: another reaches it through its domain/.",
      from: { path: `^src/server/${CAPS}/routes/` },
      to: { path: `^src/server/${CAPS}/routes/`, pathNot: '^src/server/$1/routes/' },
    },
    {
      name: 'http-below-routes',
      severity: 'error',
      comment: "http/ is what every capability's routes share: it never imports one of them, nor the composition root.",
      from: { path: '^src/server/http/' },
      to: { path: `^src/server/(${CAPS}/routes/|cli/)|${ROOT}` },
    },
    {
      name: 'browser-apart-from-server',
      severity: 'error',
      comment: 'The widget, the dashboard and the portal share only the wire schemas and clients (src/api) with the service.',
      from: { path: '^src/(widget|dashboard|portal|api)/' },
      to: { path: '^src/server/' },
    },
    {
      name: 'api-below-all',
      severity: 'error',
      comment: 'src/api is shared by the service, the widget, the dashboard and the portal: it imports none of them.',
      from: { path: '^src/api/' },
      to: { path: '^src/(server|widget|dashboard|portal)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    includeOnly: '^src/',
  },
};
