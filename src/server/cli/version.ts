/** `refkit --version`: the version of the package the CLI belongs to, read from its package.json. */
import { readFileSync } from 'node:fs';

// The package's folder is three up from this module's file, in the sources (src/server/cli/) and compiled (dist/server/cli/) alike.
const PACKAGE_JSON = new URL('../../../package.json', import.meta.url);

export function packageVersion(): string {
  return (JSON.parse(readFileSync(PACKAGE_JSON, 'utf8')) as { version: string }).version;
}
