/**
 * Another revision of this repository, built: a git worktree of it sharing this checkout's node_modules,
 * with its server compiled (`npm run build:server`). Used by `npm run bench -- --compare REV`
 * (bench/compare.ts, a fresh build removed afterwards) and by the upgrade test (test/server/upgrade.test.ts,
 * the previous release, kept: see `cached`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Through package.json's real path: bundled into .test-build/ (whose package.json is a link), still the checkout.
const ROOT = dirname(realpathSync(fileURLToPath(new URL('../package.json', import.meta.url))));
/** Builds kept by `cached`, one folder per commit: under node_modules, which git, tsc and eslint ignore. */
export const REVISION_CACHE = join(ROOT, 'node_modules/.cache/refkit-revisions');
/** Written last into a build: a folder without it is a build that was cut short. */
const DONE = '.refkit-built';

export interface BuiltRevision {
  sha: string;
  dir: string;
  /** The revision's `refkit` (its dist/server/cli.js). */
  cli: string;
  /** How long the build took, in ms; 0 when a cached one was used. */
  buildMs: number;
  remove(): void;
}

const git = (args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function removeWorktree(dir: string): void {
  try {
    git(['worktree', 'remove', '--force', dir]);
  } catch {
    // Not (or no longer) a registered worktree: the folder alone goes.
  }
  rmSync(dir, { recursive: true, force: true });
}

/** Checks `sha` out into `dir` and builds its server there. */
function build(sha: string, dir: string, log: (line: string) => void): void {
  git(['worktree', 'add', '--detach', dir, sha]);
  try {
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    log(`building ${sha.slice(0, 7)} in ${dir}`);
    execFileSync('npm', ['run', 'build:server'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
    writeFileSync(join(dir, DONE), '');
  } catch (err) {
    removeWorktree(dir);
    throw err;
  }
}

/**
 * REV built. With `cached`, the build is kept under REVISION_CACHE/<commit> and used again by the next
 * call for the same commit (the build is most of the cost: a minute or more on a busy machine), and
 * remove() leaves it; without, it is made in a temporary folder that remove() deletes.
 */
export function buildRevision(rev: string, log: (line: string) => void, { cached = false } = {}): BuiltRevision {
  const sha = git(['rev-parse', '--verify', `${rev}^{commit}`]);
  const revision = (dir: string, buildMs: number, remove: () => void): BuiltRevision => ({ sha, dir, cli: join(dir, 'dist/server/cli.js'), buildMs, remove });
  if (!cached) {
    const dir = mkdtempSync(join(tmpdir(), 'refkit-compare-'));
    const started = Date.now();
    build(sha, dir, log);
    return revision(dir, Date.now() - started, () => removeWorktree(dir));
  }
  const dir = join(REVISION_CACHE, sha);
  if (existsSync(join(dir, DONE))) return revision(dir, 0, () => undefined);
  // A build cut short (or a folder deleted without git knowing): start again.
  removeWorktree(dir);
  git(['worktree', 'prune']);
  mkdirSync(REVISION_CACHE, { recursive: true });
  const started = Date.now();
  build(sha, dir, log);
  return revision(dir, Date.now() - started, () => undefined);
}
