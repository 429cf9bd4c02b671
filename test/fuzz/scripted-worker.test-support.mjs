// A stand-in for the CLI worker that speaks its protocol and behaves as told by the
// command: `sleep MS` answers after MS of wall time using no CPU (what a loaded machine
// does to a cheap input), `spin` burns CPU forever, `idle` never answers.
import { setTimeout } from 'node:timers';
import { parentPort } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { currentThreadId } = await import('./thread-cpu.ts');

parentPort.on('message', ({ argv }) => {
  const [command, arg] = argv;
  if (command === 'sleep') setTimeout(() => parentPort.postMessage({ code: 0, stdout: '', stderr: '' }), Number(arg));
  else if (command === 'spin') for (;;);
});
parentPort.postMessage({ ready: true, tid: currentThreadId() });
