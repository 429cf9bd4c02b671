import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Check } from './check.js';
import type { Finding } from './finding.js';
import { formatText, toJson, toSarif } from './report.js';

const f: Finding = {
  severity: 'error',
  rule: 'rollout-deadlock',
  object: 'Deployment/default/web',
  message: 'stuck',
  evidence: ['t=1m0s: change'],
  fix: ['maxSurge 0'],
  remedies: [{ description: 'maxSurge 0', apply: (i) => i }],
};
const info: Finding = { severity: 'info', rule: 'other', object: 'Deployment/default/api', message: 'fine', evidence: [], fix: [] };
const checks: Check[] = [{ rule: 'rollout-deadlock', description: 'rollouts complete', run: () => [] }];

describe('report', () => {
  it('JSON is exactly the contract: a verdict per object, and per finding severity, rule, object, message, evidence, fix — no remedies', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(toJson([f]))), {
      verdicts: [{ object: 'Deployment/default/web', severity: 'error' }],
      findings: [{ severity: 'error', rule: 'rollout-deadlock', object: 'Deployment/default/web', message: 'stuck', evidence: ['t=1m0s: change'], fix: ['maxSurge 0'] }],
    });
  });

  it('JSON carries each fix\'s patches, aligned with the fixes (null for advice)', () => {
    const patched: Finding = { ...f, fix: ['maxSurge 0', 'advice: more nodes'], remedies: [{ ...f.remedies![0]!, patches: [{ object: 'Deployment/default/web', type: 'merge', patch: { spec: { replicas: 3 } } }] }] };
    assert.deepEqual(toJson([patched]).findings[0]!.patches, [[{ object: 'Deployment/default/web', type: 'merge', patch: { spec: { replicas: 3 } } }], null]);
  });

  it('table: a verdict line per object (its most severe finding), one line per finding, and a count', () => {
    const warn: Finding = { ...info, severity: 'warning', object: 'Deployment/default/web', rule: 'node-loss', message: 'slow' };
    const text = formatText([info, warn, f]);
    assert.equal(
      text,
      [
        'ERROR   Deployment/default/web',
        '  warning node-loss         slow',
        '  error   rollout-deadlock  stuck [1 fix]',
        'INFO    Deployment/default/api',
        '  info    other             fine',
        '',
        '3 finding(s) on 2 object(s): 1 error(s), 1 warning(s), 1 info; -v shows evidence and fixes',
      ].join('\n'),
    );
    assert.equal(formatText([]), 'no findings');
  });

  it('-v: evidence and numbered fixes under each finding', () => {
    assert.match(formatText([f], { verbose: true }), /^ERROR {3}Deployment\/default\/web\n {2}error {3}rollout-deadlock {2}stuck\n {4}evidence:\n {6}- t=1m0s: change\n {4}fix:\n {6}1\. maxSurge 0\n/);
  });

  it('SARIF 2.1.0: a rule per check, levels mapped, located at the object in its file when known', () => {
    const sarif = toSarif([f, info], checks, new Map([['Deployment/default/web', { file: 'app.yaml', line: 7, column: 9 }]]), '0.1.0') as {
      version: string;
      runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string; ruleIndex: number; level: string; message: { text: string }; locations: { physicalLocation?: unknown; logicalLocations: unknown[] }[] }[] }[];
    };
    assert.equal(sarif.version, '2.1.0');
    const run = sarif.runs[0]!;
    assert.deepEqual(run.tool.driver.rules.map((r) => r.id), ['rollout-deadlock', 'other']);
    assert.deepEqual(run.results.map((r) => [r.ruleId, r.ruleIndex, r.level]), [['rollout-deadlock', 0, 'error'], ['other', 1, 'note']]);
    assert.deepEqual(run.results[0]!.locations[0]!.physicalLocation, { artifactLocation: { uri: 'app.yaml' }, region: { startLine: 7, startColumn: 9 } });
    assert.equal(run.results[1]!.locations[0]!.physicalLocation, undefined);
    assert.deepEqual(run.results[1]!.locations[0]!.logicalLocations, [{ fullyQualifiedName: 'Deployment/default/api', kind: 'resource' }]);
    assert.equal(run.results[0]!.message.text, 'stuck\n- t=1m0s: change\nfix 1: maxSurge 0');
  });
});
