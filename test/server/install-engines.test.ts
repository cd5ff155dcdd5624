/**
 * `npm install` on this project's Node (package.json's `engines`, 20 on every machine it is built on)
 * prints no EBADENGINE warning: every package the lockfile installs (optional platform packages that
 * would not install here aside) accepts the lowest Node the project supports, and the one running.
 * npm warns from the same `engines` fields the lockfile records, so this reads them instead of
 * running an install.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import semver from 'semver';
import { ROOT } from './helpers/root.js';

interface LockedPackage {
  version?: string;
  engines?: { node?: string } | string[];
  optional?: boolean;
  os?: string[];
  cpu?: string[];
}

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockedPackage> };
const project = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };

/** Whether npm would install the package on this machine (an optional one for another OS or CPU is left out). */
const installedHere = (p: LockedPackage) => !(p.optional && ((p.os && !p.os.includes(process.platform)) || (p.cpu && !p.cpu.includes(process.arch))));

describe('npm install on the Node the project supports', () => {
  it('installs no package whose engines refuse it', () => {
    const lowest = semver.minVersion(project.engines.node)!.version;
    const refusing: string[] = [];
    let checked = 0;
    for (const [path, p] of Object.entries(lock.packages)) {
      const wanted = Array.isArray(p.engines) ? undefined : p.engines?.node;
      if (!path || !wanted || !installedHere(p)) continue;
      checked++;
      for (const node of [lowest, process.version]) {
        if (!semver.satisfies(node, wanted, { includePrerelease: true })) refusing.push(`${path}@${p.version} wants node ${wanted}, not ${node}`);
      }
    }
    assert.ok(checked > 100, `${checked} packages with engines checked`);
    assert.deepEqual(refusing, [], 'pin a version that runs on the project\'s Node through package.json "overrides"');
  });
});
