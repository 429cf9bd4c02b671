#!/usr/bin/env node
// Runs the TypeScript CLI through tsx so `npx berth` works without a build step:
// first as a launcher that starts berth again in a child node with a heap limit
// sized from the machine and reports, in one line, a heap that ran out
// (src/cli/launch.ts); then, in that child, berth itself.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';
register();
const { launch, launchedChild } = await import('../src/cli/launch.ts');
if (launchedChild()) await import('../src/cli/main.ts');
else launch(fileURLToPath(import.meta.url), process.argv.slice(2));
