// The berth command line as a function: builds the commander program, runs one
// argument vector and maps every outcome to an exit code (0 done, 1 findings,
// 2 bad input or usage). main.ts calls it for the process; tests and the bad-input
// fuzzer call it in-process.

import { Command, CommanderError } from 'commander';
import { registerCheck } from './check.js';
import { registerController } from './controller.js';
import { registerExplain } from './explain.js';
import { registerPreview } from './preview.js';
import { registerProvision } from './provision.js';
import { registerSchedule } from './schedule.js';
import { registerDeschedule } from './deschedule.js';
import { registerServe } from './serve.js';
import { registerSimulate } from './simulate.js';
import { registerSweep } from './sweep.js';
import { registerWhatIf } from './what-if.js';
import { CliError } from './common.js';
import { boundMessage } from '../io/diagnostics.js';

function buildProgram(): Command {
  const program = new Command('berth')
    .description('Kubernetes scheduling and node-provisioning engine with kube-scheduler semantics')
    .version('0.1.0')
    .exitOverride()
    // Options after a command are that command's: `sweep reduce --out` is reduce's, not sweep's.
    .enablePositionalOptions()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  registerSchedule(program);
  registerExplain(program);
  registerProvision(program);
  registerSimulate(program);
  registerWhatIf(program);
  registerCheck(program);
  registerSweep(program);
  registerDeschedule(program);
  registerPreview(program);
  registerServe(program);
  registerController(program);
  return program;
}

/** Runs `argv` (node's form: [node, script, ...args]) and resolves to the exit code; commands report findings through process.exitCode. */
export async function runCli(argv: readonly string[]): Promise<number> {
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    await buildProgram().parseAsync([...argv]);
    return Number(process.exitCode ?? 0);
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    if (e instanceof CliError) {
      process.stderr.write(`${e.message}\n`);
      return e.exitCode;
    }
    // Never a stack trace: an unexpected failure is reported in one line.
    process.stderr.write(`berth: internal error: ${boundMessage(e instanceof Error ? e.message : String(e))}\n`);
    return 2;
  } finally {
    process.exitCode = previous;
  }
}
