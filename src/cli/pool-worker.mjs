// The entry of every worker thread of cli/pool.ts. Node 20 does not apply
// `--import tsx` to worker threads, so the TypeScript loader is registered here
// before the task module (a .ts file) is imported; each task then runs through
// that module's default export, with the data the pool was started with.
import { register } from 'tsx/esm/api';
import Tinypool from 'tinypool';

register();
const { module, data } = Tinypool.workerData;
const run = (await import(module)).default;

export default (task) => run(task, data);
