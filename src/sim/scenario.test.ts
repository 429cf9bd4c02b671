import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { loadScenario, scenarioJsonSchema } from '../io/scenario.js';
import { runScenarioText } from './fixtures.test-support.js';

const DIR = 'examples/scenarios';

function run(file: string) {
  return runScenarioText(file, readFileSync(file, 'utf8'));
}

describe('example scenarios', () => {
  for (const name of readdirSync(DIR).filter((f) => f.endsWith('.yaml'))) {
    it(`${name}: every expectation passes`, () => {
      const r = run(`${DIR}/${name}`);
      assert.ok(r.expectations.length > 0);
      for (const e of r.expectations) assert.ok(e.passed, `${e.name}: ${e.detail}`);
    });
  }

  it('the same scenario twice gives the same event log', () => {
    const a = run(`${DIR}/apiserver-anti-affinity.yaml`);
    const b = run(`${DIR}/apiserver-anti-affinity.yaml`);
    assert.equal(JSON.stringify(a.events), JSON.stringify(b.events));
  });

  it('the anti-affinity scale-up launches exactly two nodes through the provisioner', () => {
    const r = run(`${DIR}/apiserver-anti-affinity.yaml`);
    assert.equal(r.events.filter((e) => e.type === 'NodeClaimLaunched').length, 2);
  });
});

describe('scenario errors', () => {
  const bad = (spec: string) => loadScenario({ name: 's.yaml', text: `apiVersion: berth.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec:\n${spec}` });
  const cases: { name: string; spec: string; want: RegExp }[] = [
    { name: 'two actions in a step', spec: '  steps:\n  - at: 1s\n    cordon: {node: a}\n    drain: {node: a}\n', want: /s\.yaml:6:\d+: .*spec\.steps\[0\]: .*exactly one action/ },
    { name: 'a bad duration', spec: '  steps:\n  - at: 5 minutes\n    cordon: {node: a}\n', want: /s\.yaml:6:\d+: .*spec\.steps\[0\]\.at: Invalid value: "5 minutes"/ },
    { name: 'steps out of order', spec: '  steps:\n  - at: 2m\n    cordon: {node: a}\n  - at: 1m\n    uncordon: {node: a}\n', want: /spec\.steps\[1\]\.at: .*time order/ },
    { name: 'an unknown action', spec: '  steps:\n  - at: 1s\n    explode: {node: a}\n', want: /spec\.steps\[0\]/ },
    {
      name: 'an invalid NodePool in updateNodePool, at its field',
      spec: '  steps:\n  - at: 1s\n    updateNodePool:\n      metadata: {name: default}\n      spec:\n        template: {spec: {requirements: [], nodeClassRef: {group: g, kind: K, name: d}, expireAfter: 1 day}}\n',
      want: /s\.yaml:10:\d+: .*spec\.steps\[0\]\.updateNodePool\.spec\.template\.spec\.expireAfter: Invalid value: "1 day"/,
    },
    { name: 'an unknown disruption setting', spec: '  disruption: {enabled: true, consolidate: true}\n', want: /s\.yaml:5:\d+: .*spec\.disruption/ },
    { name: 'an unknown disruption reason', spec: '  expect:\n  - disruptions: {reason: Bored}\n', want: /spec\.expect\[0\]\.disruptions\.reason/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = bad(c.spec);
      assert.equal(r.ok, false);
      const text = !r.ok ? r.errors.map((d) => `${d.file}:${d.line}:${d.column}: ${d.object ?? ''}: ${d.field ?? ''}: ${d.message}`).join('\n') : '';
      assert.match(text, c.want);
    });
  }
});

describe('scenario JSON Schema', () => {
  it('docs/scenario.schema.json is what the validator exports (run npm run scenario-schema after a change)', () => {
    assert.deepEqual(JSON.parse(readFileSync('docs/scenario.schema.json', 'utf8')), scenarioJsonSchema());
  });
});
