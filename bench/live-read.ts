// What reading a large cluster from its API server costs berth (`--kubeconfig`):
// a list server in a child process (so its JSON encoding is not counted) serves
// 5,000 nodes and 100,000 pods (500 / 10,000 with --quick) in pages of 500, as an
// API server does; this process lists them (live/snapshot.ts) and loads them as
// `check --kubeconfig` does (straight from the parsed JSON, cli/live-input.ts).
// Prints wall and CPU seconds of each phase and the peak RSS of this process.
// --api-shaped serves the objects as a real API server lists them (managed fields,
// defaults, conditions: dump-objects.ts's apiServerNode/apiServerPod). With
// --kubeconfig FILE it reads that cluster instead (bench/live-read-kwok.ts).
//   npx tsx bench/live-read.ts [--quick] [--api-shaped] | --kubeconfig FILE

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { snapshotSource } from '../src/cli/live-input.js';
import { loadSources } from '../src/io/load.js';
import { ListServer } from '../src/live/list-server.test-support.js';
import { readSnapshot } from '../src/live/snapshot.js';
import { Kube } from '../src/live/kube.js';
import { loopbackConfig } from '../src/live/fake-apiserver.test-support.js';
import { apiServerNode, apiServerPod, dumpNode, dumpPod } from './dump-objects.js';

const args = process.argv.slice(2);

if (args[0] === '--serve') {
  const [nodes, pods] = [Number(args[1]), Number(args[2])];
  const [node, pod] = args.includes('--api-shaped') ? [apiServerNode, apiServerPod] : [dumpNode, dumpPod];
  const server = new ListServer(
    new Map([
      ['/api/v1/nodes', { rv: '1', items: Array.from({ length: nodes }, (_, i) => node(i)) }],
      ['/api/v1/pods', { rv: '2', items: Array.from({ length: pods }, (_, i) => pod(i, nodes)) }],
    ]),
  );
  const kube = await server.kube();
  process.send!(new URL(kube.config.getCurrentCluster()!.server).port);
} else {
  const quick = args.includes('--quick');
  const kubeconfig = args.includes('--kubeconfig') ? args[args.indexOf('--kubeconfig') + 1] : undefined;
  const [nodes, pods] = quick ? [500, 10_000] : [5000, 100_000];
  const child = kubeconfig ? undefined : fork(fileURLToPath(import.meta.url), ['--serve', String(nodes), String(pods), ...args.filter((a) => a === '--api-shaped')], { execArgv: ['--import', 'tsx'] });
  const kube = child ? new Kube(loopbackConfig(await new Promise<number>((resolve) => child.once('message', (m) => resolve(Number(m)))))) : Kube.fromFile(kubeconfig);
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1e6;
  };
  const phase = async <T>(name: string, f: () => Promise<T> | T): Promise<T> => {
    const [w, c] = [performance.now(), cpu()];
    const out = await f();
    console.log(`${name}: ${((performance.now() - w) / 1000).toFixed(1)} s wall, ${(cpu() - c).toFixed(1)} CPU s`);
    return out;
  };
  console.log(kubeconfig ? `the cluster of ${kubeconfig}, pages of 500` : `${nodes} nodes, ${pods} pods${args.includes('--api-shaped') ? ' shaped as an API server lists them' : ''}, pages of 500`);
  const snap = await phase('list (paged GETs, JSON parse)', () => readSnapshot(kube));
  const loaded = await phase('load (validate, compile)', () => loadSources([snapshotSource(snap, '<live>', 'json', kubeconfig ? 'the API server' : 'the list server', 'strict')]));
  if (!loaded.ok) throw new Error(`the snapshot does not load: ${loaded.errors[0]?.message}`);
  console.log(`read ${snap.list.items.length} objects; peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
  child?.kill();
}
