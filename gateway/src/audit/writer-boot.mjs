// The writer thread's entry: a worker does not inherit the parent's TypeScript loader (Node 20), so it registers one.
import { register } from 'tsx/esm/api';

register();
await import('./writer-worker.ts');
