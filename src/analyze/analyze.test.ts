import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze, hasErrors } from './analyze.js';
import type { Check } from './check.js';
import type { Finding, Severity } from './finding.js';
import { toJson } from './report.js';
import { contextOf, fileText, inputOf, nodesYaml } from './test-input.js';

const finding = (severity: Severity, rule: string, object: string): Finding => ({ severity, rule, object, message: `${rule} ${object}`, evidence: [], fix: [] });

const fixed = (rule: string, findings: Finding[]): Check => ({ rule, description: rule, run: () => findings });

describe('analyze', () => {
  it('orders findings by severity, then rule, then object, whatever order the checks return them in', () => {
    const checks = [
      fixed('zeta', [finding('info', 'zeta', 'Deployment/a/x'), finding('error', 'zeta', 'Deployment/b/y')]),
      fixed('alpha', [finding('warning', 'alpha', 'StatefulSet/a/z'), finding('error', 'alpha', 'Deployment/c/z'), finding('error', 'alpha', 'Deployment/a/z')]),
    ];
    const out = analyze(contextOf(inputOf(nodesYaml(1))), checks);
    assert.deepEqual(
      out.map((f) => `${f.severity} ${f.rule} ${f.object}`),
      ['error alpha Deployment/a/z', 'error alpha Deployment/c/z', 'error zeta Deployment/b/y', 'warning alpha StatefulSet/a/z', 'info zeta Deployment/a/x'],
    );
    assert.equal(hasErrors(out), true);
    assert.equal(hasErrors(out.filter((f) => f.severity !== 'error')), false);
  });

  it('tells onCheck each check\'s own findings as it runs, in check order, before the sorted report', () => {
    const heard: string[] = [];
    const checks = [fixed('zeta', [finding('info', 'zeta', 'Deployment/a/x')]), fixed('alpha', []), fixed('beta', [finding('error', 'beta', 'Deployment/a/y')])];
    const out = analyze(contextOf(inputOf(nodesYaml(1))), checks, (rule, found) => heard.push(`${rule}:${found.map((f) => f.object).join(',')}`));
    assert.deepEqual(heard, ['zeta:Deployment/a/x', 'alpha:', 'beta:Deployment/a/y']);
    assert.deepEqual(out.map((f) => f.rule), ['beta', 'zeta']);
  });

  it('is deterministic: two analyses of the same manifests (loaded twice) give the same report', () => {
    const once = () => JSON.stringify(toJson(analyze(contextOf(inputOf(fileText('examples/rolling-update-deadlock.yaml'))))));
    const first = once();
    assert.match(first, /rollout-deadlock/);
    assert.equal(once(), first);
  });
});
