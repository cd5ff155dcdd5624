/** The slowest test files, a line each, under a title: `times` maps each file to its wall time in ms. */
export function slowestList(times: Record<string, number>, shown?: number): string;
