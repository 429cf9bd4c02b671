// Node 20 does not apply tsx's loader (from --import) to a worker's entry file:
// this plain ESM entry registers it, then loads the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./cli-worker.ts');
