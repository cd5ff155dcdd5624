export async function runGrowth(..._a: unknown[]) {}
