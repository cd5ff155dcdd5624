/**
 * The `refkit` command lines the documentation shows but does not run (blocks marked `<!-- not run: ... -->`:
 * they start a server, need Docker, or ask for a password) are valid as pasted: each names a command the
 * CLI has, passes only options that command takes, and carries no synopsis placeholder ([--flag],
 * <value>, ...) that a shell would pass on literally. (The other blocks are run as they are:
 * test/e2e/readme.test.ts.)
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { cli } from './helpers/cli.js';
import { DOC_PAGES, shellBlocks } from './helpers/docs.js';

/** The words of a shell command line: split at blanks outside quotes, the quotes removed; a comment dropped. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const m of line.matchAll(/'([^']*)'|"([^"]*)"|(#.*$)|(\S+)/g)) {
    if (m[3] !== undefined) break;
    out.push(m[1] ?? m[2] ?? m[4]!);
  }
  return out;
}

/**
 * Every `refkit ...` command line of the pages' blocks not run (`npx refkit`, or `refkit` in a container:
 * `docker compose exec refkit refkit ...`): its page, the line, the words after the last `refkit`.
 */
const commands = DOC_PAGES.flatMap(shellBlocks)
  .filter((block) => block.notRun !== undefined)
  .flatMap((block) =>
    block.code
      .split('\n')
      .map((line) => ({ page: block.page, line, m: /(?:^|\s)refkit ((?:(?!\brefkit ).)*)$/.exec(line) }))
      .filter(({ line, m }) => m && !/^(Refkit |#)/.test(line))
      .map(({ page, line, m }) => ({ page, line, args: words(m![1]!) })),
  );

describe("the documentation's refkit command lines", () => {
  it('there are some to check', () => {
    assert.ok(commands.length >= 5, `${commands.length} command lines`);
  });

  it('are valid when pasted: a command the CLI has, its own options, no placeholder', async () => {
    for (const { page, line, args } of commands) {
      const where = `${page}: ${line}`;
      for (const w of args) assert.doesNotMatch(w, /^\[|\]$|^<.*>$|^\.\.\.$|…/, `${where}: "${w}" is a placeholder, not a value`);
      const firstOption = args.findIndex((w) => w.startsWith('-'));
      const path = firstOption < 0 ? args : args.slice(0, firstOption);
      const help = await cli([...path, '--help'], {});
      assert.equal(help.code, 0, `${where}: ${help.stderr}`);
      assert.match(help.stdout, new RegExp(`^Usage: refkit ${path.join(' ')} \\[options\\]( \\[\\w+\\])?$`, 'm'), `${where}: "${path.join(' ')}" is not a command`);
      const options = new Set([...help.stdout.matchAll(/^\s+(?:-\w, )?(--[\w-]+)/gm)].map((m) => m[1]));
      for (const flag of args.filter((w) => w.startsWith('--'))) assert.ok(options.has(flag), `${where}: ${path.join(' ')} has no option ${flag}`);
    }
  });
});
