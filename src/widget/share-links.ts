/** Share targets for a link, built with URL APIs (never string-joined into HTML). */
export interface ShareTarget {
  id: 'email' | 'x' | 'facebook' | 'linkedin' | 'whatsapp';
  label: string;
  href: string;
}

function url(base: string, params: Record<string, string>): string {
  const u = new URL(base);
  for (const [k, v] of Object.entries(params)) if (v) u.searchParams.set(k, v);
  return u.href;
}

export function shareTargets(link: string, message: string): ShareTarget[] {
  const text = message ? `${message} ${link}` : link;
  // Mail clients read `+` literally, so spaces go as %20 (URLSearchParams writes them as `+`, and a
  // literal `+` as %2B, so replacing `+` touches spaces only).
  const mail = new URLSearchParams({ subject: message || 'Join me', body: text }).toString().replaceAll('+', '%20');
  return [
    { id: 'email', label: 'Email', href: `mailto:?${mail}` },
    { id: 'x', label: 'X', href: url('https://x.com/intent/post', { text: message, url: link }) },
    { id: 'facebook', label: 'Facebook', href: url('https://www.facebook.com/sharer/sharer.php', { u: link }) },
    { id: 'linkedin', label: 'LinkedIn', href: url('https://www.linkedin.com/sharing/share-offsite/', { url: link }) },
    { id: 'whatsapp', label: 'WhatsApp', href: url('https://wa.me/', { text }) },
  ];
}
