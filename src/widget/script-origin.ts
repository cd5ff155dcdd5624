/**
 * The origin the widget script was loaded from: the default `api-base`, so that one script tag from the
 * service is all a page needs. Captured when the module is evaluated, because `document.currentScript`
 * is only set then (classic script) and `import.meta.url` names the bundle itself (module).
 */
function detect(): string {
  try {
    const current = document.currentScript as HTMLScriptElement | null;
    if (current?.src) return new URL(current.src).origin;
    // Undefined in the classic-script build, where currentScript above has answered already.
    const moduleUrl = import.meta.url as string | undefined;
    if (moduleUrl?.startsWith('http')) return new URL(moduleUrl).origin;
  } catch {
    // fall back below
  }
  return location.origin;
}

export const scriptOrigin = detect();
