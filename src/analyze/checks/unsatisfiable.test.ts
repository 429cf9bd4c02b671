import assert from 'node:assert/strict';
import { describe } from 'node:test';
import type { LoadedInput } from '../../io/load.js';
import { checkCases, deploymentYaml, listYaml, loadInput, nodeYaml, type CheckCase } from '../test-input.js';
import { unsatisfiableCheck } from './unsatisfiable.js';

const nodes = [nodeYaml('n1', 'us-west-2a'), nodeYaml('n2', 'us-west-2b')];
const web = (replicas: number, spec: string) => loadInput({ text: listYaml(...nodes, deploymentYaml('web', replicas, spec)) });
const withPool = (input: () => LoadedInput) => () => {
  const base = input();
  const pool = loadInput({ file: 'examples/nodepools/default.yaml' });
  return { ...base, nodePools: pool.nodePools };
};
const zoneSelector = (zone: string) => `        nodeSelector: {topology.kubernetes.io/zone: ${zone}}`;

const cases: CheckCase[] = [
  { name: 'a nodeSelector zone no node has', input: () => web(2, zoneSelector('us-west-2z')), want: ['error Deployment/default/web'], message: /nodeSelector topology\.kubernetes\.io\/zone=us-west-2z: no node has it \(nodes have topology\.kubernetes\.io\/zone=us-west-2a, us-west-2b\)/ },
  { name: 'a zone neither the nodes nor the NodePool offers', input: withPool(() => web(2, zoneSelector('us-west-2z'))), provisioner: true, want: ['error Deployment/default/web'], message: /and no NodePool can launch it/ },
  { name: 'clean: a zone only the NodePool offers', input: withPool(() => web(2, zoneSelector('us-west-2d'))), provisioner: true, want: [] },
  {
    name: 'required node affinity on a label no node carries',
    input: () => web(1, `        affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: disktype, operator: In, values: [ssd]}]}]}}}`),
    want: ['error Deployment/default/web'],
    message: /required node affinity disktype In \[ssd\]: matches no node/,
  },
  {
    name: 'every node tainted, no toleration',
    input: () => loadInput({ text: listYaml(`- {apiVersion: v1, kind: Node, metadata: {name: g1, labels: {kubernetes.io/hostname: g1}}, spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}, status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}`, deploymentYaml('web', 1)) }),
    want: ['error Deployment/default/web'],
    message: /tolerations: every node it selects has a taint it does not tolerate \(e\.g\. dedicated=gpu:NoSchedule\)/,
  },
  { name: 'a pod larger than every node', input: () => loadInput({ text: listYaml(...nodes, deploymentYaml('web', 1).replace('cpu: 500m', 'cpu: "64"')) }), want: ['error Deployment/default/web'], message: /no node, empty or launched, can take its pod/ },
  {
    name: 'minDomains above the zones there are, with more replicas than they hold',
    input: () => web(4, `        topologySpreadConstraints: [{maxSkew: 1, minDomains: 3, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: web}}}]`),
    want: ['error Deployment/default/web'],
    message: /minDomains 3 but only 2 topology\.kubernetes\.io\/zone domain\(s\).*at most 2 of 4 replicas/,
  },
  {
    name: 'incident 1b without a NodePool: minDomains 3 on hostname with one node; the fix adds nodes rather than lowering it',
    input: () => loadInput({ file: 'examples/apiserver-min-domains.yaml' }),
    want: ['error Pod/kube-system/apiserver-0'],
    message: /minDomains 3 but only 1 kubernetes\.io\/hostname domain\(s\).*at most 1 of 3 replicas/,
  },
  { name: 'clean: incident 1b with a NodePool to launch the nodes', input: withPool(() => loadInput({ file: 'examples/apiserver-min-domains.yaml' })), provisioner: true, want: [] },
  { name: 'incident 2a: required anti-affinity, two replicas, one node', input: () => loadInput({ file: 'examples/kube-dns-required.yaml' }), want: ['error Deployment/kube-system/kube-dns'], message: /1 of 2 replicas can never schedule/ },
  {
    name: 'required pod affinity to pods that exist nowhere',
    input: () => web(1, `        affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: cache}}}]}}`),
    want: ['error Deployment/default/web'],
    message: /pods that exist nowhere/,
  },
  {
    name: 'the node a fix copies is not a control-plane node, even when it is the first eligible one (re-simulated: the third replica schedules)',
    input: () =>
      loadInput({
        text: listYaml(
          `- {apiVersion: v1, kind: Node, metadata: {name: cp-0, labels: {kubernetes.io/hostname: cp-0, node-role.kubernetes.io/control-plane: "", topology.kubernetes.io/zone: us-west-2a}}, status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}`,
          nodeYaml('n1', 'us-west-2b'),
          deploymentYaml('web', 3, `        affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [{topologyKey: kubernetes.io/hostname, labelSelector: {matchLabels: {app: web}}}]}}`),
        ),
      }),
    want: ['error Deployment/default/web'],
    message: /1 of 3 replicas can never schedule/,
  },
  { name: 'clean: incident 1c, three nodes for three anti-affine apiservers', input: () => loadInput({ file: 'examples/apiserver-anti-affinity.yaml' }), want: [] },
];

describe('unsatisfiable', () =>
  checkCases(unsatisfiableCheck, cases, (f) => {
    for (const fix of f.fix) assert.doesNotMatch(fix, /like cp-0/);
  }));
