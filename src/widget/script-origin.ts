/**
 * The default `api-base`: where the widget's script came from when a page loads it from the service
 * (one script tag is all a page needs), else the page's own origin.
 *
 * - Script tag, classic script (IIFE build): `document.currentScript` names the script, but only while
 *   it runs, so ./index.ts (that build's entry) reads it as it is evaluated and sets the default here.
 * - Script tag, ES module: `currentScript` is null for modules; `import.meta.url` names the bundle. In the
 *   IIFE build the bundler replaces `import.meta` with `{}`, so `url` is undefined there and never
 *   consulted first.
 * - The npm package (packages/widget), imported into an app's own bundle: the bundle's URL says nothing
 *   of the service (it is the app's, or its CDN's), so nothing sets the default and it is the page's
 *   origin; such pages set `api-base` unless the service answers under their origin.
 *
 * Nothing here runs as the module loads, so that the package can be imported on a server (no DOM).
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

/**
 * The script element that loaded the widget, for its `data-*` settings (`data-cookie-domain`): the
 * current script of a classic script, or the module script whose src is the bundle's URL.
 */
export function widgetScriptOf(currentScript: HTMLScriptElement | null, moduleUrl: string | undefined): HTMLScriptElement | null {
  return currentScript ?? [...document.querySelectorAll<HTMLScriptElement>('script[src]')].find((s) => s.src === moduleUrl) ?? null;
}

let scriptBase: string | undefined;

/** Called by the script-tag build's entry (./index.ts) as it runs: the origin its script came from. */
export function setDefaultApiBase(origin: string): void {
  scriptBase = origin;
}

/** The service's address for an element without `api-base` (and getPromotionCode without one). */
export function defaultApiBase(): string {
  return scriptBase ?? location.origin;
}
