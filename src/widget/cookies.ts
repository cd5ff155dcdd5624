/**
 * First-party cookies for the referral code, so that a visitor who lands on www.example.com and signs
 * up on app.example.com keeps their invitation: localStorage is per origin, a cookie with
 * `Domain=example.com` is shared by its subdomains. Set only when the page names a cookie domain.
 */
const SECONDS_PER_DAY = 24 * 60 * 60;

export function readCookie(name: string): string | undefined {
  for (const part of document.cookie.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

export function writeCookie(name: string, value: string, domain: string, days: number): void {
  const secure = location.protocol === 'https:' ? '; Secure' : '';
  document.cookie = `${name}=${encodeURIComponent(value)}; Domain=${domain}; Path=/; Max-Age=${Math.round(days * SECONDS_PER_DAY)}; SameSite=Lax${secure}`;
}

export function deleteCookie(name: string, domain: string | undefined): void {
  const scope = domain ? `; Domain=${domain}` : '';
  document.cookie = `${name}=; Path=/; Max-Age=0${scope}`;
}
