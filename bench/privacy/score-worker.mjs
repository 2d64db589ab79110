// The scoring thread's entry (score-rows.ts): a worker thread inherits no module hooks in Node 20, so it
// registers tsx's itself before loading the TypeScript.
import { register } from 'tsx/esm/api';

register();
await import('./score-worker.ts');
