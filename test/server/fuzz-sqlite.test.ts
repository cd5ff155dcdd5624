/** The property-based fuzz tests (helpers/fuzz.ts) on SQLite. */
import { fuzzSuite } from './helpers/fuzz.js';

fuzzSuite('sqlite');
