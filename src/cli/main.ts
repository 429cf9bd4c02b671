// berth command line: one file per command; this one wires them into commander
// and maps failures to exit codes (0 done, 1 findings, 2 bad input or usage).

import { Command, CommanderError } from 'commander';
import { registerController } from './controller.js';
import { registerExplain } from './explain.js';
import { registerProvision } from './provision.js';
import { registerSchedule } from './schedule.js';
import { registerServe } from './serve.js';
import { registerSimulate } from './simulate.js';
import { CliError } from './common.js';

const program = new Command('berth')
  .description('Kubernetes scheduling and node-provisioning engine with kube-scheduler semantics')
  .version('0.1.0')
  .exitOverride()
  .configureOutput({ writeErr: (s) => process.stderr.write(s) });

registerSchedule(program);
registerExplain(program);
registerProvision(program);
registerSimulate(program);
registerServe(program);
registerController(program);

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    process.exitCode = e.exitCode === 0 ? 0 : 2;
  } else if (e instanceof CliError) {
    process.stderr.write(`${e.message}\n`);
    process.exitCode = e.exitCode;
  } else {
    // Never a stack trace: an unexpected failure is reported in one line.
    process.stderr.write(`berth: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  }
}
