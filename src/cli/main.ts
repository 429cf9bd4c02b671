// berth's process entry point: runs the command line and sets the exit code.

import { usePlainEnvironment } from './plain-env.js';
import { runCli } from './program.js';

usePlainEnvironment();
process.exitCode = await runCli(process.argv);
