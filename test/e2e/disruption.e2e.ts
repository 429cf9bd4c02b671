// `berth controller --disruption` against the real API server, kube-scheduler and
// kube-controller-manager (ReplicaSets recreate evicted pods, the disruption
// controller keeps PDB status), kwok running the nodes. `npm run test:e2e`.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  allRunning, apply, controller, controllerLog, deployment, e2eFile, kube, kwokNodes, list, nodeClaims, pods, scale, scenario, sleep,
  stopController, waitFor,
} from './harness.js';
import type { KubeObject } from '../../src/live/objects.js';

/** Fast polls so each test stays short; Karpenter's are 10 s and 15 s. */
const DISRUPTION = ['--disruption', '--disruption-poll', '1s', '--disruption-validation', '2s'];
const POOL_DISRUPTION = { consolidationPolicy: 'WhenEmptyOrUnderutilized', consolidateAfter: '2s', budgets: [{ nodes: '100%' }] };
/**
 * For the emptiness tests: with WhenEmptyOrUnderutilized, the pod left after a
 * scale-down may as well be moved onto the node that just emptied (that node is
 * not quiet yet, the other one is), which is right but not what these tests watch.
 */
const WHEN_EMPTY = { ...POOL_DISRUPTION, consolidationPolicy: 'WhenEmpty' };
/** Long enough for several polls, validations and consolidateAfter to pass. */
const QUIET_MS = 8_000;

const spreadOut = (app: string) => ({
  affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app } } }] } },
});

const timings = e2eFile('e2e disruption');
let started = 0;
/** Controller identities (and log names) of this file. */
const identity = () => `disruption-${++started}`;

const names = (os: KubeObject[]) => os.map((o) => o.metadata!.name!).sort();

/** No instance without a claim and no claim without an instance (a terminating claim goes a moment after its node: waited for). */
async function nothingLeaked(): Promise<void> {
  const claimsOfNodes = async () => (await kwokNodes()).map((n) => n.metadata!.labels!['berth.dev/nodeclaim']).sort();
  await waitFor('claims to match nodes', async () => JSON.stringify(await claimsOfNodes()) === JSON.stringify(names(await nodeClaims())), 15_000).catch(() => undefined);
  assert.deepEqual(await claimsOfNodes(), names(await nodeClaims()));
}

/** Two nodes, one pod each (required hostname anti-affinity), then one replica: one node empty. */
async function twoNodesOneEmpty(ns: string): Promise<{ empty: string; busy: string; scaledDownAt: number }> {
  await apply(deployment(ns, 'web', 2, spreadOut('web')));
  await allRunning(ns, 'web', 2);
  assert.equal((await kwokNodes()).length, 2);
  const scaledDownAt = Date.now();
  await scale(ns, 'web', 1);
  const [left] = await waitFor('one web pod left', async () => {
    const ps = await pods(ns, 'app=web');
    return ps.length === 1 ? ps : undefined;
  });
  const busy = left!.node;
  const empty = names(await kwokNodes()).find((n) => n !== busy)!;
  return { empty, busy, scaledDownAt };
}

async function setNodeAnnotation(name: string, key: string, value: string | undefined): Promise<void> {
  const set = await kube().update('v1', 'Node', name, (node) => {
    const annotations = { ...node.metadata?.annotations };
    if (value === undefined) delete annotations[key];
    else annotations[key] = value;
    return { ...node, metadata: { ...node.metadata, annotations } };
  });
  assert.ok(set, `node ${name} exists`);
}

async function disruptingEvents(node: string): Promise<KubeObject[]> {
  return (await list('v1', 'Event', 'default')).filter((e) => {
    const ev = e as { reason?: string; involvedObject?: { kind?: string; name?: string } };
    return ev.reason === 'Disrupting' && ev.involvedObject?.kind === 'Node' && ev.involvedObject.name === node;
  });
}

test('without --disruption nothing is disrupted; with it the empty node goes', async () => {
  const ns = 'e2e-dis-off';
  await scenario(ns, [['default', { disruption: WHEN_EMPTY }]], async () => {
    const off = await controller([], identity());
    const { empty } = await twoNodesOneEmpty(ns);
    await sleep(QUIET_MS);
    assert.equal((await kwokNodes()).length, 2, 'the empty node stays while disruption is off');
    assert.equal((await nodeClaims()).length, 2);
    await stopController(off);
    await controller(DISRUPTION, identity());
    await waitFor(`empty node ${empty} deleted`, async () => !(await kube().read('v1', 'Node', empty)), 60_000);
  });
});

test('emptiness: scaled down, the empty node and its claim are deleted; nothing leaks', async () => {
  const ns = 'e2e-dis-empty';
  await scenario(ns, [['default', { disruption: WHEN_EMPTY }]], async () => {
    const c = await controller(DISRUPTION, identity());
    const { empty, busy, scaledDownAt } = await twoNodesOneEmpty(ns);
    await waitFor(`empty node ${empty} deleted`, async () => !(await kube().read('v1', 'Node', empty)), 60_000);
    timings.scaleDownToEmptyNodeDeleted = Date.now() - scaledDownAt;
    assert.deepEqual(names(await kwokNodes()), [busy]);
    await nothingLeaked();
    assert.equal((await pods(ns, 'app=web'))[0]!.node, busy, 'the remaining pod was not touched');
    assert.equal((await disruptingEvents(empty)).length, 1, 'a Disrupting Event on the node');
    const disrupted = controllerLog(c).filter((l) => l.msg === 'node disrupted');
    assert.deepEqual(disrupted.map((l) => [l.node, l.reason]), [[empty, 'Empty']]);
  });
});

test('do-not-disrupt on a node keeps it, empty as it is, until the annotation goes', async () => {
  const ns = 'e2e-dis-dnd';
  await scenario(ns, [['default', { disruption: WHEN_EMPTY }]], async () => {
    const c = await controller(DISRUPTION, identity());
    await apply(deployment(ns, 'web', 2, spreadOut('web')));
    await allRunning(ns, 'web', 2);
    const nodes = names(await kwokNodes());
    for (const n of nodes) await setNodeAnnotation(n, 'karpenter.sh/do-not-disrupt', 'true');
    await scale(ns, 'web', 1);
    await sleep(QUIET_MS);
    assert.deepEqual(names(await kwokNodes()), nodes, 'both nodes stay');
    assert.ok(controllerLog(c).some((l) => l.msg === 'nodes not disrupted' && JSON.stringify(l.rejected).includes('karpenter.sh/do-not-disrupt')), 'the controller says why');
    for (const n of nodes) await setNodeAnnotation(n, 'karpenter.sh/do-not-disrupt', undefined);
    await waitFor('the empty node deleted', async () => (await kwokNodes()).length === 1, 60_000);
    await nothingLeaked();
  });
});

test('consolidation: a PDB allowing no disruption holds two under-used nodes; once it goes, their pods move onto one node', async () => {
  const ns = 'e2e-dis-consolidate';
  await scenario(ns, [['default', { disruption: POOL_DISRUPTION }]], async () => {
    const c = await controller(DISRUPTION, identity());
    const labels = { tier: 'web' };
    const withTier = (d: KubeObject): KubeObject => {
      const spec = d.spec as { template: { metadata: { labels: Record<string, string> } } };
      spec.template.metadata.labels = { ...spec.template.metadata.labels, ...labels };
      return d;
    };
    // a and filler share one node; b keeps away from filler, so it gets a second node.
    await apply(withTier(deployment(ns, 'a', 1)));
    await apply(deployment(ns, 'filler', 1));
    const [a] = await allRunning(ns, 'a', 1);
    const [filler] = await allRunning(ns, 'filler', 1);
    assert.equal(a!.node, filler!.node, 'a and filler planned onto one node');
    await apply(withTier(deployment(ns, 'b', 1, spreadOut('filler'))));
    const [b] = await allRunning(ns, 'b', 1);
    assert.notEqual(b!.node, a!.node);
    await apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: ns }, spec: { maxUnavailable: 0, selector: { matchLabels: labels } } });
    await kube().delete('apps/v1', 'Deployment', 'filler', ns);
    await waitFor('filler gone', async () => (await pods(ns, 'app=filler')).length === 0);
    // Now a and b would fit on one node, but the PDB allows no eviction.
    await sleep(QUIET_MS);
    assert.equal((await kwokNodes()).length, 2, 'both nodes stay');
    assert.deepEqual([(await pods(ns, 'app=a'))[0]!.name, (await pods(ns, 'app=b'))[0]!.name], [a!.name, b!.name], 'no pod was evicted');
    assert.ok(controllerLog(c).some((l) => l.msg === 'nodes not disrupted' && JSON.stringify(l.rejected).includes(`pdb \\"${ns}/web\\"`)), 'the controller says the PDB blocks');
    assert.ok(!controllerLog(c).some((l) => l.msg === 'evicted'));
    const t0 = Date.now();
    await kube().delete('policy/v1', 'PodDisruptionBudget', 'web', ns);
    await waitFor('one node left, a and b Running on it', async () => {
      const nodes = await kwokNodes();
      const ps = [...(await pods(ns, 'app=a')), ...(await pods(ns, 'app=b'))];
      return nodes.length === 1 && ps.length === 2 && ps.every((p) => p.phase === 'Running' && p.node === nodes[0]!.metadata!.name);
    }, 90_000);
    timings.pdbDeletedToConsolidated = Date.now() - t0;
    await nothingLeaked();
    const log = controllerLog(c);
    assert.ok(log.some((l) => l.msg === 'evicted'), 'pods moved through the Eviction API');
    assert.ok(log.some((l) => l.msg === 'node disrupted' && l.reason === 'Underutilized'));
  });
});

test('replace: an over-sized node is replaced by a cheaper one, Ready before its pods (under a PDB) are evicted', async () => {
  const ns = 'e2e-dis-replace';
  await scenario(ns, [['default', { disruption: POOL_DISRUPTION }]], async () => {
    const c = await controller(DISRUPTION, identity());
    const d = deployment(ns, 'web', 2);
    const resources = (cpu: string) => ({ requests: { cpu, memory: '256Mi' } });
    const container = (d.spec as { template: { spec: { containers: { resources: unknown }[] } } }).template.spec.containers[0]!;
    container.resources = resources('1500m');
    await apply(d);
    await allRunning(ns, 'web', 2);
    await apply({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'web', namespace: ns }, spec: { minAvailable: 1, selector: { matchLabels: { app: 'web' } } } });
    const [big] = await kwokNodes();
    const typeOf = (n: KubeObject) => n.metadata!.labels!['node.kubernetes.io/instance-type'];
    // The pods shrink (a rollout: the new pods still fit on the big node), leaving it mostly idle.
    const t0 = Date.now();
    const rolled = await kube().update('apps/v1', 'Deployment', 'web', (current) => {
      (current.spec as { template: { spec: { containers: { resources: unknown }[] } } }).template.spec.containers[0]!.resources = resources('250m');
      return current;
    }, { namespace: ns });
    assert.ok(rolled, 'Deployment web exists');
    await waitFor(`node ${big!.metadata!.name} replaced`, async () => !(await kube().read('v1', 'Node', big!.metadata!.name!)), 90_000);
    const ps = await allRunning(ns, 'web', 2);
    timings.rolloutToReplaced = Date.now() - t0;
    const [replacement] = await kwokNodes();
    assert.deepEqual(ps.map((p) => p.node), [replacement!.metadata!.name, replacement!.metadata!.name]);
    assert.notEqual(typeOf(replacement!), typeOf(big!));
    await nothingLeaked();
    const steps = controllerLog(c).map((l) => l.msg).filter((m) => ['created replacement NodeClaim', 'replacements Ready', 'evicted', 'node disrupted'].includes(m));
    assert.deepEqual(steps, ['created replacement NodeClaim', 'replacements Ready', 'evicted', 'evicted', 'node disrupted'], 'the replacement is Ready before the evictions');
    // Whether the API server refuses the second eviction depends on how fast the first
    // pod's stand-in is Ready (then the PDB allows one again): counted, not asserted.
    timings.replaceEvictionsRefused = controllerLog(c).filter((l) => l.msg.startsWith('eviction refused (429')).length;
  });
});
