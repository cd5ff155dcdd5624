/**
 * What the widget remembers in localStorage, per campaign: the referral code a visitor arrived with
 * (90 days, so it survives browsing the site before signing up) and who signed up on this browser.
 * Storage can be unavailable (private modes, sandboxed iframes); every access tolerates that.
 */
export const CODE_TTL_MS = 90 * 24 * 60 * 60 * 1000;

const codeKey = (campaignId: string) => `refkit:${campaignId}:code`;
const participantKey = (campaignId: string) => `refkit:${campaignId}:email`;

function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}
function write(key: string, value: string | null): void {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    // Not remembering is the only consequence.
  }
}

export function rememberCode(campaignId: string, code: string, now = Date.now()): void {
  write(codeKey(campaignId), JSON.stringify({ code, expires: now + CODE_TTL_MS }));
}

export function storedCode(campaignId: string, now = Date.now()): string | undefined {
  const raw = read(codeKey(campaignId));
  if (!raw) return undefined;
  try {
    const { code, expires } = JSON.parse(raw) as { code?: unknown; expires?: unknown };
    if (typeof code === 'string' && typeof expires === 'number' && expires > now) return code;
  } catch {
    // fall through: a damaged entry is dropped
  }
  write(codeKey(campaignId), null);
  return undefined;
}

export function forgetCode(campaignId: string): void {
  write(codeKey(campaignId), null);
}

export function rememberParticipant(campaignId: string, email: string): void {
  write(participantKey(campaignId), email);
}

export function storedParticipant(campaignId: string): string | undefined {
  return read(participantKey(campaignId)) ?? undefined;
}

export function forgetParticipant(campaignId: string): void {
  write(participantKey(campaignId), null);
}
