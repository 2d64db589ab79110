/**
 * A test process keeps two closed in-memory stores for its next ones (src/store/pglite-spares.ts: a new store
 * costs about 1.7 s of CPU, an emptied one about 0.1 s; the suite opens hundreds), closed when its file is done.
 */
import { closeSpares, keepClosedMemoryStores } from '../../src/store/pglite-spares.ts';
import { afterTestFile } from './after-test-file.ts';

keepClosedMemoryStores(2);
afterTestFile(closeSpares, { last: true });
