// kube-scheduler's feature gates reach every simulation: the scenario runner (simulate,
// preview), the what-ifs of check, and the command lines of check, simulate and preview.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { simulateWhatIf } from '../src/analyze/what-if.js';
import { loadSources } from '../src/io/load.js';
import { bundledInstanceTypes } from '../src/provisioner/catalog/catalog.js';
import { runScenario } from '../src/sim/scenario.js';

const FIXTURE = new URL('./fixtures/storage-capacity-scoring.yaml', import.meta.url);
const text = readFileSync(FIXTURE, 'utf8');
const OFF = { featureGates: { StorageCapacityScoring: false } };

function loaded() {
  const r = loadSources([{ name: 'objects.yaml', text }]);
  assert.ok(r.ok);
  return r.input;
}

const nodeOf = (nodes: readonly { name: string; pods: string[] }[], pod: string) => nodes.find((n) => n.pods.includes(pod))?.name;
const spec = { name: 't', seed: 0, untilMs: 60_000, provisioner: { enabled: false }, timing: {}, steps: [], expect: [] };

describe('--feature-gates in simulations', () => {
  it('runScenario (simulate, preview): StorageCapacityScoring decides where the pod lands', () => {
    const on = runScenario(loaded(), spec, { instanceTypes: [] });
    const off = runScenario(loaded(), spec, { instanceTypes: [], schedulerConfig: OFF });
    assert.deepEqual([nodeOf(on.final.nodes, 'default/db'), nodeOf(off.final.nodes, 'default/db')], ['node-a', 'node-b']);
  });

  it("check's what-ifs run with the context's gates", () => {
    const ctx = { input: loaded(), instanceTypes: bundledInstanceTypes(), provisioner: false, seed: 0 };
    const what = { name: 'baseline', steps: [], untilMs: 60_000 };
    assert.equal(nodeOf(simulateWhatIf(ctx, what).final.nodes, 'default/db'), 'node-a');
    assert.equal(nodeOf(simulateWhatIf({ ...ctx, scheduler: OFF }, what).final.nodes, 'default/db'), 'node-b');
  });
});

describe('--feature-gates on the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'berth-gates-'));
  const objects = join(dir, 'objects.yaml');
  writeFileSync(objects, text);
  const scenario = join(dir, 'scenario.yaml');
  writeFileSync(scenario, `apiVersion: berth.dev/v1alpha1\nkind: Scenario\nmetadata: {name: gates}\nspec:\n  until: 1m\n  objects: [{files: [objects.yaml]}]\n`);

  // A child process: the test runner's own report goes to this process's stdout.
  const cli = (...argv: string[]) => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...argv], { cwd: new URL('..', import.meta.url), encoding: 'utf8' });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it('simulate --feature-gates StorageCapacityScoring=false moves the pod to node-b', () => {
    const placed = (...gates: string[]) => {
      const r = cli('simulate', scenario, '-o', 'json', ...gates);
      assert.equal(r.code, 0, r.err);
      const final = (JSON.parse(r.out) as { final: { pods: { pod: string; node: string }[] } }).final;
      return final.pods.find((p) => p.pod === 'default/db')?.node;
    };
    assert.deepEqual([placed(), placed('--feature-gates', 'StorageCapacityScoring=false')], ['node-a', 'node-b']);
  });

  for (const argv of [['check', '-f', objects], ['preview', '--cluster', objects]]) {
    it(`${argv[0]} takes --feature-gates, refusing a gate kube-scheduler does not know in its words`, () => {
      const bad = cli(...argv, '--feature-gates', 'Bogus=true');
      assert.equal(bad.code, 2);
      assert.match(bad.err, /unrecognized feature gate: Bogus/);
    });
  }
});
