import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import type { ContainerPortManifest } from '../../model/manifest.js';
import type { Pod } from '../../model/pod.js';
import { buildPlugin, mkNode, mkPod, nodeInfoWith, statusOf } from '../../../test/fixtures/plugin-harness.js';
import { CycleState, type FilterPlugin, type PreFilterPlugin } from '../framework.js';
import { Code } from '../status.js';
import { NODE_PORTS, newNodePorts } from './node-ports.js';

let seq = 0;
/** newPod(host, "PROTO/IP/PORT"...): one container with those host ports. */
function portsPod(...specs: string[]): Pod {
  const ports: ContainerPortManifest[] = specs.map((s) => {
    const [protocol, hostIP, port] = s.split('/');
    return { containerPort: Number(port), hostPort: Number(port), hostIP: hostIP!, protocol: protocol as 'TCP' | 'UDP' };
  });
  return mkPod(`p${seq++}`, { containers: [{ name: 'c', ports }] });
}

function initPortPod(sidecar: boolean): Pod {
  return mkPod(`p${seq++}`, { initContainers: [{ name: 'i', ports: [{ containerPort: 8001, hostPort: 8001, protocol: 'TCP' }], ...(sidecar ? { restartPolicy: 'Always' } : {}) }] });
}

describe('NodePorts (TestNodePorts)', () => {
  const CONFLICT = { code: Code.Unschedulable, reasons: ["node(s) didn't have free ports for the requested pod ports"] };
  const cases: { name: string; pod: Pod; existing: Pod[]; skip?: boolean; want?: typeof CONFLICT }[] = [
    { name: 'skip filter', pod: mkPod('p'), existing: [], skip: true },
    { name: 'other port', pod: portsPod('UDP/127.0.0.1/8080'), existing: [portsPod('UDP/127.0.0.1/9090')] },
    { name: 'same udp port', pod: portsPod('UDP/127.0.0.1/8080'), existing: [portsPod('UDP/127.0.0.1/8080')], want: CONFLICT },
    { name: 'same tcp port', pod: portsPod('TCP/127.0.0.1/8080'), existing: [portsPod('TCP/127.0.0.1/8080')], want: CONFLICT },
    { name: 'different host ip', pod: portsPod('TCP/127.0.0.1/8080'), existing: [portsPod('TCP/127.0.0.2/8080')] },
    { name: 'different protocol', pod: portsPod('UDP/127.0.0.1/8080'), existing: [portsPod('TCP/127.0.0.1/8080')] },
    { name: 'second udp port conflict', pod: portsPod('UDP/127.0.0.1/8000', 'UDP/127.0.0.1/8080'), existing: [portsPod('UDP/127.0.0.1/8080')], want: CONFLICT },
    { name: 'first tcp port conflict', pod: portsPod('TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8080'), existing: [portsPod('TCP/127.0.0.1/8001', 'UDP/127.0.0.1/8081')], want: CONFLICT },
    { name: 'first tcp port conflict due to 0.0.0.0 hostIP', pod: portsPod('TCP/0.0.0.0/8001'), existing: [portsPod('TCP/127.0.0.1/8001')], want: CONFLICT },
    { name: 'TCP hostPort conflict due to 0.0.0.0 hostIP', pod: portsPod('TCP/10.0.10.10/8001', 'TCP/0.0.0.0/8001'), existing: [portsPod('TCP/127.0.0.1/8001')], want: CONFLICT },
    { name: 'second tcp port conflict to 0.0.0.0 hostIP', pod: portsPod('TCP/127.0.0.1/8001'), existing: [portsPod('TCP/0.0.0.0/8001')], want: CONFLICT },
    { name: 'second different protocol', pod: portsPod('UDP/127.0.0.1/8001'), existing: [portsPod('TCP/0.0.0.0/8001')] },
    { name: 'UDP hostPort conflict due to 0.0.0.0 hostIP', pod: portsPod('UDP/127.0.0.1/8001'), existing: [portsPod('TCP/0.0.0.0/8001', 'UDP/0.0.0.0/8001')], want: CONFLICT },
    { name: 'an empty hostIP means 0.0.0.0', pod: portsPod('TCP//8001'), existing: [portsPod('TCP/127.0.0.1/8001')], want: CONFLICT },
    { name: 'non-sidecar initContainer using hostPort', pod: initPortPod(false), existing: [portsPod('TCP/0.0.0.0/8001')], skip: true },
    { name: 'TCP hostPort conflict from sidecar initContainer', pod: initPortPod(true), existing: [portsPod('TCP/0.0.0.0/8001')], want: CONFLICT },
    { name: 'ports of a sidecar already on the node count', pod: portsPod('TCP/0.0.0.0/8001'), existing: [initPortPod(true)], want: CONFLICT },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { plugin } = buildPlugin<PreFilterPlugin & FilterPlugin>(newNodePorts);
      assert.equal(plugin.name, NODE_PORTS);
      const state = new CycleState();
      const info = nodeInfoWith(mkNode('m1'), ...c.existing);
      const pre = plugin.preFilter(state, c.pod, [info]).status;
      if (c.skip) {
        assert.ok(pre.isSkip());
        return;
      }
      assert.ok(pre.isSuccess());
      const status = plugin.filter(state, c.pod, info);
      if (c.want) assert.deepEqual(statusOf(status), c.want);
      else assert.ok(status.isSuccess());
    });
  }
});
