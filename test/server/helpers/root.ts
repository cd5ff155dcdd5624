import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository itself, also when this runs bundled from .test-build/ (whose package.json is a link). */
export const ROOT = dirname(realpathSync(fileURLToPath(new URL('../../../package.json', import.meta.url))));
