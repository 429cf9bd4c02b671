// `berth preview` against what the live controller then does: a NodePool template
// edit previewed on the running cluster (--kubeconfig, the edit given with -f)
// names the nodes that `berth controller --disruption` replaces once the edit is
// applied, in the order it replaces them. The nodes are the controller's own,
// stamped with the NodePool hash at launch as Karpenter stamps its NodeClaims.

import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Preview } from '../../src/analyze/preview.js';
import type { KubeObject } from '../../src/live/objects.js';
import { allRunning, apply, berth, controller, controllerLog, deployment, e2eFile, kwokNodes, nodePool, RUN, scenario, waitFor } from './harness.js';

const timings = e2eFile('e2e preview-controller');

/** Drift only: nothing is empty and consolidation waits an hour, so the roll is all that happens. */
const DRIFT_ONLY = { consolidationPolicy: 'WhenEmpty', consolidateAfter: '1h', budgets: [{ nodes: '100%' }] };

/** The pool's template with a label added: a new hash, so every node launched before is drifted. */
function edited(pool: KubeObject): KubeObject {
  const spec = pool.spec as { template: { metadata?: { labels?: Record<string, string> } } };
  return { ...pool, spec: { ...spec, template: { ...spec.template, metadata: { labels: { team: 'payments' } } } } };
}

test('preview of a NodePool edit names the nodes the live controller then replaces, in its order', async () => {
  const ns = 'e2e-preview-drift';
  await scenario(ns, [['default', { disruption: DRIFT_ONLY }]], async () => {
    // The only replica: a long lease, so a busy machine's slow renewal does not cut a decision short (a
    // replacement left over from one changes the next decisions, which preview cannot know).
    const c = await controller(['--disruption', '--disruption-poll', '1s', '--disruption-validation', '2s', '--lease-duration', '60s', '--renew-deadline', '45s', '--retry-period', '2s'], 'preview-drift');
    // One pod per node (required hostname anti-affinity): an evicted pod can only go to a replacement.
    await apply(deployment(ns, 'web', 3, {
      affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'web' } } }] } },
    }));
    await allRunning(ns, 'web', 3);
    // Registration copies the claim's annotations, the NodePool hash among them, to the Node.
    const before = await waitFor('three nodes registered with their NodePool hash', async () => {
      const nodes = await kwokNodes();
      return nodes.length === 3 && nodes.every((n) => /^\d+$/.test(n.metadata?.annotations?.['karpenter.sh/nodepool-hash'] ?? '')) ? nodes : undefined;
    });

    const edit = edited(nodePool('default', { disruption: DRIFT_ONLY }));
    const file = join(mkdtempSync(join(tmpdir(), 'berth-preview-')), 'nodepool.json');
    writeFileSync(file, JSON.stringify(edit));
    const r = berth('preview', '--kubeconfig', join(RUN, 'kubeconfig'), '-f', file, '--until', '1h', '-o', 'json');
    assert.equal(r.status, 0, r.stderr);
    const p = JSON.parse(r.stdout) as Preview;
    assert.deepEqual(p.drifted.map((d) => d.node).sort(), before.map((n) => n.metadata!.name!).sort(), 'every node drifts');
    const predicted = p.disruptions.filter((d) => d.reason === 'Drifted').flatMap((d) => d.nodes);
    assert.equal(predicted.length, 3, r.stdout);

    const t0 = Date.now();
    await apply(edit);
    const replaced = await waitFor('the three nodes replaced', async () => {
      const done = controllerLog(c).filter((l) => l.msg === 'node disrupted' && l.reason === 'Drifted').map((l) => String(l.node));
      return done.length >= 3 ? done : undefined;
    }, 240_000);
    timings.editToRolled = Date.now() - t0;
    assert.ok(!controllerLog(c).some((l) => l.msg === 'no longer leading: the decision under way stops here'), 'no decision was cut short');
    assert.deepEqual(replaced, predicted, 'the controller replaced the nodes preview named, in its order');
    const old = new Set(predicted);
    const after = await waitFor('the old nodes gone', async () => {
      const nodes = await kwokNodes();
      return nodes.every((n) => !old.has(n.metadata!.name!)) ? nodes : undefined;
    });
    assert.ok(after.every((n) => n.metadata?.labels?.team === 'payments'), 'the replacements come from the edited template');
    await allRunning(ns, 'web', 3);
  });
});
