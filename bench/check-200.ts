// Writes the cluster dump behind `berth check`'s runtime figure (bench/check-cluster.ts
// describes it): 200 nodes, or the node count given.
// Usage: npx tsx bench/check-200.ts > /tmp/check-200.yaml && time node bin/berth.js check --cluster /tmp/check-200.yaml -o json > /tmp/check-200.json
// `npx tsx bench/check-200.ts 1000` writes the same cluster at 1,000 nodes (the DaemonSets grow with it).

import { checkClusterDump } from './check-cluster.js';

process.stdout.write(checkClusterDump(Number(process.argv[2] ?? 200)));
