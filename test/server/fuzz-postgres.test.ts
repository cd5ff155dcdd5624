/** The property-based fuzz tests (helpers/fuzz.ts) on PostgreSQL. */
import { fuzzSuite } from './helpers/fuzz.js';

fuzzSuite('postgres');
