/**
 * The packages as users get them: each workspace packed with `npm pack` (once per test process), and a
 * fresh temporary project that installs the tarballs and the packages it names, at the versions this
 * repository's lockfile holds, from npm's local cache first (`--prefer-offline`): what `npm ci` fetched for
 * this repository is there already, so an install takes seconds and needs the registry only for a package
 * the cache lacks.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const run = promisify(execFile);

/** The workspaces of packages/, by folder name. */
export type Workspace = 'widget' | 'node';

const packDir = mkdtempSync(join(tmpdir(), 'refkit-packs-'));
process.on('exit', () => rmSync(packDir, { recursive: true, force: true }));
const packs = new Map<Workspace, Promise<string>>();

/**
 * The workspace's tarball, from `npm pack` of what `npm run build` made (scripts are not run again here:
 * the build is the project's, checked fresh by scripts/build-if-stale.js before the suite).
 */
export function packed(workspace: Workspace): Promise<string> {
  let tarball = packs.get(workspace);
  if (!tarball) {
    tarball = run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir, '-w', `packages/${workspace}`], { cwd: ROOT }).then(({ stdout }) => {
      const [info] = JSON.parse(stdout) as { filename: string }[];
      return join(packDir, info!.filename);
    });
    packs.set(workspace, tarball);
  }
  return tarball;
}

/** The version of a package this repository's lockfile installed (the root's node_modules copy). */
export function lockedVersion(name: string): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in package-lock.json: add it to the root devDependencies so that its copy is in the cache`);
  return version;
}

export interface Project {
  dir: string;
  /** Runs a command in the project's folder; rejects (with its output) on a non-zero exit. */
  exec(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<{ stdout: string; stderr: string }>;
  remove(): void;
}

/**
 * A new folder with a package.json of type module that depends on the workspaces' tarballs and on `deps`
 * (names, at the lockfile's versions), installed with npm.
 */
export async function freshProject(workspaces: Workspace[], deps: string[] = []): Promise<Project> {
  const dir = mkdtempSync(join(tmpdir(), 'refkit-user-'));
  const dependencies: Record<string, string> = {};
  for (const w of workspaces) dependencies[`@refkit/${w}`] = `file:${await packed(w)}`;
  for (const name of deps) dependencies[name] = lockedVersion(name);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'refkit-user', private: true, type: 'module', dependencies }, null, 2));
  const exec = (command: string, args: string[], env?: NodeJS.ProcessEnv) =>
    run(command, args, { cwd: dir, env: { ...process.env, ...env }, maxBuffer: 32 * 1024 * 1024 });
  await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']);
  return { dir, exec, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
