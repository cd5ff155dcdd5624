/**
 * The default `api-base`: the origin the widget script was loaded from, so that one script tag from the
 * service is all a page needs.
 *
 * - Classic script (IIFE build): `document.currentScript` names the script, but only while it runs, so
 *   the origin is captured when this module is evaluated.
 * - ES module: `currentScript` is null for modules; `import.meta.url` names the bundle. In the IIFE build
 *   the bundler replaces `import.meta` with `{}`, so `url` is undefined there and never consulted first.
 * - Neither (an inline script, a bundler that rewrote the URL): the page's own origin.
 */
export function scriptOrigin(currentScript: { src?: string } | null | undefined, moduleUrl: string | undefined, pageOrigin: string): string {
  for (const candidate of [currentScript?.src, moduleUrl]) {
    if (!candidate || !/^https?:/.test(candidate)) continue;
    try {
      return new URL(candidate).origin;
    } catch {
      // not a URL: try the next candidate
    }
  }
  return pageOrigin;
}

const moduleUrl = (import.meta as { url?: string }).url;

/**
 * The script element that loaded the widget, for its `data-*` settings (`data-cookie-domain`): the
 * current script of a classic script, or the module script whose src is this bundle.
 */
export const widgetScript: HTMLScriptElement | null =
  (document.currentScript as HTMLScriptElement | null) ??
  [...document.querySelectorAll<HTMLScriptElement>('script[src]')].find((s) => s.src === moduleUrl) ??
  null;

export const defaultApiBase = scriptOrigin(document.currentScript as HTMLScriptElement | null, moduleUrl, location.origin);
