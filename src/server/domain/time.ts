/** Times leave as ISO 8601 in UTC (`Z`), the interface's date-time. */
export const iso = (ms: number) => new Date(ms).toISOString();

export const DAY_MS = 24 * 60 * 60 * 1000;
