/** The widget's parts on their own: storage, code capture, share links, retries, failures, script origin. */
import { expect } from '@open-wc/testing';
import { ApiError } from '../../src/api/client.js';
import { captureCode, codeFromUrl } from '../../src/widget/code-capture.js';
import { describeFailure } from '../../src/widget/failures.js';
import { withNetworkRetries } from '../../src/widget/retry.js';
import { scriptOrigin } from '../../src/widget/script-origin.js';
import { shareTargets, shareTexts, withLink } from '../../src/widget/share-links.js';
import * as storage from '../../src/widget/storage.js';

const networkError = () => new ApiError(0, 'network_error', 'Failed to fetch');

beforeEach(() => localStorage.clear());

describe('storage', () => {
  it('remembers a code per campaign for 90 days', () => {
    const now = Date.UTC(2026, 0, 1);
    storage.rememberCode('a', 'CODE2345', now);
    expect(storage.storedCode('a', now + storage.CODE_TTL_MS - 1)).to.equal('CODE2345');
    expect(storage.storedCode('b', now)).to.equal(undefined);
    expect(storage.CODE_TTL_MS).to.equal(90 * 24 * 3600 * 1000);
    expect(storage.storedCode('a', now + storage.CODE_TTL_MS + 1)).to.equal(undefined);
    // An expired entry is removed, not left behind.
    expect(localStorage.getItem('refkit:a:code')).to.equal(null);
  });

  it('drops a damaged entry', () => {
    localStorage.setItem('refkit:a:code', '{not json');
    expect(storage.storedCode('a')).to.equal(undefined);
    localStorage.setItem('refkit:a:code', JSON.stringify({ code: 5, expires: 'x' }));
    expect(storage.storedCode('a')).to.equal(undefined);
    expect(localStorage.getItem('refkit:a:code')).to.equal(null);
  });

  it('remembers and forgets the participant of a campaign', () => {
    storage.rememberParticipant('a', 'x@example.com');
    expect(storage.storedParticipant('a')).to.equal('x@example.com');
    expect(storage.storedParticipant('b')).to.equal(undefined);
    storage.forgetParticipant('a');
    expect(storage.storedParticipant('a')).to.equal(undefined);
  });

  it('works, forgetting everything, where localStorage throws (private modes, sandboxed frames)', () => {
    const proto = Storage.prototype;
    const saved = { getItem: proto.getItem, setItem: proto.setItem, removeItem: proto.removeItem };
    const refuse = () => {
      throw new DOMException('denied', 'SecurityError');
    };
    Object.assign(proto, { getItem: refuse, setItem: refuse, removeItem: refuse });
    try {
      storage.rememberCode('a', 'CODE2345');
      storage.rememberParticipant('a', 'x@example.com');
      expect(storage.storedCode('a')).to.equal(undefined);
      expect(storage.storedParticipant('a')).to.equal(undefined);
    } finally {
      Object.assign(proto, saved);
    }
  });
});

describe('code capture', () => {
  it('reads referralCode, unless the link names another campaign', () => {
    expect(codeFromUrl('?referralCode=ABC', 'c1')).to.equal('ABC');
    expect(codeFromUrl('?id=c1&referralCode=%20ABC%20', 'c1')).to.equal('ABC');
    expect(codeFromUrl('?id=c2&referralCode=ABC', 'c1')).to.equal(undefined);
    expect(codeFromUrl('?referralCode=', 'c1')).to.equal(undefined);
    expect(codeFromUrl('', 'c1')).to.equal(undefined);
  });

  it('a valid code from the link is remembered and replaces an older one', async () => {
    storage.rememberCode('c1', 'OLD23456');
    const capture = await captureCode('c1', '?referralCode=NEW23456', async () => true);
    expect(capture).to.deep.equal({ code: 'NEW23456', checked: { code: 'NEW23456', valid: true } });
    expect(storage.storedCode('c1')).to.equal('NEW23456');
  });

  it('an invalid code from the link keeps the remembered one', async () => {
    storage.rememberCode('c1', 'OLD23456');
    const capture = await captureCode('c1', '?referralCode=BAD23456', async () => false);
    expect(capture).to.deep.equal({ code: 'OLD23456', checked: { code: 'BAD23456', valid: false } });
  });

  it('without a code in the link, the remembered one is used and nothing is asked', async () => {
    storage.rememberCode('c1', 'OLD23456');
    let asked = false;
    const capture = await captureCode('c1', '', async () => (asked = true));
    expect(capture).to.deep.equal({ code: 'OLD23456' });
    expect(asked).to.equal(false);
  });

  it('with no verdict from the service, the code is used for this visit only', async () => {
    const capture = await captureCode('c1', '?referralCode=ABC23456', () => Promise.reject(networkError()));
    expect(capture).to.deep.equal({ code: 'ABC23456' });
    expect(storage.storedCode('c1')).to.equal(undefined);
  });
});

describe('share links', () => {
  const link = 'https://acme.example/join?id=c1&referralCode=AB&x=1';
  const message = 'Join & save 10% + more <now>';
  const texts = shareTexts(link, { x: `${message} {link}`, whatsapp: message, email: `Hi! {link} Bye`, emailSubject: 'For you' }, '$5');
  const targets = Object.fromEntries(shareTargets(link, texts).map((t) => [t.id, new URL(t.href)]));
  /** The link as the channel sends it: tagged with the channel, its own query kept. */
  const via = (channel: string) => `${link}&utm_source=refkit&utm_medium=${channel}`;

  it('each channel carries its own message with the link in it, intact and URL-encoded', () => {
    expect(targets.x!.origin + targets.x!.pathname).to.equal('https://x.com/intent/post');
    expect(targets.x!.searchParams.get('text')).to.equal(`${message} ${via('x')}`);
    // No {link} in the message: the link is appended.
    expect(targets.whatsapp!.searchParams.get('text')).to.equal(`${message} ${via('whatsapp')}`);
    // Facebook and LinkedIn take the link alone (their preview is the page's Open Graph).
    expect(targets.facebook!.searchParams.get('u')).to.equal(via('facebook'));
    expect(targets.linkedin!.searchParams.get('url')).to.equal(via('linkedin'));
  });

  it('writes spaces in mailto as %20 and keeps a literal +', () => {
    const mail = targets.email!;
    expect(mail.protocol).to.equal('mailto:');
    expect(mail.search).to.not.contain('+');
    const params = new URLSearchParams(mail.search.replaceAll('%20', '+'));
    expect(params.get('subject')).to.equal('For you');
    expect(params.get('body')).to.equal(`Hi! ${via('email')} Bye`);
  });

  it("without the campaign's messages, the friend gets the widget's invitation naming their reward, never the referrer's instructions", () => {
    const own = shareTexts(link, {}, '$5');
    expect(own.x).to.equal(`I think you would like this. Sign up with my link and you get $5: ${via('x')}`);
    expect(own.emailSubject).to.equal('A gift for you: $5');
    expect(shareTexts(link, {}, '').whatsapp).to.equal(`I think you would like this. Sign up with my link: ${via('whatsapp')}`);
  });

  it('withLink puts the link at each {link}, or after the text, or alone', () => {
    expect(withLink('a {link} b {link}', 'L')).to.equal('a L b L');
    expect(withLink('hello', 'L')).to.equal('hello L');
    expect(withLink('  ', 'L')).to.equal('L');
  });
});

describe('network retries', () => {
  it('retries only calls that got no answer, after each delay, then gives up', async () => {
    const waits: number[] = [];
    let calls = 0;
    const failing = withNetworkRetries(
      async () => {
        calls++;
        throw networkError();
      },
      [400, 1200],
      async (ms) => void waits.push(ms),
    );
    const err = await failing.catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ApiError);
    expect([calls, waits]).to.deep.equal([3, [400, 1200]]);
  });

  it('an HTTP answer, even an error, is final', async () => {
    let calls = 0;
    const err = await withNetworkRetries(
      async () => {
        calls++;
        throw new ApiError(500, 'internal', 'boom');
      },
      [1, 1],
      async () => {},
    ).catch((e: unknown) => e);
    expect((err as ApiError).status).to.equal(500);
    expect(calls).to.equal(1);
  });

  it('returns the first answer that arrives', async () => {
    let calls = 0;
    const value = await withNetworkRetries(
      async () => {
        if (++calls < 2) throw networkError();
        return 'ok';
      },
      [1, 1],
      async () => {},
    );
    expect([value, calls]).to.deep.equal(['ok', 2]);
  });
});

describe('failures', () => {
  const cases: [ApiError, boolean, string, RegExp][] = [
    [new ApiError(404, 'campaign_not_found', ''), true, 'not-found', /could not be found/],
    [new ApiError(409, 'campaign_paused', ''), true, 'paused', /paused/],
    [new ApiError(409, 'campaign_ended', ''), true, 'ended', /ended/],
    [new ApiError(429, 'rate_limited', '', undefined, 12), true, 'error', /wait 12 s/],
    [new ApiError(429, 'rate_limited', ''), true, 'error', /^Too many attempts\. Please try again\.$/],
    [new ApiError(403, 'forbidden_origin', ''), true, 'not-allowed', /not allowed/],
    [new ApiError(500, 'internal', ''), true, 'error', /Something went wrong/],
    [networkError(), true, 'error', /could not be reached/],
    [networkError(), false, 'offline', /offline/],
    // An HTTP answer proves a connection, whatever navigator.onLine says.
    [new ApiError(500, 'internal', ''), false, 'error', /Something went wrong/],
  ];
  for (const [err, online, state, message] of cases) {
    it(`${err.code}${online ? '' : ' while offline'} -> ${state}`, () => {
      const described = describeFailure(err, online);
      expect(described.state).to.equal(state);
      expect(described.message).to.match(message);
      expect(described.error).to.equal(err);
    });
  }

  it('anything else thrown is treated as no answer', () => {
    const described = describeFailure(new TypeError('x'), true);
    expect([described.state, described.error.code]).to.deep.equal(['error', 'network_error']);
  });
});

describe('script origin (the default api-base)', () => {
  const page = 'https://shop.example';
  it('classic script: the origin of document.currentScript', () => {
    expect(scriptOrigin({ src: 'https://refkit.example:8443/widget/referral-widget.iife.js' }, undefined, page)).to.equal('https://refkit.example:8443');
  });
  it('ES module: the origin of import.meta.url', () => {
    expect(scriptOrigin(null, 'https://refkit.example/widget/referral-widget.js', page)).to.equal('https://refkit.example');
  });
  it('an inline script or a non-http URL: the page origin', () => {
    expect(scriptOrigin({ src: '' }, undefined, page)).to.equal(page);
    expect(scriptOrigin(null, 'blob:https://x/1', page)).to.equal(page);
    expect(scriptOrigin(undefined, undefined, page)).to.equal(page);
  });
});
