// A worker thread of `berth what-if --jobs N`: reads the command's inputs once (the
// main thread has validated them), then simulates the variants it is given by index.

import type { VariantResult } from '../sim/policy-variants.js';
import { loadWhatIf, runWhatIfVariants, type WhatIfRun, type WhatIfWorkerData } from './what-if.js';

let loaded: Promise<WhatIfRun> | undefined;

export default async function runWhatIfVariant(index: number, data: WhatIfWorkerData): Promise<VariantResult> {
  const run = await (loaded ??= loadWhatIf(data.file, data.opts));
  return runWhatIfVariants(run, [index], data.opts)[0]!;
}
