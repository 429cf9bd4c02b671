// berth's process entry point: runs the command line and sets the exit code.

import { runCli } from './program.js';

process.exitCode = await runCli(process.argv);
