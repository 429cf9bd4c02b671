// Karpenter's disruption controller and berth's, command by command, over a whole
// consolidation run: the cluster of bench/consolidation-500.ts (500 nodes, or the
// same mix at --nodes N: Karpenter's side takes minutes per step at 500) is asked
// of both for the first command at the same state; berth's is then applied as the
// bench applies it (candidates gone, replacements launched, displaced pods bound
// where berth's scheduler put them) and both are asked again, until neither proposes
// anything. A step counts as agreeing when berth's command is one Karpenter gives
// (up to 64 more asks for map-order ties, as disruption-run.ts does), with nodes
// that are alike (LockstepCluster.signature) counted as the same node, or when the
// difference is only Karpenter's order among candidates of equal savings ratio (see
// the step loop). Usage:
//   tsx conformance/disruption-lockstep.ts [--nodes N] [--spot-to-spot] [--steps N] [--oracle PATH]
// Exit 1 on a disagreement or an error.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { savingsRatio } from '../src/disruption/candidates.js';
import { consolidationCandidates, replacementName, type Decision } from '../src/disruption/consolidate.js';
import { nextDisruption } from '../src/disruption/disrupt.js';
import { catalogPrices } from '../src/disruption/pricing.js';
import { compileNodePool, DEFAULT_EXPIRE_AFTER } from '../src/model/nodepool.js';
import { benchCluster, benchNodePool, benchPodManifest } from '../bench/consolidation-500-cluster.js';
import { berthInput, compareWithKarpenter, describe, normalize, type Command, type OracleResult } from './disruption-run.js';
import { karpenterNode, NOW, podObject, type DisruptionCase } from './disruption-gen.js';
import { INSTANCE_TYPES } from './karpenter-berth.js';
import type { Obj } from './karpenter-gen.js';
import { OracleClient } from './oracle-client.js';

const here = dirname(fileURLToPath(import.meta.url));
const MINUTE = 60_000;

/** The NodePool as the API server stores it: the CRD's defaults written out (Karpenter hashes them). */
function poolObject(): Obj {
  const m = benchNodePool();
  return {
    apiVersion: 'karpenter.sh/v1',
    kind: 'NodePool',
    metadata: m.metadata,
    spec: {
      template: { spec: { ...m.spec.template.spec, expireAfter: DEFAULT_EXPIRE_AFTER } },
      disruption: { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '0s', ...m.spec.disruption },
    },
  };
}

/** The cluster as objects both sides read, with a lookup of each node's and pod's object for the updates. */
class LockstepCluster {
  readonly pool = poolObject();
  private readonly compiled = compileNodePool(this.pool as never);
  private readonly nodes = new Map<string, { node: Obj; claim: Obj }>();
  private readonly pods = new Map<string, Obj>();
  private launched = 0;

  constructor(size: number, readonly spotToSpot: boolean) {
    const shape = benchCluster(size);
    shape.nodes.forEach((n, i) => this.addNode(n.name, n.instanceType, n.zone, n.capacityType, NOW - 2 * 60 * MINUTE + i * 1000));
    for (const p of shape.pods) {
      const { labels, spec } = benchPodManifest(p);
      this.pods.set(`default/${p.name}`, podObject(p.name, 'default', p.node, labels, spec as unknown as Obj, undefined, {}));
    }
  }

  private addNode(name: string, instanceType: string, zone: string, capacityType: string, createdMs: number): void {
    const it = INSTANCE_TYPES.find((t) => t.name === instanceType)!;
    this.nodes.set(name, karpenterNode(name, this.compiled, it, zone, capacityType, createdMs, { hash: this.compiled.hash, lastPodEventMs: createdMs + MINUTE }));
  }

  /**
   * What makes a node the node it is here: type, capacity type, zone and its pods'
   * requests and kinds. Nodes alike in these can be swapped without changing the
   * cluster, so Karpenter's order among them (Go map order) is a coin toss: with
   * dozens of tied nodes 64 asks do not cover the choices, so commands are compared
   * on their nodes' signatures.
   */
  signature(node: string): string {
    const labels = ((this.nodes.get(node)!.node['metadata'] as Obj)['labels'] ?? {}) as Record<string, string>;
    const pods = [...this.pods.values()].filter((p) => (p['spec'] as Obj)['nodeName'] === node).map((p) => `${((p['metadata'] as Obj)['labels'] as Record<string, string>)['app']}:${JSON.stringify(((p['spec'] as Obj)['containers'] as Obj[]).map((c) => c['resources']))}`);
    return [labels['node.kubernetes.io/instance-type'], labels['karpenter.sh/capacity-type'], labels['topology.kubernetes.io/zone'], ...pods.sort()].join(' ');
  }

  get size(): number {
    return this.nodes.size;
  }

  asCase(step: number): DisruptionCase {
    const nodes = [...this.nodes.values()];
    return { id: `lockstep-${step}`, now: new Date(NOW).toISOString(), nodePools: [this.pool], nodeClaims: nodes.map((n) => n.claim), nodes: nodes.map((n) => n.node), pods: [...this.pods.values()], pdbs: [], daemonSets: [], ...(this.spotToSpot ? { spotToSpot: true } : {}) };
  }

  /** The case with every node but `keep` marked do-not-disrupt: only those are Karpenter's candidates. */
  withCandidatesOnly(c: DisruptionCase, keep: ReadonlySet<string>): DisruptionCase {
    const mark = (n: Obj): Obj => {
      const meta = n['metadata'] as Obj;
      return keep.has(meta['name'] as string) ? n : { ...n, metadata: { ...meta, annotations: { ...(meta['annotations'] as Obj), 'karpenter.sh/do-not-disrupt': 'true' } } };
    };
    return { ...c, nodes: c.nodes.map(mark) };
  }

  /** The decision carried out: candidates removed, replacements launched (a minute old, so Initialized), displaced pods bound where berth put them. */
  apply(d: Decision): void {
    const names = new Map<string, string>();
    d.replacements.forEach((r, i) => {
      const name = `r${this.launched++}`;
      names.set(replacementName(i), name);
      this.addNode(name, r.instanceType, r.zone, r.capacityType, NOW - 2 * MINUTE);
    });
    for (const m of d.displacedPods) {
      const pod = this.pods.get(m.pod)!;
      pod['spec'] = { ...(pod['spec'] as Obj), nodeName: names.get(m.node) ?? m.node };
    }
    for (const n of d.nodes) this.nodes.delete(n);
    for (const [key, pod] of this.pods) if (!this.nodes.has((pod['spec'] as Obj)['nodeName'] as string)) this.pods.delete(key);
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const get = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const maxSteps = Number(get('--steps') ?? 10_000);
  const oracle = new OracleClient(get('--oracle') ?? join(here, 'oracle-karpenter-disruption', 'oracle'));
  const cluster = new LockstepCluster(Number(get('--nodes') ?? 500), argv.includes('--spot-to-spot'));
  const price = catalogPrices(INSTANCE_TYPES);
  const tally = { agree: 0, agreeAfterRetry: 0, agreeUpToOrder: 0, disagree: 0 };
  for (let step = 0; step < maxSteps; step++) {
    const c = cluster.asCase(step);
    const ask = async () => ((await oracle.run({ ...c, instanceTypes: INSTANCE_TYPES })) as unknown as OracleResult);
    const first = await ask();
    const input = berthInput(c);
    if (first.error || 'error' in input) throw new Error(`step ${step}: ${first.error ?? ''} ${'error' in input ? input.error : ''}`);
    const { decision } = nextDisruption(input);
    const berth = normalize(decision ? { reason: decision.reason, nodes: decision.nodes, replacements: decision.replacements } : null);
    // Sorted again as signatures: the Karpenter side is normalized after this mapping, berth's must match it.
    const alike = (cmd: Command | null) => cmd && { ...cmd, nodes: cmd.nodes.map((n) => cluster.signature(n)).sort() };
    const { agreed, retried, answers } = await compareWithKarpenter(alike(berth), alike(first.command), async () => alike((await ask()).command));
    // Karpenter sorts candidates by savings ratio over map order, so among many equal
    // ratios its order (and so its command) is a draw that 64 asks do not cover. Such a
    // step still counts when berth's nodes rank level with the ones Karpenter took and
    // Karpenter, given berth's nodes alone as candidates, computes berth's command. This
    // does not replay Karpenter's whole search in berth's order (a multi-node command it
    // might find first there is not looked for).
    const ratios = new Map(consolidationCandidates(input).eligible.map((e) => [e.node.name, savingsRatio(e, price(e.node))]));
    const level = (nodes: readonly string[]) => nodes.map((n) => ratios.get(n));
    const tied = !agreed && decision && first.command && new Set([...level(decision.nodes), ...level(first.command.nodes)]).size === 1 && !level(decision.nodes).includes(undefined);
    const onlyBerths = tied ? normalize(((await oracle.run({ ...cluster.withCandidatesOnly(c, new Set(decision.nodes)), instanceTypes: INSTANCE_TYPES })) as unknown as OracleResult).command) : null;
    const agreedUpToOrder = tied === true && JSON.stringify(onlyBerths) === JSON.stringify(berth);
    const cost = input.cluster.nodeInfos().reduce((s, info) => s + (price(info.node) ?? 0), 0);
    if (agreed) tally[retried ? 'agreeAfterRetry' : 'agree']++;
    else if (agreedUpToOrder) tally.agreeUpToOrder++;
    else tally.disagree++;
    const verdict = agreed ? `agree${retried ? ' (after asking again)' : ''}` : agreedUpToOrder ? "agree up to Karpenter's order among equal savings ratios (its command for berth's nodes alone)" : 'DISAGREE';
    console.log(`step ${step}: ${cluster.size} nodes, ${cost.toFixed(2)} $/h; ${verdict}: berth ${describe(berth)}${agreed || agreedUpToOrder ? '' : `\n  karpenter: ${answers.map(describe).join(' | ')}\n  berth's nodes as signatures: ${alike(berth)?.nodes.join(' | ')}`}`);
    if (!decision) break;
    cluster.apply(decision);
  }
  await oracle.close();
  const agreeing = tally.agree + tally.agreeAfterRetry + tally.agreeUpToOrder;
  console.log(`${agreeing + tally.disagree} steps: ${agreeing} agree (${tally.agreeAfterRetry} only after asking Karpenter again, ${tally.agreeUpToOrder} up to its order among equal savings ratios), ${tally.disagree} disagree; ${cluster.size} nodes at the end`);
  if (tally.disagree > 0) process.exitCode = 1;
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : String(e));
  process.exitCode = 2;
});
