/**
 * The Operate page's commands for the Docker image (docs/operate.md, "The CLI in the Docker image") run
 * as the image would run them: the Dockerfile has no entrypoint and `serve` as its command, so the words
 * after the image name are the command; `refkit` is on PATH as a link to bin/refkit.js. Run here with
 * that link on PATH, a database standing in for the container's (a folder for its /data volume).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, it } from 'node:test';
import { CHECK_EXIT } from '../../src/server/cli/database-commands.js';
import { readDoc } from './helpers/docs.js';
import { ROOT } from './helpers/root.js';

const run = promisify(execFile);

describe('docs/operate.md: the CLI in the Docker image', () => {
  it('has no entrypoint, serve as its command, refkit on PATH and SQLite in /data: what the page says', () => {
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    assert.doesNotMatch(dockerfile, /^ENTRYPOINT/m);
    assert.match(dockerfile, /^CMD \["node", "dist\/server\/cli\.js", "serve"\]$/m);
    assert.match(dockerfile, /^RUN ln -s \/app\/bin\/refkit\.js \/usr\/local\/bin\/refkit /m);
    assert.match(dockerfile, /^ENV .*\bDATABASE_URL=sqlite:\/data\/refkit\.db\b/m);
  });

  it('its docker commands run in order as documented: behind (3), migrate, backup, up to date (0)', async () => {
    const lines = [...readDoc('docs/operate.md').matchAll(/^docker (?:run .* refkit|compose exec refkit) (refkit .*)$/gm)].map((m) => m[1]!.split(' '));
    assert.deepEqual(lines.map((words) => words.slice(1, 3).join(' ')), ['migrate --check', 'migrate', 'backup --to', 'migrate --check']);
    const dir = mkdtempSync(join(tmpdir(), 'refkit-image-'));
    try {
      const bin = join(dir, 'bin');
      const data = join(dir, 'data');
      mkdirSync(bin);
      mkdirSync(data);
      // refkit on PATH, a link to bin/refkit.js, as /usr/local/bin/refkit is in the image.
      symlinkSync(join(ROOT, 'bin/refkit.js'), join(bin, 'refkit'));
      const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, DATABASE_URL: `sqlite:${data}/refkit.db`, LOG_LEVEL: 'warn' };
      const codes: (number | undefined)[] = [];
      for (const [command, ...args] of lines) {
        const result = await run(command!, args.map((a) => a.replace(/^\/data\//, `${data}/`)), { env, cwd: dir }).then(
          () => 0,
          (err: { code?: number }) => err.code,
        );
        codes.push(result);
      }
      assert.deepEqual(codes, [CHECK_EXIT.behind, 0, 0, 0]);
      assert.ok(existsSync(join(data, 'refkit-backup.db')), 'the backup is in the volume');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
