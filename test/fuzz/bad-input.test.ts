import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { CliRunner, problems } from './harness.js';
import { fuzzCase, type FuzzCase } from './inputs.js';

// The CI sample of the nightly bad-input run (`npm run fuzz -- --runs 100000 --seed S`),
// and one test per class of error message the fuzzer meets, each with its exact text.

const runner = new CliRunner();
after(() => runner.close());

describe('bad input through the CLI (CI sample)', () => {
  it('every input ends in exit 0, 1 or 2 with file:line:column messages, no stack trace, within the budget', async () => {
    await fc.assert(
      fc.asyncProperty(fuzzCase({ huge: false }), async (c) => {
        const o = await runner.run(c);
        assert.deepEqual(problems(c, o), [], `${c.command}: ${c.damage}\n${o.stderr.slice(0, 1000)}`);
      }),
      { numRuns: 120, seed: 20261203 },
    );
  });
});

const POD = (cpu: string, extra = '') => `apiVersion: v1\nkind: Pod\nmetadata: {name: web, namespace: default}\nspec:\n  containers:\n  - name: c\n    image: nginx\n    resources: {requests: {cpu: ${cpu}}}\n${extra}`;
const DEPLOY = (replicas: string, selector = '{matchLabels: {a: b}}') =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: ${replicas}\n  selector: ${selector}\n  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}\n`;
const NAME_PART = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const MINIFIED = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: Array.from({ length: 40 }, (_, i) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `p${i}` }, spec: { containers: [{ name: 'c', image: 'i' }] } })) });
const SCENARIO = (spec: string) => `apiVersion: berth.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  objects:\n  - ${DEPLOY('1').replaceAll('\n', '\n    ').trimEnd()}\n${spec}`;

interface MessageCase {
  readonly name: string;
  readonly text: string;
  readonly file?: string;
  readonly command?: FuzzCase['command'];
  readonly args?: string[];
  readonly code: number;
  readonly stderr: string[];
}

const cases: MessageCase[] = [
  { name: 'deep nesting', text: `a: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`, code: 2, stderr: ['error: F:1:259: invalid YAML: nested more than 256 levels deep', 'berth: 1 error(s) in the input'] },
  { name: 'binary garbage', text: `\u0089PNG\r\n\u001a\n${'\u0000\u00ff'.repeat(3000)}`, code: 2, stderr: ['error: F:1:1: invalid YAML: control character U+0089 is not allowed (is this a binary file?)', 'berth: 1 error(s) in the input'] },
  { name: 'a `|` before minified JSON: the parser quotes the whole line (was 7,385 characters)', file: 'in.json', text: `|${MINIFIED}`, code: 2, stderr: [`error: F:1:2: invalid JSON: Block scalar header includes extra characters: ${`|${MINIFIED}`.slice(0, 120)}…`, 'berth: 1 error(s) in the input'] },
  { name: 'alias bomb', text: 'a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n', code: 2, stderr: ['error: F:1:1: invalid YAML: Excessive alias count indicates a resource exhaustion attack', 'berth: 1 error(s) in the input'] },
  { name: 'malformed YAML', text: 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {app: x}\n', code: 2, stderr: ['error: F:4:1: invalid YAML: Flow map in block collection must be sufficiently indented and end with a }', 'berth: 1 error(s) in the input'] },
  { name: 'wrong type', text: 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: 5\n', code: 2, stderr: ['error: F:5:15: Pod default/web: spec.containers: Invalid type: expected list, got number 5', 'berth: 1 error(s) in the input'] },
  { name: 'wrong type in JSON', file: 'in.json', text: '{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web"}, "spec": {"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": true}}}]}}', code: 2, stderr: ['error: F:1:152: Pod default/web: spec.containers[0].resources.requests.cpu: Invalid type: expected a quantity (string or number), got boolean true', 'berth: 1 error(s) in the input'] },
  { name: 'negative quantity', text: POD('"-1"'), code: 2, stderr: ['error: F:8:33: Pod default/web: spec.containers[0].resources.requests.cpu: Invalid value: "-1": must be greater than or equal to 0', 'berth: 1 error(s) in the input'] },
  { name: 'invalid quantity', text: POD('"1.5.5"'), code: 2, stderr: ['error: F:8:33: Pod default/web: spec.containers[0].resources.requests.cpu: invalid quantity "1.5.5": unknown suffix ".5"', 'berth: 1 error(s) in the input'] },
  { name: 'huge number as a quantity', text: POD('1e308'), code: 2, stderr: ['error: F:8:33: Pod default/web: spec.containers[0].resources.requests.cpu: quantity 1e+308 is too large', 'berth: 1 error(s) in the input'] },
  { name: 'quantity beyond the engine’s integers (was reported at 1:1 with no field)', text: POD('99999999999999999999999Ei'), code: 2, stderr: ['error: F:8:33: Pod default/web: spec.containers[0].resources.requests.cpu: Invalid value: "99999999999999999999999Ei": too large: berth counts cpu in millicores and other resources in units up to 2^53-1', 'berth: 1 error(s) in the input'] },
  { name: 'requests that only overflow once summed', text: `apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers:\n  - {name: a, image: i, resources: {requests: {memory: 5Pi}}}\n  - {name: b, image: i, resources: {requests: {memory: 5Pi}}}\n`, code: 2, stderr: ["error: F:5:3: Pod default/web: spec.containers: Invalid value: the pod's requests add up to more than berth can count (berth counts cpu in millicores and other resources in units up to 2^53-1)", 'berth: 1 error(s) in the input'] },
  { name: 'unknown operator', text: 'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: k, labelSelector: {matchExpressions: [{key: a, operator: Near, values: [x]}]}}]}}\n  containers: [{name: c, image: i}]\n', code: 2, stderr: ['error: F:5:148: Pod default/web: spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator: Unsupported value: "Near": supported values: "In", "NotIn", "Exists", "DoesNotExist"', 'berth: 1 error(s) in the input'] },
  { name: 'empty selector', text: DEPLOY('1', '{}'), code: 2, stderr: ['error: F:6:3: Deployment default/web: spec.selector: Invalid value: {}: empty selector is invalid for deployment', 'berth: 1 error(s) in the input'] },
  { name: 'duplicate name', text: `${POD('1')}---\n${POD('2')}`, code: 2, stderr: ['error: F:12:18: Pod default/web: metadata.name: Duplicate value: "web": already defined at F:3:18', 'berth: 1 error(s) in the input'] },
  { name: 'replicas beyond int32 (hung berth before)', text: DEPLOY('99999999999'), code: 2, stderr: ['error: F:5:13: Deployment default/web: spec.replicas: Invalid value: 99999999999: must be less than or equal to 2147483647', 'berth: 1 error(s) in the input'] },
  { name: 'workloads expanding past 100,000 pods', text: DEPLOY('2000000'), code: 2, stderr: ["error: F:5:13: Deployment default/web: spec.replicas: Invalid value: 2000000: the input's workloads would expand to more than 100000 pods, more than berth builds", 'berth: 1 error(s) in the input'] },
  { name: 'a 10 MB label value (was accepted; validating it then overflowed the stack in two regexes)', text: `apiVersion: v1\nkind: Node\nmetadata: {name: big, labels: {a: ${'v'.repeat(10 * 2 ** 20)}}}\n`, code: 2, stderr: [`error: F:3:35: Node big: metadata.labels.a: Invalid value: "${'v'.repeat(60)}…": must be no more than 63 bytes`, 'berth: 1 error(s) in the input'] },
  { name: 'an invalid label key and value', text: 'apiVersion: v1\nkind: Pod\nmetadata: {name: web, labels: {"bad key!": "x y"}}\nspec: {containers: [{name: c, image: i}]}\n', code: 2, stderr: [`error: F:3:23: Pod default/web: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`, `error: F:3:44: Pod default/web: metadata.labels[bad key!]: Invalid value: "x y": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`, 'berth: 2 error(s) in the input'] },
  { name: 'a `__proto__` label key holding a mapping (was dropped without a word)', text: 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  labels:\n    __proto__: {app: web}\nspec: {containers: [{name: c, image: i}]}\n', code: 2, stderr: [`error: F:5:3: Pod default/web: metadata.labels: Invalid value: "__proto__": ${NAME_PART}`, 'berth: 1 error(s) in the input'] },
  { name: 'a `__proto__` key in nodeSelector and in requests', text: POD('1', '  nodeSelector: {__proto__: x}\n').replace('{cpu: 1}', '{cpu: 1, __proto__: "2"}'), code: 2, stderr: [`error: F:8:17: Pod default/web: spec.containers[0].resources.requests: Invalid value: "__proto__": ${NAME_PART}`, `error: F:9:3: Pod default/web: spec.nodeSelector: Invalid value: "__proto__": ${NAME_PART}`, 'berth: 2 error(s) in the input'] },
  { name: '`constructor` and `prototype` are ordinary label keys', command: 'explain', args: ['web'], text: `apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {constructor: a, prototype: b}}\nstatus: {allocatable: {cpu: "1", memory: 1Gi, pods: "9"}}\n---\n${POD('1', '  nodeSelector: {constructor: a, prototype: b}\n')}`, code: 0, stderr: [] },
  { name: 'a resource named like an inherited property (was `Cannot mix BigInt and other types`, no field)', text: POD('1, constructor: "1"'), code: 2, stderr: ['error: F:8:49: Pod default/web: spec.containers[0].resources.requests.constructor: Invalid value: "constructor": must be a standard resource for containers', 'berth: 1 error(s) in the input'] },
  { name: 'missing namespace: the default one, as kubectl', text: POD('1'), args: ['default/web'], command: 'explain', code: 0, stderr: [] },
  { name: 'an owner-reference cycle is data, not a crash', text: 'apiVersion: v1\nkind: Pod\nmetadata: {name: a, uid: ua, ownerReferences: [{apiVersion: v1, kind: Pod, name: b, uid: ub, controller: true}]}\nspec: {containers: [{name: c, image: i}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b, uid: ub, ownerReferences: [{apiVersion: v1, kind: Pod, name: a, uid: ua, controller: true}]}\nspec: {containers: [{name: c, image: i}]}\n', code: 0, stderr: [] },
  { name: 'explain of a pod not in the input', text: POD('1'), command: 'explain', args: ['nope'], code: 2, stderr: ['berth: pod default/nope not found in the input'] },
  { name: 'a scenario block with 300 unknown keys: zod lists every one (was a 2,900-character line)', command: 'simulate', text: SCENARIO(`  timing: {${Array.from({ length: 300 }, (_, i) => `key${i}: 1`).join(', ')}}\n`), code: 2, stderr: [`error: F:13:3: Scenario: spec.timing: ${`Unrecognized keys: ${Array.from({ length: 300 }, (_, i) => `"key${i}"`).join(', ')}`.slice(0, 500)}…`, 'berth: invalid scenario F'] },
  { name: 'scenario scaling past 100,000 replicas', command: 'simulate', text: SCENARIO('  steps:\n  - at: 1m\n    scale: {deployment: web, replicas: 1000000000}\n'), code: 2, stderr: ['error: F:15:40: Scenario: spec.steps[0].scale.replicas: Invalid value: 1000000000: must be less than or equal to 100000', 'berth: invalid scenario F'] },
  { name: 'scenario simulating for more than a year', command: 'simulate', text: SCENARIO('  until: 999999h\n'), code: 2, stderr: ['error: F:13:10: Scenario: spec.until: Invalid value: "999999h": must be at most 8760h (one year): a scenario simulates up to a year', 'berth: invalid scenario F'] },
  { name: 'scenario step chained past a year', command: 'simulate', text: SCENARIO('  steps:\n  - at: 8000h\n    failNode: {node: x}\n  - after: previous+8000h\n    failNode: {node: x}\n'), code: 2, stderr: ['error: F:16:12: Scenario: spec.steps[1].after: Invalid value: "previous+8000h": the step would run at 57600000s; steps must be at most 8760h (one year): a scenario simulates up to a year', 'berth: invalid scenario F'] },
];

describe('each class of bad-input message', () => {
  for (const c of cases) {
    it(c.name, async () => {
      const file = c.file ?? 'in.yaml';
      const command = c.command ?? 'schedule';
      const args = command === 'simulate' ? [`{dir}/${file}`] : [...(c.args ?? []), '-f', `{dir}/${file}`];
      const fuzz: FuzzCase = { command, args, files: [{ name: file, text: c.text }], damage: c.name };
      const o = await runner.run(fuzz);
      const lines = o.stderr.split('\n').filter((l) => l !== '').map((l) => l.replace(/\/tmp\/[^:\s]*?\/in\.(yaml|json)/g, 'F'));
      assert.deepEqual({ code: o.code, lines: lines.filter((l) => !l.startsWith('warning: ')) }, { code: c.code, lines: c.stderr });
      assert.deepEqual(problems(fuzz, o), []);
    });
  }
});
