/**
 * Joining a campaign: addParticipant (with or without a referrer, with a secret key or from a browser)
 * and following an emailed link (verifyEmail).
 *
 * What a browser learns is limited to what it proves (./proof.ts): signing up an email that is already
 * a participant answers 200 with only the shared fields, unless the request proves it is that
 * participant; with SMTP configured, the participant is then emailed a link that proves it. A referral
 * is never re-assigned: an existing participant keeps their referrer.
 *
 * With `requireEmailConfirmation`, a browser sign-up waits as a pending sign-up (no participant, no
 * code, no referral, no event) until the emailed link is followed; the referrer is the one the link
 * was sent for, so whoever signs someone else's address up first gains nothing from it.
 */
import { joinWaitlist } from '../../engagement/domain/waitlist.js';
import { waitlistOf } from '../../engagement/domain/waitlist-settings.js';
import type { AddParticipantBody, Utm } from '../../../api/schemas.js';
import { dropUnlinkedPendingSignup } from '../store/email-link-writes.js';
import { SignupFactsChanged, type SignupFacts } from '../store/signup-reads.js';
import type { CodeOwner } from '../../store/caches.js';
import type { CampaignRow, NewSignup, ParticipantRow, Store } from '../../store/store.js';
import { assertOpen, findCampaign, ownCampaign } from '../../campaigns/domain/campaigns.js';
import { CODE_ATTEMPTS, newReferralCode } from './referral-codes.js';
import type { Actor, Ctx } from '../../kernel/context.js';
import { normalizeEmail, emailKey } from '../../kernel/email.js';
import { consumeEmailLink, linkNotFound, mailUnavailable, sendEmailLink, type LinkDelivery } from './email-links.js';
import { AppError } from '../../kernel/errors.js';
import { fraudCounts, scoreSignup } from './fraud.js';
import { networkOf } from '../../kernel/network.js';
import { inTurn, networkTurn } from './network-turns.js';
import { storableIp } from '../../accounts/domain/account-settings.js';
import { report } from '../../kernel/metrics.js';
import { normalizeCode } from './participants.js';
import type { Visibility } from './present.js';
import { assertSignature, issueToken, newToken, proves, reissueToken, type Proof } from './proof.js';
import { prepareEvent } from '../../webhooks/domain/webhook-events.js';
import { signupEmails } from '../../emails/domain/lifecycle-emails.js';
import type { Locale } from '../../../api/locales.js';
import { blocked as blockedError, blockedSignup } from '../../fraud/domain/blocklists.js';
import { holdForReview } from '../../fraud/domain/fraud-holds.js';
import { checkCaptcha } from '../../fraud/domain/captcha.js';

/** How a signup arrived: with a secret key (the product's backend) or keyless (a browser). */
export interface SignupSource {
  source: 'api' | 'browser';
  ip: string | null;
  /** What a browser brought to prove who it is; ignored for API sign-ups, which see everything. */
  proof?: Proof;
  /** The account of the secret key, for API signups: a key acts only on its own account's campaigns. */
  actor?: Actor;
  /** Asked just before this sign-up creates someone (../../http/rate-limit.ts signupAdmission). */
  admit?: Admission | undefined;
  /** The language of a new participant's emails (the Refkit-Locale header; English when absent). */
  locale?: Locale | undefined;
  /** The value of the header TRUSTED_COUNTRY_HEADER names, when it does (blocklists by country). */
  countryHeader?: string | undefined;
  /** Its CAPTCHA was checked (../../fraud/domain/captcha.ts): a sign-up decided again does not spend the token twice. */
  captchaSolved?: boolean;
}

/**
 * Lets a sign-up that is about to create someone (a participant, or a sign-up pending confirmation) go
 * ahead, or throws (429 past a limit). Resolves to what gives its place back if it created no one after
 * all. Asked only then, so calls that create no one (an email that joined already, an unknown referrer)
 * never use up a limit on sign-ups.
 */
export type Admission = () => Promise<() => Promise<void>>;

/** `created` a participant now; found an `existing` one; or recorded a sign-up `pending` confirmation. */
export type SignupOutcome = 'created' | 'existing' | 'pending';

export interface SignupResult {
  outcome: SignupOutcome;
  campaign: CampaignRow;
  /** The email as the service keeps it (trimmed, lower-cased). */
  email: string;
  /** Absent only for a pending sign-up, which is no participant yet. */
  participant?: ParticipantRow;
  /** Which fields of the participant the caller may read. */
  visibility: Visibility;
  /** A participant token newly issued to this browser. */
  token?: string;
  /** An email link sent (or held back by the resend throttle) by this call. */
  emailLink?: LinkDelivery;
}

export function addParticipant(ctx: Ctx, input: AddParticipantBody, how: SignupSource): Promise<SignupResult> {
  // A sign-up the limits admit reads its facts: on assumed ones it could hold a place and then find it
  // creates no one, and a place held meanwhile refuses another call that would create someone.
  const signUpNow = () => signUp(ctx, input, how, how.admit === undefined);
  // A browser's sign-up is scored from its network: one of a network at a time (./network-turns.ts).
  return how.source === 'browser' && how.ip ? inTurn(networkTurn(input.id, networkOf(how.ip)), signUpNow) : signUpNow();
}

/**
 * `assume`: the store may assume the usual facts instead of reading them (../store/signup-reads.ts);
 * when the write finds them untrue, the sign-up is decided again on read ones.
 */
async function signUp(ctx: Ctx, input: AddParticipantBody, how: SignupSource, assume: boolean): Promise<SignupResult> {
  const email = normalizeEmail(input.email);
  const referredByEmail = input.referredByEmail ? normalizeEmail(input.referredByEmail, 'referredByEmail') : undefined;
  const referredByCode = input.referredByCode ? normalizeCode(input.referredByCode) : undefined;
  if (referredByEmail === email) throw new AppError(409, 'self_referral', 'A participant cannot refer themselves', 'referredByEmail');

  const campaign = how.actor ? await ownCampaign(ctx, how.actor, input.id) : await findCampaign(ctx, input.id);
  assertOpen(campaign, ctx.now());
  const requestIp = how.ip;
  // An account that keeps no IPs stores none, and scores the sign-up without one (docs/privacy.md#retention).
  how = { ...how, ip: await storableIp(ctx, campaign.account_id, how.ip) };
  // A browser's sign-up to a campaign with a CAPTCHA shows it solved, before anything is written (and
  // before the blocklists answer: a bot does not get to probe them).
  if (how.source === 'browser' && !how.captchaSolved) how = { ...how, captchaSolved: await checkCaptcha(ctx, campaign, input.captchaToken, how.ip) };
  // The owner's blocklists, on the address the request came from (checking is not keeping): a browser is
  // refused without a word of which rule; a backend's sign-up is held.
  const blocked = await blockedSignup(ctx, campaign, { email, ip: requestIp, countryHeader: how.countryHeader });
  if (blocked !== undefined && how.source === 'browser') throw blockedError();
  const browser = how.source === 'browser';
  const proof = how.proof ?? {};
  // A host's signature vouches for the address as much as a followed confirmation link does.
  const vouched = !browser || proof.emailSignature !== undefined;
  const pending = campaign.require_email_confirmation === 1 && !vouched;

  // A browser's sign-up is scored from its network (./fraud.ts): on PostgreSQL its counts come with these reads.
  const net = browser && how.ip !== null ? networkOf(how.ip) : null;
  const facts = await ctx.store.signupFacts(
    {
      campaignId: campaign.id,
      email,
      ...(referredByCode !== undefined && { referredByCode }),
      ...(referredByEmail !== undefined && { referredByEmail }),
      ...(net !== null && { fromNet: fraudCounts(net, ctx.now()) }),
    },
    // Only a sign-up that writes its participant now can check what it assumed; and a host's signature
    // is judged only for a new email (an existing participant's answer depends on what it proves).
    // A waitlist sign-up is a transaction (its place is numbered in it), where a failed assumption would abort it.
    assume && !pending && proof.emailSignature === undefined && waitlistOf(campaign) === null && blocked === undefined,
  );
  const { existing } = facts;
  if (existing) return browser ? existingToBrowser(ctx, campaign, existing, proof) : { outcome: 'existing', campaign, email, participant: existing, visibility: 'owner' };

  // An earlier code of a referrer who chose a vanity code still names them (the store's codeOwner reads the
  // aliases on a miss): asked only when no current code matched, so a sign-up through a current code reads nothing more.
  if (referredByCode !== undefined && !facts.byCode) {
    const holder = await ctx.store.codeOwner(campaign.id, referredByCode);
    const current = holder && (await ctx.store.findParticipant(holder.id));
    if (current && current.code !== referredByCode) return signUp(ctx, { ...input, referredByCode: current.code }, how, assume);
  }
  const referrer = referrerOf(facts, referredByCode, referredByEmail);
  if (browser && proof.emailSignature !== undefined) assertSignature(campaign, email, proof.emailSignature);

  if (pending) {
    if (!ctx.mailer) throw mailUnavailable();
    const release = await how.admit?.();
    const now = ctx.now();
    await ctx.store.upsertPendingSignup({
      campaign_id: campaign.id,
      email,
      first_name: input.firstName?.trim() || null,
      last_name: input.lastName?.trim() || null,
      signup_ip: how.ip,
      created_on: now,
      updated_on: now,
    });
    let emailLink: LinkDelivery;
    try {
      emailLink = await sendEmailLink(ctx, campaign, email, 'confirm', referrer?.id ?? null);
    } catch (err) {
      // Its link was not sent: a pending sign-up nothing can confirm is no one.
      await dropUnlinkedPendingSignup(ctx.store, campaign.id, email, now);
      await release?.();
      throw err;
    }
    return { outcome: 'pending', campaign, email, visibility: 'public', emailLink };
  }

  const release = await how.admit?.();
  let created: Awaited<ReturnType<typeof createParticipant>>;
  try {
    created = await createParticipant(
      ctx,
      campaign,
      { email, firstName: input.firstName, lastName: input.lastName, referrer, fromNet: facts.fromNet, assumed: facts.assumed, channel: channelOf(input.utm), blocked },
      how,
    );
  } catch (err) {
    await release?.();
    // What was assumed is not so (the email is taken, say): nothing was written; decide on read facts.
    if (err instanceof SignupFactsChanged) return signUp(ctx, input, how, false);
    throw err;
  }
  // The same email joined concurrently: answer as the serial order "theirs first" would.
  if (!created) {
    await release?.();
    return signUp(ctx, input, how, false);
  }
  return { outcome: 'created', campaign, email, participant: created.participant, visibility: browser ? 'self' : 'owner', token: created.token };
}

/** A browser signs up an email that is a participant already: it reads what it proves. */
async function existingToBrowser(ctx: Ctx, campaign: CampaignRow, participant: ParticipantRow, proof: Proof): Promise<SignupResult> {
  if (await proves(ctx, campaign, participant, proof)) {
    // A browser proven by the host's signature is given a token, so later visits need no signature.
    const token = proof.emailSignature !== undefined ? await issueToken(ctx.store, participant.id, ctx.now()) : undefined;
    return { outcome: 'existing', campaign, email: participant.email, participant, visibility: 'self', token };
  }
  const emailLink = ctx.mailer && proof.sendLink ? await sendEmailLink(ctx, campaign, participant.email, 'login', null) : undefined;
  return { outcome: 'existing', campaign, email: participant.email, participant, visibility: 'public', emailLink };
}

/**
 * Follows an emailed link: confirms a pending sign-up (creating the participant, with the referrer the
 * link was sent for) or proves an existing participant. The browser gets a participant token either way;
 * an existing participant's earlier tokens end, so that the mailbox's owner can take the address back
 * from whoever signed it up first without double opt-in (and so its token).
 */
export async function verifyEmail(ctx: Ctx, campaignId: string, code: string, ip: string | null, locale?: Locale): Promise<SignupResult> {
  const campaign = await findCampaign(ctx, campaignId);
  // Confirming is joining: a paused or ended campaign takes no one, and the link stays usable for later.
  const link = await consumeEmailLink(ctx, campaign.id, code, (l) => l.purpose === 'confirm' && assertOpen(campaign, ctx.now()));
  const signedIn = async (participant: ParticipantRow): Promise<SignupResult> => {
    const token = await reissueToken(ctx, participant.id);
    return { outcome: 'existing', campaign, email: participant.email, participant, visibility: 'self', token };
  };
  const existing = await ctx.store.findParticipantByEmail(campaign.id, link.email);
  if (existing) return signedIn(existing);
  const pending = await ctx.store.findPendingSignup(campaign.id, link.email);
  if (link.purpose !== 'confirm' || !pending) throw linkNotFound();
  const referrer = link.referred_by_id === null ? undefined : await ctx.store.findParticipant(link.referred_by_id);
  const created = await createParticipant(
    ctx,
    campaign,
    { email: link.email, firstName: pending.first_name ?? undefined, lastName: pending.last_name ?? undefined, referrer },
    // Scored from where the sign-up was made, not from where the email was opened.
    { source: 'browser', ip: await storableIp(ctx, campaign.account_id, pending.signup_ip ?? ip), locale },
    (tx) => tx.deletePendingSignup(campaign.id, link.email),
  );
  if (!created) return signedIn((await ctx.store.findParticipantByEmail(campaign.id, link.email))!);
  return { outcome: 'created', campaign, email: link.email, participant: created.participant, visibility: 'self', token: created.token };
}

interface Person {
  email: string;
  firstName?: string | undefined;
  lastName?: string | undefined;
  referrer: CodeOwner | undefined;
  /** Fraud scoring's counts, when they were read (or assumed) with the sign-up's other facts (./fraud.ts scoreSignup). */
  fromNet?: { referees: number; signups: number } | undefined;
  /** Set when the facts were assumed: the write checks them (../store/signup-reads.ts). */
  assumed?: SignupFacts['assumed'];
  /** The utm_* of the page they signed up on. */
  channel?: Utm | undefined;
  /** The blocklist rule that matched a keyed sign-up (../../fraud/domain/blocklists.ts): it joins held for review. */
  blocked?: string | undefined;
}

/** The utm_* given, trimmed; undefined when none is left (no row is written for a sign-up without them). */
function channelOf(utm: Utm | undefined): Utm | undefined {
  if (!utm) return undefined;
  const kept = Object.entries(utm).flatMap(([k, v]) => (typeof v === 'string' && v.trim() !== '' ? [[k, v.trim()]] : []));
  return kept.length > 0 ? (Object.fromEntries(kept) as Utm) : undefined;
}

/**
 * Inserts a participant with its referral count, fraud verdict, created event and (for a browser) a
 * participant token, all at once (Store.insertSignup); undefined when the email joined concurrently.
 */
async function createParticipant(
  ctx: Ctx,
  campaign: CampaignRow,
  person: Person,
  how: SignupSource,
  alsoInTransaction?: (tx: Store) => Promise<void>,
): Promise<{ participant: ParticipantRow; token?: string } | undefined> {
  const { email, referrer } = person;
  const browser = how.source === 'browser';
  const net = how.ip === null ? null : networkOf(how.ip);
  const verdict = browser ? await scoreSignup(ctx, { campaignId: campaign.id, email, net, referrer }, person.fromNet) : undefined;

  for (let attempt = 0; attempt < CODE_ATTEMPTS; attempt++) {
    const now = ctx.now();
    const token = browser ? newToken() : undefined;
    const event = await prepareEvent(ctx.store, referrer ? 'referee_added' : 'referrer_added', campaign, now);
    const emails = signupEmails(ctx.store, campaign, referrer?.id ?? null, now);
    const signup: NewSignup = {
      participant: {
        campaign_id: campaign.id,
        email,
        email_key: emailKey(email),
        first_name: person.firstName?.trim() || null,
        last_name: person.lastName?.trim() || null,
        code: newReferralCode(),
        referred_by_id: referrer?.id ?? null,
        referred_by_code: referrer?.code ?? null,
        created_on: now,
        updated_on: now,
        signup_source: how.source,
        signup_ip: how.ip,
        signup_net: net,
        fraud_score: verdict?.level ?? '',
        approval: verdict?.level === 'high' || person.blocked !== undefined ? 0 : 1,
        locale: how.locale ?? 'en',
      },
      // A squatting verdict holds back the earlier referees of the group with this one.
      ...(verdict?.squat && { hold: verdict.squat }),
      ...(event && { event }),
      ...(emails && { emails }),
      ...(token && { tokenHash: token.hash }),
      ...(person.channel && { channel: person.channel }),
      ...(person.assumed && { assumed: person.assumed }),
    };
    const waitlist = waitlistOf(campaign) !== null;
    const { blocked } = person;
    const participant =
      alsoInTransaction || waitlist || blocked !== undefined
        ? await ctx.store.transaction(async (tx) => {
            const inserted = await tx.insertSignup(signup);
            if (inserted && waitlist) await joinWaitlist(tx, campaign, inserted);
            // Its reason is written with it: a participant held by a blocklist is never held without one.
            if (inserted && blocked !== undefined) await holdForReview({ ...ctx, store: tx }, inserted, { kind: 'blocklist', detail: blocked });
            if (inserted) await alsoInTransaction?.(tx);
            return inserted;
          })
        : await ctx.store.insertSignup(signup);
    if (participant) {
      report(ctx.metrics, ctx.store, (m) => m.signedUp(campaign.id, participant.approval === 0));
      // The dispatcher is woken only when it has something to send.
      if (signup.event || signup.emails) ctx.onEventsCommitted?.();
      return token ? { participant, token: token.token } : { participant };
    }
    // Nothing inserted: either the same email joined concurrently, or the code was taken (try another).
    if (await ctx.store.findParticipantByEmail(campaign.id, email)) return undefined;
  }
  throw new Error('Could not allocate a unique referral code');
}

/** The referrer named by code or email (both must name the same one), as read with the sign-up. */
function referrerOf(facts: SignupFacts, code?: string, email?: string): CodeOwner | undefined {
  if (code === undefined && email === undefined) return undefined;
  const { byCode, byEmail } = facts;
  const referrer = byCode ?? byEmail;
  if (!referrer || (byCode && byEmail && byCode.id !== byEmail.id)) {
    const field = code !== undefined ? 'referredByCode' : 'referredByEmail';
    throw new AppError(404, 'referrer_not_found', 'No participant of this campaign has this referral code or email', field);
  }
  return referrer;
}
