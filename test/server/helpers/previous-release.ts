/**
 * The previous release: the commit the upgrade test (../upgrade.test.ts) and the migration rules test
 * (../migration-rules.test.ts) hold this code against. A commit hash, not a tag: a clean clone has every
 * commit but not always the tags. Bumped at each release to the commit that release shipped
 * (docs/operate.md, "Upgrades").
 *
 * Its build uses this checkout's node_modules (scripts/revision.ts), so a package the previous release
 * imports stays a devDependency until this is bumped past its removal: `@fastify/swagger-ui` (the API
 * docs page became Redoc after this release).
 */
import { execFileSync } from 'node:child_process';
import { ROOT } from './root.js';

export const PREVIOUS_RELEASE = 'e59393c056e908fc519859f7125bc480109fca98';

/** The migration names the previous release has, read from its migrations.ts (its list is code). */
export function previousReleaseMigrations(): string[] {
  const source = execFileSync('git', ['show', `${PREVIOUS_RELEASE}:src/server/store/migrations.ts`], { cwd: ROOT, encoding: 'utf8' });
  return [...source.matchAll(/^ {4}'(\d{4}_\w+)': \{$/gm)].map((m) => m[1]!).sort();
}
