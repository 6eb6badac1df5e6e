// Entry of the search thread (search-thread.ts starts it). A worker does not inherit the parent's TypeScript loader
// (Node 20), and the thread runs the store's own TypeScript read path, so it registers tsx before loading it.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
