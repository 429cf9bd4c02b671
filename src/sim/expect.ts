// Scenario expectations: checks of the simulated cluster at a time, at the end,
// or — for `throughout` — after every event from a start time on. Each result
// says what was seen, so a failure explains itself.

import type { Pod } from '../model/pod.js';
import { LABEL_ZONE } from '../model/node.js';
import { LABEL_NODEPOOL } from '../provisioner/labels.js';
import type { Check, Expectation, PodSelection } from '../io/scenario-spec.js';
import type { Simulation } from './simulation.js';

export interface ExpectationResult {
  readonly name: string;
  readonly passed: boolean;
  readonly detail: string;
  readonly source: string;
}

/** Rollout bookkeeping the checks need: when each Deployment's last rollout started and finished. */
export interface RolloutTracker {
  startedAt(deployment: string): number | undefined;
  completedAt(deployment: string): number | undefined;
}

function selected(sim: Simulation, sel: PodSelection): Pod[] {
  return [...sim.world.cluster.pods()].filter((p) => !p.terminating && (!sel.namespace || p.namespace === sel.namespace) && sel.selector.matches(p.labels));
}

const fmt = (ms: number) => `${ms / 1000}s`;

export function checkName(c: Check): string {
  switch (c.type) {
    case 'allScheduled':
      return 'allScheduled';
    case 'pending':
      return `pending ${c.pods.text} = ${c.count}`;
    case 'distinctNodes':
      return `distinctNodes ${c.pods.text}`;
    case 'distinctZones':
      return `distinctZones ${c.pods.text} >= ${c.min}`;
    case 'maxPerNode':
      return `maxPerNode ${c.pods.text} <= ${c.max}`;
    case 'nodeCount':
      return `nodeCount${c.nodePool ? ` ${c.nodePool}` : ''}${c.min !== undefined ? ` >= ${c.min}` : ''}${c.max !== undefined ? ` <= ${c.max}` : ''}`;
    case 'rolloutComplete':
      return `rolloutComplete ${c.deployment} within ${fmt(c.withinMs)}`;
    case 'rolloutStuck':
      return `rolloutStuck ${c.deployment} for ${fmt(c.forMs)}`;
    case 'availableReplicas':
      return `availableReplicas ${c.deployment} >= ${c.min}${c.throughout ? ' throughout' : ''}`;
    case 'disruptions':
      return `disruptions${c.reason ? ` ${c.reason}` : ''}${c.min !== undefined ? ` >= ${c.min}` : ''}${c.max !== undefined ? ` <= ${c.max}` : ''}${c.maxConcurrent !== undefined ? `, at most ${c.maxConcurrent} at once` : ''}`;
  }
}

/** Evaluates a check now: passed plus what was observed. */
export function evaluate(sim: Simulation, c: Check, rollouts: RolloutTracker): { passed: boolean; detail: string } {
  const { cluster } = sim.world;
  switch (c.type) {
    case 'allScheduled': {
      const pending = [...cluster.pods()].filter((p) => !p.nodeName && !p.terminating);
      return { passed: pending.length === 0, detail: pending.length === 0 ? 'every pod is bound' : `${pending.length} pending: ${pending.slice(0, 5).map((p) => p.key).join(', ')}${pending.length > 5 ? ', …' : ''}` };
    }
    case 'pending': {
      const n = selected(sim, c.pods).filter((p) => !p.nodeName).length;
      return { passed: n === c.count, detail: `${n} pending` };
    }
    case 'distinctNodes': {
      const pods = selected(sim, c.pods).filter((p) => p.nodeName);
      const byNode = groupCount(pods.map((p) => p.nodeName));
      const shared = [...byNode].filter(([, n]) => n > 1);
      return { passed: shared.length === 0, detail: shared.length === 0 ? `${pods.length} pods on ${byNode.size} nodes` : `shared nodes: ${shared.map(([node, n]) => `${node} has ${n}`).join(', ')}` };
    }
    case 'distinctZones': {
      const zones = new Set(selected(sim, c.pods).filter((p) => p.nodeName).map((p) => cluster.nodeInfo(p.nodeName)?.node.labels[LABEL_ZONE] ?? ''));
      return { passed: zones.size >= c.min, detail: `${zones.size} zone(s): ${[...zones].sort().join(', ') || 'none'}` };
    }
    case 'maxPerNode': {
      const byNode = groupCount(selected(sim, c.pods).filter((p) => p.nodeName).map((p) => p.nodeName));
      const worst = [...byNode].sort((a, b) => b[1] - a[1])[0];
      return { passed: !worst || worst[1] <= c.max, detail: worst ? `most on one node: ${worst[1]} on ${worst[0]}` : 'no pods bound' };
    }
    case 'nodeCount': {
      const nodes = cluster.nodeInfos().filter((i) => !c.nodePool || i.node.labels[LABEL_NODEPOOL] === c.nodePool);
      const n = nodes.length;
      return { passed: (c.min === undefined || n >= c.min) && (c.max === undefined || n <= c.max), detail: `${n} node(s)` };
    }
    case 'rolloutComplete': {
      const start = rollouts.startedAt(c.deployment);
      const done = rollouts.completedAt(c.deployment);
      if (start === undefined) return { passed: false, detail: 'no rollout was started' };
      if (done === undefined) return { passed: false, detail: `not complete ${fmt(sim.engine.now - start)} after it started${deploymentDetail(sim, c.deployment)}` };
      return { passed: done - start <= c.withinMs, detail: `completed in ${fmt(done - start)}` };
    }
    case 'rolloutStuck': {
      const start = rollouts.startedAt(c.deployment);
      if (start === undefined) return { passed: false, detail: 'no rollout was started' };
      const done = rollouts.completedAt(c.deployment);
      if (done !== undefined) return { passed: false, detail: `completed in ${fmt(done - start)}` };
      const waited = sim.engine.now - start;
      return { passed: waited >= c.forMs, detail: `incomplete for ${fmt(waited)}${deploymentDetail(sim, c.deployment)}` };
    }
    case 'availableReplicas': {
      const d = sim.deployments.objects.get(c.deployment);
      if (!d) return { passed: false, detail: `no Deployment ${c.deployment}` };
      return { passed: d.status.availableReplicas >= c.min, detail: `${d.status.availableReplicas} available` };
    }
    case 'disruptions': {
      const { done, mostAtOnce } = disruptionCounts(sim, c.reason);
      const passed = (c.min === undefined || done >= c.min) && (c.max === undefined || done <= c.max) && (c.maxConcurrent === undefined || mostAtOnce <= c.maxConcurrent);
      return { passed, detail: `${done} node(s) disrupted, at most ${mostAtOnce} at once` };
    }
  }
}

/** From the event log: nodes the disruption loop deleted, and the most it was disrupting at one time. */
function disruptionCounts(sim: Simulation, reason: string | undefined): { done: number; mostAtOnce: number } {
  let done = 0, now = 0, mostAtOnce = 0;
  for (const r of sim.engine.log) {
    if (reason !== undefined && r['reason'] !== reason) continue;
    if (r.type === 'Disrupting') now += String(r['nodes']).split(',').length;
    else if (r.type === 'DisruptionFailed') now -= String(r['nodes']).split(',').length;
    else if (r.type === 'NodeDisrupted') {
      now--;
      done++;
    } else continue;
    mostAtOnce = Math.max(mostAtOnce, now);
  }
  return { done, mostAtOnce };
}

function deploymentDetail(sim: Simulation, key: string): string {
  const d = sim.deployments.objects.get(key);
  if (!d) return '';
  const progressing = sim.deployments.condition(d, 'Progressing');
  const s = d.status;
  return ` (${s.updatedReplicas}/${d.replicas} updated, ${s.availableReplicas} available${progressing?.reason === 'ProgressDeadlineExceeded' ? ', ProgressDeadlineExceeded' : ''})`;
}

function groupCount(keys: readonly string[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const k of keys) m.set(k, (m.get(k) ?? 0) + 1);
  return m;
}

/**
 * Arms every expectation on the simulation: timed ones at their time,
 * `throughout` ones after every event from their start on. `finish`, called when
 * the run has ended, evaluates the rest and returns every result in order.
 */
export function armExpectations(sim: Simulation, expectations: readonly Expectation[], rollouts: RolloutTracker): { finish: () => ExpectationResult[] } {
  const results: (ExpectationResult | undefined)[] = [];
  const atEnd: (() => void)[] = [];
  expectations.forEach((e, i) => {
    const name = checkName(e.check);
    const record = (passed: boolean, detail: string) => (results[i] = { name, passed, detail, source: e.source });
    if (e.check.type === 'availableReplicas' && e.check.throughout) {
      const from = e.at ?? 0;
      let failure: string | undefined;
      sim.engine.afterEach(() => {
        if (failure !== undefined || sim.engine.now < from) return;
        const r = evaluate(sim, e.check, rollouts);
        if (!r.passed) failure = `${r.detail} at ${fmt(sim.engine.now)}`;
      });
      atEnd.push(() => record(failure === undefined, failure ?? `held from ${fmt(from)} to ${fmt(sim.engine.now)}`));
      return;
    }
    const run = () => {
      const r = evaluate(sim, e.check, rollouts);
      record(r.passed, r.detail);
    };
    if (e.at === undefined) atEnd.push(run);
    else sim.engine.at(e.at, 'expect', run);
  });
  return {
    finish: () => {
      for (const f of atEnd) f();
      return results.map((r, i) => r ?? { name: checkName(expectations[i]!.check), passed: false, detail: 'the run ended before this time', source: expectations[i]!.source });
    },
  };
}
