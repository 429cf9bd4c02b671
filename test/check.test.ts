// `berth check` through the command line: exit codes, the JSON and SARIF forms,
// and the incidents of examples/ flagged with a fix that re-checks clean.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { FindingJson } from '../src/analyze/report.js';

function check(...args: string[]) {
  const r = spawnSync(process.execPath, ['bin/berth.js', 'check', ...args], { encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** How many findings (JSON) or results (SARIF) a report has. */
const findingsOrResults = (stdout: string) => {
  const r = JSON.parse(stdout) as { findings?: unknown[]; runs?: { results: unknown[] }[] };
  return r.findings?.length ?? r.runs![0]!.results.length;
};

const findingsOf = (stdout: string) => (JSON.parse(stdout) as { findings: FindingJson[] }).findings;

describe('berth check', () => {
  it('the rolling-update deadlock: exit 1, rollout-deadlock in the JSON contract', () => {
    const r = check('-f', 'examples/rolling-update-deadlock.yaml', '-o', 'json');
    assert.equal(r.status, 1, r.stderr);
    const findings = findingsOf(r.stdout);
    const f = findings.find((x) => x.rule === 'rollout-deadlock');
    assert.ok(f, r.stdout);
    assert.deepEqual(Object.keys(f), ['severity', 'rule', 'object', 'message', 'evidence', 'fix', 'patches']);
    assert.deepEqual(f.patches![0], [{ object: 'Deployment/default/web', type: 'merge', patch: { spec: { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } } } } }]);
    assert.equal(f.severity, 'error');
    assert.equal(f.object, 'Deployment/default/web');
    assert.match(f.fix[0]!, /maxSurge: 0, maxUnavailable: 1/);
  });

  it('the same manifest with the first fix written into it checks clean (exit 0)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-check-'));
    const fixed = join(dir, 'fixed.yaml');
    const text = readFileSync('examples/rolling-update-deadlock.yaml', 'utf8');
    assert.ok(text.includes('rollingUpdate: {maxSurge: 1, maxUnavailable: 0}'));
    writeFileSync(fixed, text.replace('rollingUpdate: {maxSurge: 1, maxUnavailable: 0}', 'rollingUpdate: {maxSurge: 0, maxUnavailable: 1}'));
    const r = check('-f', fixed, '-o', 'json');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.deepEqual(findingsOf(r.stdout).filter((f) => f.rule === 'rollout-deadlock'), []);
  });

  it('SARIF points at the Deployment\'s metadata.name line', () => {
    const r = check('-f', 'examples/rolling-update-deadlock.yaml', '-o', 'sarif');
    assert.equal(r.status, 1);
    const sarif = JSON.parse(r.stdout) as { runs: { results: { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }[] }[] }[] };
    const result = sarif.runs[0]!.results.find((x) => x.ruleId === 'rollout-deadlock')!;
    const loc = result.locations[0]!.physicalLocation;
    assert.equal(loc.artifactLocation.uri, 'examples/rolling-update-deadlock.yaml');
    const lines = readFileSync('examples/rolling-update-deadlock.yaml', 'utf8').split('\n');
    assert.match(lines[loc.region.startLine - 1]!, /kind: Deployment|metadata: \{name: web,/);
  });

  it('kube-dns with required anti-affinity on one node: the second replica fits nowhere (exit 1), and required-vs-preferred recommends preferred', () => {
    const r = check('-f', 'examples/kube-dns-required.yaml', '-o', 'json');
    assert.equal(r.status, 1, r.stderr);
    const findings = findingsOf(r.stdout);
    assert.deepEqual(findings.filter((x) => x.severity === 'error').map((x) => x.rule).sort(), ['node-loss', 'unsatisfiable']);
    const f = findings.find((x) => x.rule === 'required-vs-preferred');
    assert.equal(f?.severity, 'warning');
    assert.equal(f.fix[0], 'use preferred pod anti-affinity instead of required pod anti-affinity in Deployment/kube-system/kube-dns');
  });

  it('--cluster takes a kubectl dump; workloads of the dump are checked against it', () => {
    const r = check('--cluster', 'test/fixtures/kubectl-dump-workloads.yaml', '-o', 'json');
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.deepEqual(findingsOf(r.stdout).filter((f) => f.severity === 'error'), []);
  });

  it('-f takes precedence over the dump: a changed Deployment is checked as a rollout from the pods running', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-check-'));
    const change = join(dir, 'web.yaml');
    writeFileSync(
      change,
      `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}
      containers: [{name: web, image: "nginx:1.28", resources: {requests: {cpu: 500m, memory: 512Mi}}}]
`,
    );
    const r = check('-f', change, '--cluster', 'test/fixtures/kubectl-dump-workloads.yaml', '-o', 'json');
    assert.equal(r.status, 1, r.stdout + r.stderr);
    const f = findingsOf(r.stdout).find((x) => x.rule === 'rollout-deadlock');
    assert.match(f?.message ?? '', /^the rollout of Deployment\/default\/web to its template is stuck .*didn't match pod anti-affinity rules/);
    assert.match(f!.fix[0]!, /maxSurge: 0, maxUnavailable: 1/);
  });

  it('--fix-dir writes the patched objects; those read from stdin go into stdin.yaml', () => {
    const dir = mkdtempSync(join(tmpdir(), 'berth-fixdir-'));
    const text = readFileSync('examples/rolling-update-deadlock.yaml', 'utf8');
    const r = spawnSync(process.execPath, ['bin/berth.js', 'check', '-f', '-', '--fix-dir', dir], { encoding: 'utf8', input: text });
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /--fix-dir: wrote \d+ object\(s\)/);
    const fixed = readFileSync(join(dir, 'stdin.yaml'), 'utf8');
    assert.match(fixed, /kind: Deployment/);
    assert.match(fixed, /maxSurge: 0\n\s+maxUnavailable: 1/);
    const again = check('-f', join(dir, 'stdin.yaml'), '--cluster', 'examples/rolling-update-deadlock.yaml', '-o', 'json');
    assert.deepEqual(findingsOf(again.stdout).filter((f) => f.rule === 'rollout-deadlock'), []);
  });

  it('--jobs 2 and 3 (worker threads) print byte for byte what --jobs 1 prints, the input read from stdin once', () => {
    const input = readFileSync('examples/kube-dns-stacked-after-recovery.yaml', 'utf8');
    const run = (jobs: string, output: string) => spawnSync(process.execPath, ['bin/berth.js', 'check', '-f', '-', '-o', output, '--jobs', jobs], { encoding: 'utf8', input });
    for (const [output, jobs] of [['json', '3'], ['sarif', '2']] as const) {
      const one = run('1', output);
      const more = run(jobs, output);
      assert.ok(findingsOrResults(one.stdout) > 0, one.stdout + one.stderr);
      assert.equal(more.stdout, one.stdout, more.stderr);
      assert.equal(more.status, one.status);
    }
  });

  it('--jobs must be a whole number of workers', () => {
    const r = check('-f', 'examples/kube-dns-required.yaml', '--jobs', '0');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--jobs.*whole number of workers/);
  });

  it('bad input: exit 2 with file:line:column', () => {
    const r = check('-f', 'test/fixtures/invalid-quantity.yaml');
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^error: test\/fixtures\/invalid-quantity.yaml:\d+:\d+: /);
    assert.equal(check('-f', 'examples/kube-dns-required.yaml', '--provisioner', 'maybe').status, 2);
  });
});
