// Writes the cluster dump behind `berth check`'s runtime figure (bench/check-cluster.ts
// describes it): 200 nodes, or the node count given.
// Usage: npx tsx bench/check-200.ts > /tmp/check-200.yaml && time node bin/berth.js check --cluster /tmp/check-200.yaml -o json > /tmp/check-200.json
// `npx tsx bench/check-200.ts 1000` writes the same cluster at 1,000 nodes (the DaemonSets grow with it);
// `npx tsx bench/check-200.ts 5000` the 5,000-node one, with bulk Deployments up to 100,000+ pods (CHECK_SIZES).
// With `--kubectl`, the same objects as a real cluster's `kubectl get -o yaml` writes them (kubectl-layout.ts).

import { CHECK_SIZES, checkClusterDump } from './check-cluster.js';
import { writeKubectlDump } from './kubectl-layout.js';

const args = process.argv.slice(2);
const nodes = Number(args.find((a) => !a.startsWith('--')) ?? 200);
const size = Object.values(CHECK_SIZES).find((s) => s.nodes === nodes);
const dump = checkClusterDump(nodes, size?.bulkPods ?? 0);
if (args.includes('--kubectl')) writeKubectlDump(dump, (text) => process.stdout.write(text));
else process.stdout.write(dump);
