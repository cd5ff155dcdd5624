/**
 * `npm run bench`'s command line (bench/run.ts, bench/options.ts): --help lists every mode and option it
 * accepts, and answers at once, before anything of the benchmark is loaded; a mistyped option is one
 * line; only a bare run is the full run that rewrites BENCHMARKS.md (and says so before it starts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { FULL_RUN_NOTICE, isFullRun, OPTIONS, parseBenchArgs } from '../../bench/options.js';
import { ROOT } from './helpers/root.js';

const bench = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'bench/run.ts', ...args], { cwd: ROOT, encoding: 'utf8' });

describe('npm run bench -- --help', () => {
  it('prints every mode and option the bench accepts, and exits 0; an unknown option is one line and exit 2', () => {
    const help = bench(['--help']);
    assert.equal(help.status, 0, help.stderr);
    assert.match(help.stdout, /^Usage: npm run bench/);
    for (const name of Object.keys(OPTIONS)) assert.match(help.stdout, new RegExp(`^ +(-\\w, )?--${name}\\b`, 'm'), `--${name} is not in --help`);
    const wrong = bench(['--qiuck']);
    assert.equal(wrong.status, 2);
    assert.equal(wrong.stdout, '');
    assert.match(wrong.stderr, /^npm run bench: Unknown option '--qiuck'\nThe modes and options: npm run bench -- --help\n$/);
  });

  it('only a bare run is the full run, whose notice says it rewrites BENCHMARKS.md and how long it takes', () => {
    assert.equal(isFullRun(parseBenchArgs([])), true);
    assert.equal(isFullRun(parseBenchArgs(['--db', 'sqlite'])), true);
    for (const args of [['--quick'], ['--routes', 'getCampaign'], ['--growth'], ['--compare', 'HEAD~1'], ['--profile'], ['--retention'], ['--backtest'], ['--soak'], ['--signup-options'], ['--stale-statistics'], ['--processes', '1']]) {
      assert.equal(isFullRun(parseBenchArgs(args)), false, args.join(' '));
    }
    assert.match(FULL_RUN_NOTICE, /rewrites the Routes section of BENCHMARKS\.md/);
    assert.match(FULL_RUN_NOTICE, /about \d+ minutes/);
  });
});
