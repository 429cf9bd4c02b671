// Differential run of berth's provisioning planner against Karpenter's scheduler
// (conformance/oracle-karpenter). Usage:
//   tsx conformance/karpenter-run.ts --cases N --seed S [--from I] [--oracle PATH] [--verbose] [--json OUT.json] [--no-write]
//   tsx conformance/karpenter-run.ts --replay FILE [--verbose]  (one case, e.g. a regression; --verbose lists both plans)
//   --settle-selected runs berth with that option of its own on (ProvisionInput.settleSelected)
// Per case: which pods each side places (a disagreement is a failure, minimized into
// conformance/karpenter-regressions/), whether each plan keeps the required constraints,
// and node count and $/h side by side (cost differences are reported, not failures). Exit 1
// on a disagreement, an error or a required constraint berth breaks; --no-write prints the
// minimized case instead of writing it.
// Karpenter breaks some ties in Go map order, so a disagreement is checked against up to 8
// more oracle answers before it counts (see oracle-karpenter/README.md, Determinism).

import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import type { InstanceType } from '../src/provisioner/catalog/types.js';
import type { ProvisionPlan } from '../src/provisioner/plan.js';
import { INSTANCE_TYPES, runBerth } from './karpenter-berth.js';
import { buildCase, caseGenArb, caseStorage, type KarpenterCase, type Obj } from './karpenter-gen.js';
import { machineArb, withClusterState } from './karpenter-state-gen.js';
import { usedStorage, volumeZones } from './karpenter-volumes.js';
import { LABEL_NODE_INITIALIZED } from '../src/provisioner/labels.js';

const here = dirname(fileURLToPath(import.meta.url));
const IT_BY_NAME = new Map(INSTANCE_TYPES.map((it) => [it.name, it]));

// ---------------------------------------------------------------------------------------
// The oracle process

interface OracleClaim {
  nodePool: string;
  instanceTypeOptions: string[] | null;
  zones: string[];
  capacityTypes: string[];
  pods: string[] | null;
  price: number;
  instanceType: string;
  zone: string;
  capacityType: string;
}
interface OracleResult {
  id: string;
  error?: string;
  nodeClaims: OracleClaim[];
  /** Pods Karpenter placed on existing state nodes (in-flight, uninitialized). */
  existingNodes?: { name: string; pods: string[] }[];
  podErrors: Record<string, string>;
  /** With `launch`: the case after the batch's claims launched (oracle-karpenter/batches.go). */
  next?: KarpenterCase;
}

class KarpenterOracle {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve: (r: OracleResult) => void; reject: (e: Error) => void }[] = [];
  private stderr = '';
  private failure: Error | undefined;

  constructor(path: string) {
    this.proc = spawn(path, [], { stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: this.proc.stdout, crlfDelay: Infinity }).on('line', (line) => {
      const w = this.waiting.shift();
      if (!w) return;
      try {
        w.resolve(JSON.parse(line) as OracleResult);
      } catch (e) {
        w.reject(new Error(`oracle line is not JSON: ${line.slice(0, 200)} (${String(e)})`));
      }
    });
    this.proc.stderr.on('data', (c: Buffer) => {
      this.stderr = (this.stderr + c.toString()).slice(-4000);
    });
    const fail = (why: string) => {
      this.failure ??= new Error(`${why}; stderr tail:\n${this.stderr}`);
      for (const w of this.waiting.splice(0)) w.reject(this.failure);
    };
    this.proc.on('error', (e) => fail(`oracle ${path}: ${e.message}`));
    this.proc.on('exit', (code, sig) => fail(`oracle exited (code ${code}, signal ${sig})`));
  }

  run(c: KarpenterCase & { launch?: boolean; batch?: number }): Promise<OracleResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.proc.stdin.write(`${JSON.stringify({ ...c, instanceTypes: INSTANCE_TYPES })}\n`);
    });
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const done = new Promise<void>((r) => this.proc.once('exit', () => r()));
    this.proc.stdin.end();
    await done;
  }
}

// ---------------------------------------------------------------------------------------
// berth's side

// ---------------------------------------------------------------------------------------
// Comparing

/** One node of a plan, as the constraint checks see it. */
interface PlanNode {
  name: string;
  zones: string[];
  capacityTypes: string[];
  /** Instance types the node may still be (berth: the chosen one; Karpenter: every option). */
  types: InstanceType[];
  pods: string[];
}

function berthNodes(p: ProvisionPlan): PlanNode[] {
  return p.nodeClaims.map((c) => ({ name: c.name, zones: [c.zone], capacityTypes: [c.capacityType], types: [IT_BY_NAME.get(c.instanceType)!], pods: [...c.pods] }));
}

function oracleNodes(r: OracleResult): PlanNode[] {
  return r.nodeClaims.map((c, i) => ({
    name: `karpenter-${i}`,
    zones: c.zones,
    capacityTypes: c.capacityTypes,
    types: (c.instanceTypeOptions ?? []).map((n) => IT_BY_NAME.get(n)!),
    pods: c.pods ?? [],
  }));
}

interface PodInfo {
  key: string;
  app: string;
  cpu: number;
  mem: number;
  /** The topology key of the pod's spread constraint, if it has one. */
  spreadKey: string | undefined;
  anti: boolean;
  /** label key → allowed values, from nodeSelector or required node affinity. */
  allowed: Map<string, string[]>;
  /** Zones its volumes allow (karpenter-volumes.ts), when they constrain the zone. */
  volumeZones: Set<string> | undefined;
}

function podInfos(c: KarpenterCase): Map<string, PodInfo> {
  const out = new Map<string, PodInfo>();
  for (const p of c.pods) {
    const meta = p['metadata'] as { name: string; labels: Record<string, string> };
    const spec = p['spec'] as Obj;
    const req = ((spec['containers'] as Obj[])[0]!['resources'] as { requests: { cpu: string; memory: string } }).requests;
    const allowed = new Map<string, string[]>();
    for (const [k, v] of Object.entries((spec['nodeSelector'] as Record<string, string> | undefined) ?? {})) allowed.set(k, [v]);
    const aff = spec['affinity'] as { nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: { matchExpressions: { key: string; values: string[] }[] }[] } }; podAntiAffinity?: unknown } | undefined;
    for (const e of aff?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]?.matchExpressions ?? []) allowed.set(e.key, e.values);
    out.set(`default/${meta.name}`, {
      key: `default/${meta.name}`,
      app: meta.labels['app']!,
      cpu: parseInt(req.cpu, 10),
      mem: parseInt(req.memory, 10) * 1024 * 1024,
      spreadKey: (spec['topologySpreadConstraints'] as { topologyKey: string }[] | undefined)?.[0]?.topologyKey,
      anti: aff?.podAntiAffinity !== undefined,
      allowed,
      volumeZones: volumeZones(p, caseStorage(c)),
    });
  }
  return out;
}

function labelValues(n: PlanNode, key: string): string[] {
  if (key === 'topology.kubernetes.io/zone') return n.zones;
  if (key === 'karpenter.sh/capacity-type') return n.capacityTypes;
  return [...new Set(n.types.map((t) => t.labels[key] ?? ''))];
}

/** Required-constraint violations in one plan (empty when every constraint holds). */
function violations(nodes: PlanNode[], pods: Map<string, PodInfo>, c: KarpenterCase): string[] {
  const out: string[] = [];
  const poolZones = new Set<string>();
  for (const np of c.nodePools) {
    const reqs = ((np['spec'] as Obj)['template'] as { spec: { requirements: { key: string; values: string[] }[] } }).spec.requirements;
    const z = reqs.find((r) => r.key === 'topology.kubernetes.io/zone');
    for (const v of z ? z.values : ['us-west-2a', 'us-west-2b', 'us-west-2c', 'us-west-2d']) poolZones.add(v);
  }
  const spreadCount = new Map<string, Map<string, number>>();
  for (const n of nodes) {
    let cpu = 0;
    let mem = 0;
    const antiApps = new Set<string>();
    for (const key of n.pods) {
      const p = pods.get(key);
      if (!p) continue;
      cpu += p.cpu;
      mem += p.mem;
      for (const [k, vs] of p.allowed) {
        const bad = labelValues(n, k).filter((v) => !vs.includes(v));
        if (bad.length > 0) out.push(`${n.name}: ${key} requires ${k} in [${vs.join(',')}] but the node may be ${bad.join(',')}`);
      }
      const outside = p.volumeZones ? n.zones.filter((z) => !p.volumeZones!.has(z)) : [];
      if (outside.length > 0) out.push(`${n.name}: ${key}'s volumes allow zones [${[...p.volumeZones!].join(',')}] but the node may be ${outside.join(',')}`);
      if (p.anti) {
        if (antiApps.has(p.app)) out.push(`${n.name}: two ${p.app} pods despite hostname anti-affinity`);
        antiApps.add(p.app);
      }
      // Karpenter narrows a spread pod's claim to one capacity type (a custom key's value is not in the plan's nodes).
      if (p.spreadKey === 'karpenter.sh/capacity-type' && n.capacityTypes.length !== 1) {
        out.push(`${n.name}: capacity-type-spread pod ${key} on a node whose capacity type is not decided (${n.capacityTypes.join(',')})`);
      }
      if (p.spreadKey === 'topology.kubernetes.io/zone') {
        if (n.zones.length !== 1) out.push(`${n.name}: zone-spread pod ${key} on a node whose zone is not decided (${n.zones.join(',')})`);
        const m = spreadCount.get(p.app) ?? new Map<string, number>();
        m.set(n.zones[0]!, (m.get(n.zones[0]!) ?? 0) + 1);
        spreadCount.set(p.app, m);
      }
    }
    const fitting = n.types.filter((t) => (t.allocatable['cpu'] ?? 0) >= cpu && (t.allocatable['memory'] ?? 0) >= mem && (t.allocatable['pods'] ?? 0) >= n.pods.length);
    if (fitting.length === 0) out.push(`${n.name}: no instance type option holds its pods (${cpu}m cpu, ${mem} B)`);
  }
  // Skew over the zones a pod of the group may use (its own zone constraint ∩ NodePool zones).
  for (const [app, counts] of spreadCount) {
    const sample = [...pods.values()].find((p) => p.app === app)!;
    const allowedZones = sample.allowed.get('topology.kubernetes.io/zone');
    const domains = [...poolZones].filter((z) => !allowedZones || allowedZones.includes(z));
    const vals = domains.map((z) => counts.get(z) ?? 0);
    const skew = Math.max(...vals) - Math.min(...vals);
    if (skew > 1) out.push(`${app}: zone skew ${skew} over [${domains.map((z, i) => `${z}=${vals[i]}`).join(' ')}] (domains: NodePool zones allowed by the pod; approximate)`);
  }
  return out;
}

interface Compared {
  id: string;
  error?: string;
  onlyBerth: string[];
  onlyKarpenter: string[];
  berthViolations: string[];
  karpenterViolations: string[];
  berthNodes: number;
  karpenterNodes: number;
  berthCost: number;
  karpenterCost: number;
  berthErrors: Record<string, string>;
  karpenterErrors: Record<string, string>;
}

function compare(c: KarpenterCase, b: ProvisionPlan | { error: string }, k: OracleResult): Compared {
  const base = { id: c.id, onlyBerth: [], onlyKarpenter: [], berthViolations: [], karpenterViolations: [], berthNodes: 0, karpenterNodes: 0, berthCost: 0, karpenterCost: 0, berthErrors: {}, karpenterErrors: {} };
  if ('error' in b) return { ...base, error: b.error };
  if (k.error) return { ...base, error: `oracle: ${k.error}` };
  // Only the case's own pods: the DaemonSet pods berth's loader creates for the case's Nodes are not compared.
  const own = new Set([...c.pods, ...(c.boundPods ?? [])].map((p) => { const m = p['metadata'] as { namespace?: string; name: string }; return `${m.namespace ?? 'default'}/${m.name}`; }));
  const berthPlaced = new Set(b.placements.map((p) => p.pod).filter((p) => own.has(p)));
  const kPlaced = new Set([...k.nodeClaims.flatMap((n) => n.pods ?? []), ...(k.existingNodes ?? []).flatMap((n) => n.pods)]);
  const infos = podInfos(c);
  return {
    id: c.id,
    onlyBerth: [...berthPlaced].filter((p) => !kPlaced.has(p)).sort(),
    onlyKarpenter: [...kPlaced].filter((p) => !berthPlaced.has(p)).sort(),
    berthViolations: violations(berthNodes(b), infos, c),
    karpenterViolations: violations(oracleNodes(k), infos, c),
    berthNodes: b.nodeClaims.length,
    karpenterNodes: k.nodeClaims.length,
    berthCost: b.costPerHour,
    karpenterCost: Math.round(k.nodeClaims.reduce((s, n) => s + n.price, 0) * 1e6) / 1e6,
    berthErrors: Object.fromEntries(b.unschedulable.map((u) => [u.pod, u.message])),
    karpenterErrors: k.podErrors,
  };
}

const disagrees = (r: Compared) => r.error !== undefined || r.onlyBerth.length > 0 || r.onlyKarpenter.length > 0;

/** How many more times to ask the oracle before a disagreement counts (as conformance/run.ts does for kube-scheduler). */
const ORACLE_RETRIES = 8;
/**
 * Once Karpenter's answers differ, how many more times in all: berth's answer can be one
 * Karpenter gives 1 time in 4 (s1-458), which 8 more asks miss 7.5% of the time, 32 about 0.01%.
 */
const UNSTABLE_ORACLE_RETRIES = 32;

const OFFERED_ZONES = [...new Set(INSTANCE_TYPES.flatMap((it) => it.offerings.map((o) => o.zone)))].sort();

/**
 * The same case with every NodePool's zone requirement explicit (`In` every offered zone
 * when it has none). Karpenter plans it the same way. Its spread-pod zone ties still go
 * to a Go map-order pick (v1.14.1 walks an `In` requirement's values unsorted, see
 * oracle-karpenter/README.md), so this is one more answer from an equivalent case.
 */
function withExplicitZones(c: KarpenterCase): KarpenterCase {
  const nodePools = c.nodePools.map((np) => {
    const spec = np['spec'] as { template: { spec: { requirements: { key: string }[] } } };
    const reqs = spec.template.spec.requirements;
    if (reqs.some((r) => r.key === 'topology.kubernetes.io/zone')) return np;
    const requirements = [...reqs, { key: 'topology.kubernetes.io/zone', operator: 'In', values: OFFERED_ZONES }];
    return { ...np, spec: { ...spec, template: { ...spec.template, spec: { ...spec.template.spec, requirements } } } };
  });
  return { ...c, nodePools };
}

type Outcome = Compared & { reasked: number; unstable: boolean; sortedTieBreak: boolean };

/**
 * One case through both sides. Karpenter's answer can depend on Go map order (zone
 * ties of spread pods on claims without an `In` zone requirement, see
 * oracle-karpenter/README.md), so a disagreement is checked against up to
 * ORACLE_RETRIES more answers (UNSTABLE_ORACLE_RETRIES once they differ), and berth
 * agrees when it matches any of them. When the
 * answers differed and none matched, the last answer asked for is Karpenter's on the
 * case with explicit zones (withExplicitZones). `reasked` counts the extra answers;
 * `unstable` says whether they differed (in any claim's pods or zones, not only in the
 * pods placed).
 */
/** What Karpenter decided: each claim's pods and zones, in a canonical order. */
function signature(k: OracleResult): string {
  return JSON.stringify(k.nodeClaims.map((n) => [[...(n.pods ?? [])].sort(), n.zones]).sort((x, y) => (JSON.stringify(x) < JSON.stringify(y) ? -1 : 1)));
}

const BERTH_OPTIONS = process.argv.includes('--settle-selected') ? { settleSelected: true } : {};

/** Initialized Nodes not marked for deletion: the Nodes kube-scheduler binds pending pods to. */
function readyNodes(c: KarpenterCase): Set<string> {
  const ready = (c.nodes ?? []).filter((n) => {
    const meta = n['metadata'] as { labels?: Record<string, string> };
    const taints = ((n['spec'] as { taints?: { key: string }[] }).taints ?? []);
    return meta.labels?.[LABEL_NODE_INITIALIZED] === 'true' && !taints.some((t) => t.key === 'karpenter.sh/disrupted');
  });
  return new Set(ready.map((n) => (n['metadata'] as { name: string }).name));
}

/**
 * The case as Karpenter's provisioner receives it. Its GetPendingPods takes only pods
 * kube-scheduler marked unschedulable, so the pods kube-scheduler binds to initialized
 * Nodes never reach its Solve: they go to the oracle bound to the Node berth's
 * kube-scheduler pass chose (that pass is compared with kube-scheduler itself by
 * conformance/run.ts). `preBound` lists them by Node. The pods of nodes marked for
 * deletion are not moved: Karpenter plans them (existing Nodes included) before they are evicted.
 */
function afterKubeScheduler(c: KarpenterCase): { oracleCase: KarpenterCase; preBound: { name: string; pods: string[] }[] } {
  const ready = readyNodes(c);
  const firstPass = ready.size === 0 ? undefined : runBerth({ ...c, batches: 1 });
  if (!firstPass) return { oracleCase: c, preBound: [] };
  if ('error' in firstPass) throw new Error(`${c.id}: kube-scheduler's pass before a Karpenter batch: ${firstPass.error}`);
  const keyOf = (p: Obj) => `default/${(p['metadata'] as { name: string }).name}`;
  const pending = new Set(c.pods.map(keyOf));
  // Only the case's pending pods: the DaemonSet pods berth's loader adds for a Node are not the oracle's.
  const bindings = new Map(firstPass.placements.filter((p) => ready.has(p.node) && pending.has(p.pod)).map((p) => [p.pod, p.node]));
  if (bindings.size === 0) return { oracleCase: c, preBound: [] };
  const bound = c.pods.filter((p) => bindings.has(keyOf(p))).map((p) => ({ ...p, spec: { ...(p['spec'] as Obj), nodeName: bindings.get(keyOf(p)) }, status: { phase: 'Running' } }));
  const oracleCase = { ...c, pods: c.pods.filter((p) => !bindings.has(keyOf(p))), boundPods: [...(c.boundPods ?? []), ...bound] };
  const byNode = new Map<string, string[]>();
  for (const [pod, node] of bindings) byNode.set(node, [...(byNode.get(node) ?? []), pod]);
  return { oracleCase, preBound: [...byNode].map(([name, pods]) => ({ name, pods })) };
}

/**
 * Karpenter's answer on the case: one Solve, or with `batches` > 1 its loop as a real
 * cluster runs it. Before each batch kube-scheduler binds what it can (afterKubeScheduler);
 * the oracle plans the rest and launches the claims (registered and initialized, the
 * pods bound), and the pods still pending are the next batch, until a batch launches
 * nothing. The claims and pods placed add up over the batches; pod errors are the last batch's.
 */
async function askKarpenter(oracle: KarpenterOracle, c: KarpenterCase): Promise<OracleResult> {
  const batches = c.batches ?? 1;
  const total: OracleResult = { id: c.id, nodeClaims: [], existingNodes: [], podErrors: {} };
  let cur: KarpenterCase = c;
  for (let batch = 1; ; batch++) {
    const { oracleCase, preBound } = afterKubeScheduler(cur);
    const k = await oracle.run({ ...oracleCase, id: c.id, launch: batch < batches, batch });
    if (k.error) return k;
    total.nodeClaims.push(...k.nodeClaims);
    total.existingNodes!.push(...(k.existingNodes ?? []), ...preBound);
    total.podErrors = k.podErrors;
    if (!k.next) return total;
    cur = k.next;
  }
}

async function runOne(oracle: KarpenterOracle, c: KarpenterCase): Promise<Outcome> {
  const b = runBerth(c, BERTH_OPTIONS);
  const ask = (x: KarpenterCase) => askKarpenter(oracle, x);
  const k0 = await ask(c);
  const first = compare(c, b, k0);
  let reasked = 0;
  let unstable = false;
  for (let r = first; disagrees(r) && r.error === undefined && reasked < (unstable ? UNSTABLE_ORACLE_RETRIES : ORACLE_RETRIES); ) {
    const k = await ask(c);
    r = compare(c, b, k);
    reasked++;
    unstable ||= signature(k) !== signature(k0);
    if (!disagrees(r)) return { ...r, reasked, unstable, sortedTieBreak: false };
  }
  if (unstable) {
    const sorted = compare(c, b, await ask(withExplicitZones(c)));
    if (!disagrees(sorted)) return { ...sorted, reasked, unstable, sortedTieBreak: true };
  }
  return { ...first, reasked, unstable, sortedTieBreak: false };
}

/** Greedy shrink: drop NodePools, DaemonSets, then pods, one at a time while the disagreement stays. */
async function minimize(oracle: KarpenterOracle, c: KarpenterCase): Promise<KarpenterCase> {
  let cur: KarpenterCase & Required<Pick<KarpenterCase, 'daemonSets'>> = { daemonSets: [], ...c };
  let budget = 150;
  for (const field of ['nodePools', 'daemonSets', 'pods'] as const) {
    let i = 0;
    while (i < cur[field].length && budget-- > 0) {
      if (field === 'nodePools' && cur.nodePools.length === 1) break;
      const next = { ...cur, [field]: cur[field].filter((_, j) => j !== i) };
      if (next.pods.length > 0 && disagrees(await runOne(oracle, next))) cur = next;
      else i++;
    }
  }
  // The claims, volumes and classes the remaining pods no longer mount go too.
  return c.persistentVolumeClaims || c.storageClasses ? { ...cur, ...usedStorage(cur.pods, caseStorage(cur)) } : cur;
}

/** Both sides' claims and pods on existing nodes, one line each (--replay FILE --verbose: where a cost or placement differs). */
async function showPlans(oracle: KarpenterOracle, c: KarpenterCase): Promise<void> {
  const b = runBerth(c, BERTH_OPTIONS);
  const k = await askKarpenter(oracle, c);
  const lines: string[] = [];
  if ('error' in b) lines.push(`berth error: ${b.error}`);
  else {
    for (const n of b.nodeClaims) lines.push(`berth claim ${n.name} ${n.nodePool} ${n.instanceType} ${n.zone} ${n.capacityType} $${n.pricePerHour}: ${n.pods.join(' ')}`);
    const claimNames = new Set(b.nodeClaims.map((n) => n.name));
    const onExisting = new Map<string, string[]>();
    for (const p of b.placements) if (!claimNames.has(p.node)) onExisting.set(p.node, [...(onExisting.get(p.node) ?? []), p.pod]);
    for (const [node, pods] of [...onExisting].sort()) lines.push(`berth existing ${node}: ${pods.join(' ')}`);
  }
  for (const n of k.nodeClaims) lines.push(`karpenter claim ${n.nodePool} ${n.instanceType} ${n.zone} ${n.capacityType} $${n.price} (${(n.instanceTypeOptions ?? []).length} options, zones ${n.zones.join(',')}): ${(n.pods ?? []).join(' ')}`);
  for (const n of k.existingNodes ?? []) lines.push(`karpenter existing ${n.name}: ${n.pods.join(' ')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function arg(name: string, fallback?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const mean = (xs: number[]) => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

async function main(): Promise<void> {
  const oraclePath = arg('oracle', join(here, 'oracle-karpenter', 'oracle'))!;
  if (!existsSync(oraclePath)) {
    process.stderr.write(`no oracle at ${oraclePath}: run conformance/oracle-karpenter/build.sh\n`);
    process.exit(2);
  }
  const verbose = process.argv.includes('--verbose');
  // CI leaves the tree as it is: a disagreement is minimized and printed, not written.
  const write = !process.argv.includes('--no-write');
  const oracle = new KarpenterOracle(oraclePath);
  const replay = arg('replay');
  if (replay) {
    const c = (JSON.parse(readFileSync(replay, 'utf8')) as { case: KarpenterCase }).case;
    const r = await runOne(oracle, c);
    process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    if (verbose) await showPlans(oracle, c);
    await oracle.close();
    return;
  }
  const n = Number(arg('cases', '100'));
  const seed = Number(arg('seed', '1'));
  // One case in four runs Karpenter's loop for up to 4 batches on both sides (the oracle's batches.go, berth's provisionInBatches).
  const gens = fc.sample(fc.tuple(caseGenArb, fc.array(machineArb, { maxLength: 3 }), fc.constantFrom(1, 1, 1, 4)), { numRuns: n, seed });
  const results: Outcome[] = [];
  const regDir = join(here, 'karpenter-regressions');
  let written = 0;
  const t0 = Date.now();
  // --from N: start at case N of the seed's sample (a run in chunks covers it with several processes).
  for (let i = Number(arg('from', '0')); i < gens.length; i++) {
    const [gen, machines, batches] = gens[i]!;
    const built = withClusterState(buildCase(`s${seed}-${i}`, gen), gen.pools, machines, gen.daemonSets);
    const c = batches > 1 ? { ...built, batches } : built;
    const r = await runOne(oracle, c);
    results.push(r);
    if (verbose || disagrees(r)) {
      process.stdout.write(`${c.id}: pods=${c.pods.length} pools=${c.nodePools.length} berth ${r.berthNodes} nodes ${r.berthCost.toFixed(4)}$/h | karpenter ${r.karpenterNodes} nodes ${r.karpenterCost.toFixed(4)}$/h`);
      process.stdout.write(disagrees(r) ? `  DISAGREE onlyBerth=[${r.onlyBerth.join(' ')}] onlyKarpenter=[${r.onlyKarpenter.join(' ')}]${r.error ? ` error=${r.error.slice(0, 300)}` : ''}\n` : '\n');
    }
    if (disagrees(r) && !r.error && written < 20) {
      const small = await minimize(oracle, c);
      const sr = await runOne(oracle, small);
      // Skipped by karpenter-regressions.test.ts until someone diagnoses it and names the fix.
      const pending = { diagnosis: 'not diagnosed yet', fixedBy: 'open: not diagnosed yet' };
      const regression = { seed, index: i, note: 'minimized: pods placed by one side only', result: sr, case: small, ...pending };
      if (write) {
        mkdirSync(regDir, { recursive: true });
        const file = join(regDir, `${c.id}.json`);
        writeFileSync(file, `${JSON.stringify(regression, null, 2)}\n`);
        process.stdout.write(`  minimized to ${small.nodePools.length} pool(s), ${small.pods.length} pod(s): ${file}\n`);
      } else {
        process.stdout.write(`  minimized to ${small.nodePools.length} pool(s), ${small.pods.length} pod(s):\n${JSON.stringify(regression)}\n`);
      }
      written++;
    }
  }
  await oracle.close();
  const ok = results.filter((r) => !r.error);
  const agree = ok.filter((r) => !disagrees(r));
  const both = agree.filter((r) => r.karpenterNodes > 0 && r.berthNodes > 0);
  const bv = ok.filter((r) => r.berthViolations.length > 0);
  const kv = ok.filter((r) => r.karpenterViolations.length > 0);
  const hard = (v: string[]) => v.filter((x) => !x.includes('zone skew'));
  const summary = {
    cases: results.length,
    errors: results.length - ok.length,
    agreeing: agree.length,
    // Floored, so that 1999 of 2000 never shows as 100.
    feasibilityAgreementPct: Math.floor((10000 * agree.length) / Math.max(1, ok.length)) / 100,
    disagreements: ok.length - agree.length,
    berthConstraintViolations: { cases: bv.filter((r) => hard(r.berthViolations).length > 0).length, zoneSkewCases: bv.length },
    karpenterConstraintViolations: { cases: kv.filter((r) => hard(r.karpenterViolations).length > 0).length, zoneSkewCases: kv.length },
    meanNodes: { berth: mean(agree.map((r) => r.berthNodes)), karpenter: mean(agree.map((r) => r.karpenterNodes)) },
    meanCostPerHour: { berth: mean(agree.map((r) => r.berthCost)), karpenter: mean(agree.map((r) => r.karpenterCost)) },
    meanNodeRatioBerthOverKarpenter: mean(both.map((r) => r.berthNodes / r.karpenterNodes)),
    meanCostRatioBerthOverKarpenter: mean(both.map((r) => r.berthCost / r.karpenterCost)),
    totalCostRatio: both.reduce((s, r) => s + r.berthCost, 0) / both.reduce((s, r) => s + r.karpenterCost, 0),
    totalNodeRatio: both.reduce((s, r) => s + r.berthNodes, 0) / both.reduce((s, r) => s + r.karpenterNodes, 0),
    // Cases where Karpenter answered differently when asked again (map-order tie-breaks).
    oracleUnstableCases: results.filter((r) => r.unstable).length,
    agreedAfterReasking: agree.filter((r) => r.reasked > 0 && !r.sortedTieBreak).length,
    agreedWithSortedTieBreak: agree.filter((r) => r.sortedTieBreak).length,
    seconds: (Date.now() - t0) / 1000,
  };
  for (const r of ok) {
    for (const v of hard(r.berthViolations)) process.stdout.write(`${r.id}: berth violates: ${v}\n`);
    for (const v of hard(r.karpenterViolations)) process.stdout.write(`${r.id}: karpenter violates: ${v}\n`);
  }
  process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
  const jsonOut = arg('json');
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify({ summary, results }, null, 1));
  // Cost differences are reported; a feasibility disagreement, an error or a broken required constraint in berth's plan fails.
  if (summary.errors > 0 || summary.disagreements > 0 || summary.berthConstraintViolations.cases > 0) process.exitCode = 1;
}

main().catch((e: unknown) => {
  process.stderr.write(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
