import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadSources } from '../io/load.js';
import type { HeadroomResult } from '../analyze/headroom.js';
import { deploymentYaml, listYaml, nodeYaml } from '../analyze/test-input.js';
import { CAPACITY_BUFFER_FILE, HEADROOM_FILE } from './headroom.js';

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));

function berth(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', MAIN, ...args], { maxBuffer: 64 * 1024 * 1024 }, (e, stdout, stderr) => resolve({ code: e ? Number(e.code ?? 1) : 0, stdout, stderr }));
  });
}

// Three full 1-CPU nodes, one per zone, six 500m replicas: a lost node's two replicas have nowhere to go.
const dir = mkdtempSync(join(tmpdir(), 'berth-headroom-'));
const cluster = join(dir, 'cluster.yaml');
writeFileSync(cluster, listYaml(nodeYaml('n1', 'us-west-2a', '1'), nodeYaml('n2', 'us-west-2b', '1'), nodeYaml('n3', 'us-west-2c', '1'), deploymentYaml('web', 6)));

describe('check --headroom', () => {
  test('-o json and --fix-dir: spare nodes in two zones, every loss re-simulated with them, the written nodes load strictly', async () => {
    const out = join(dir, 'fix');
    const r = await berth('check', '--headroom', '--headroom-recovery', '7m', '--cluster', cluster, '-o', 'json', '--fix-dir', out);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as HeadroomResult;
    assert.equal(result.recoveryS, 420);
    assert.deepEqual(result.zones.map((z) => z.count), [0, 1, 1]);
    assert.equal(result.met, true);
    assert.deepEqual(result.verified, { node: 5, zone: 3 });
    const text = readFileSync(join(out, HEADROOM_FILE), 'utf8');
    const loaded = loadSources([{ name: HEADROOM_FILE, text }], { validate: 'strict' });
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors));
    assert.deepEqual(loaded.input.nodes.map((n) => n.name), ['headroom-us-west-2b-1', 'headroom-us-west-2c-1']);
  });

  test('examples/headroom (README): a placeholder in each of two zones brings web back before a node launch would; the written manifests load with the example, strictly', async () => {
    const out = join(dir, 'example');
    const files = ['-f', 'examples/headroom/shop.yaml', '-f', 'examples/nodepools/default.yaml', '--cluster', 'examples/headroom/cluster.yaml'];
    const r = await berth('check', '--headroom', ...files, '--fix-dir', out);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /placeholder pods of 900m cpu \/ 1Gi/);
    assert.match(r.stdout, /us-west-2a +0 +0 +0\nus-west-2b +1 +900m +1Gi\nus-west-2c +1 +900m +1Gi/);
    assert.match(r.stdout, /node node-a +Deployment\/default\/web +2 +6m28s +5m47s/);
    assert.match(r.stdout, /every workload recovers within the target/);
    const texts = [HEADROOM_FILE, 'examples/headroom/shop.yaml', 'examples/nodepools/default.yaml', 'examples/headroom/cluster.yaml'].map((f) => ({ name: f, text: readFileSync(f === HEADROOM_FILE ? join(out, f) : f, 'utf8') }));
    const loaded = loadSources(texts, { validate: 'strict' });
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors));
    assert.deepEqual(loaded.input.workloads.filter((w) => w.namespace === 'berth-headroom').map((w) => `${w.name} ${w.replicas} ${w.templatePod.priority}`), ['headroom-us-west-2b 1 -10', 'headroom-us-west-2c 1 -10']);
    assert.match(readFileSync(join(out, CAPACITY_BUFFER_FILE), 'utf8'), /kind: CapacityBuffer\nmetadata:\n {2}name: headroom-us-west-2b/);
  });

  test('the table names the losses with their recovery without and with the headroom; a target below the eviction delay exits 1', async () => {
    const r = await berth('check', '--headroom', '--headroom-recovery', '2m', '--cluster', cluster);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stdout, /^headroom for recovery within 2m00s/);
    assert.match(r.stdout, /node n1 +Deployment\/default\/web +2 +not whole/);
    assert.match(r.stdout, /NOT MET/);
  });

  test('--headroom-recovery without --headroom is refused', async () => {
    const r = await berth('check', '--headroom-recovery', '5m', '--cluster', cluster);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--headroom-recovery needs --headroom/);
  });
});
