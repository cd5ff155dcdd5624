/**
 * The email-signature snippets of docs/privacy.md (Node, Python, Ruby), run as written by each language, sign an
 * email the way the service verifies it: the signature each prints proves the participant.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { it } from 'node:test';
import { docSection } from './helpers/docs.js';
import { eachDatabase } from './helpers/suite.js';

const section = docSection('docs/privacy.md', '## Proof of being the participant', '## Stolen referrals');
/** The one line of the snippet in a fenced block of this language. */
const snippet = (lang: string) => {
  const m = new RegExp('```' + lang + '\\n[ ]*(?:(?:#|//).*\\n)?[ ]*(.+)\\n[ ]*```').exec(section);
  assert.ok(m?.[1], `docs/privacy.md has a ${lang} signature snippet`);
  return m[1].trim();
};

/** Each snippet in a program that defines `secret` and `email` first and prints `signature`. */
const programs: Record<string, { command: string; args: (code: string) => string[] }> = {
  js: { command: process.execPath, args: (code) => ['-e', `const secret = process.argv[1], email = process.argv[2];\n${code}\nconsole.log(signature);`] },
  python: { command: 'python3', args: (code) => ['-c', `import sys, hmac, hashlib\nsecret, email = sys.argv[1], sys.argv[2]\n${code}\nprint(signature)`] },
  ruby: { command: 'ruby', args: (code) => ['-e', `require 'openssl'\nsecret, email = ARGV[0], ARGV[1]\n${code}\nputs signature`] },
};

eachDatabase("docs/privacy.md's email-signature snippets", (service) => {
  for (const [lang, { command, args }] of Object.entries(programs)) {
    it(`${lang}: the printed signature proves the participant`, async () => {
      const s = service();
      const id = await s.campaign();
      await s.admin.addParticipant({ id, email: 'ann@example.com', firstName: 'Ann' });
      const { secret } = await s.admin.getSigningSecret(id);
      const signature = execFileSync(command, [...args(snippet(lang)), secret, ' Ann@Example.com '], { encoding: 'utf8' }).trim();
      assert.match(signature, /^[0-9a-f]{64}$/);
      const proven = await s.browser.signUp({ id, email: 'ann@example.com' }, { emailSignature: signature });
      assert.equal(proven.participant.firstName, 'Ann');
    });
  }
});
