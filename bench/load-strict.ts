// What strict field validation costs the loader: a kubectl-style dump of 5,000
// nodes and 150,000 bound pods (150 and 4,500 with --quick; each pod with labels, an
// owner, tolerations, node affinity, resources and a status, as `kubectl get -o
// json` writes them) loaded with --validate=ignore and =strict in turns, one process.
// Prints the median CPU time of each (user + system) and the difference. --validator-only times just the
// undeclared-field walk (unknownFields) over every object, without parsing.
//   npx tsx bench/load-strict.ts [--quick] [--runs N] [--validator-only]

import { loadSources } from '../src/io/load.js';
import { dumpObjects } from './dump-objects.js';
import { unknownFields, type ValidationMode } from '../src/io/strict-fields.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
const nodeCount = quick ? 150 : 5000;
const podCount = quick ? 4500 : 150_000;

if (args.includes('--validator-only')) {
  const items = dumpObjects(nodeCount, podCount);
  const walks: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = cpuMs();
    let found = 0;
    for (const item of items) found += unknownFields(item.apiVersion, item.kind, item).length;
    walks.push(cpuMs() - t);
    if (found !== 0) throw new Error(`${found} undeclared fields in the generated dump`);
  }
  console.log(`${nodeCount} nodes, ${podCount} pods: unknownFields over every object, median of ${runs}: ${[...walks].sort((a, b) => a - b)[Math.floor(runs / 2)]!.toFixed(0)} CPU ms`);
  process.exit(0);
}

// kubectl's indentation; the objects themselves are not kept (a full-size dump is about 470 MB of text).
const text = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: dumpObjects(nodeCount, podCount) }, null, 4);

/** CPU milliseconds of this process (user + system): on a shared machine wall time mostly measures the share it gets. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function time(validate: ValidationMode): number {
  const t = cpuMs();
  const r = loadSources([{ name: 'dump.json', text }], { validate });
  const ms = cpuMs() - t;
  if (!r.ok) throw new Error(`the dump does not load: ${r.errors[0]?.message}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
time('ignore'); // warm-up
const times: Record<'ignore' | 'strict', number[]> = { ignore: [], strict: [] };
for (let i = 0; i < runs; i++) for (const mode of ['ignore', 'strict'] as const) times[mode].push(time(mode));
const [ignore, strict] = [median(times.ignore), median(times.strict)];
console.log(`${nodeCount} nodes, ${podCount} pods, ${(text.length / 1e6).toFixed(1)} MB of JSON, median of ${runs} runs each`);
console.log(`--validate=ignore ${ignore.toFixed(0)} CPU ms, --validate=strict ${strict.toFixed(0)} CPU ms: strict costs ${(strict - ignore).toFixed(0)} ms (${(((strict - ignore) / ignore) * 100).toFixed(1)}%); peak RSS of the process ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
