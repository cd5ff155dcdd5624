export async function runProfile(..._a: unknown[]) {}
