/** The slowest test files as `npm test` and the test reporter print them: `times` maps each file to its wall time in ms. */
export function slowestList(times, shown = 10) {
  const entries = Object.entries(times);
  const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
  const slowest = entries.sort((a, b) => b[1] - a[1]).slice(0, shown);
  const title = slowest.length === entries.length ? `The ${entries.length} test files, slowest first` : `The ${slowest.length} slowest of ${entries.length} test files`;
  return [`${title} (each in its own process; wall time):`, ...slowest.map(([file, ms]) => `  ${seconds(ms).padStart(8)}  ${file}`)].join('\n');
}
