import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../cli/program.js';
import { bundledInstanceTypes } from '../provisioner/catalog/catalog.js';
import { InsufficientCapacityError, type CloudProvider, type Instance, type Launch } from './cloud-provider.js';
import { FaultInjectingProvider } from './fault-provider.js';
import { liveNodePools } from './plan-batch.js';
import { claimOf, nodePool } from './test-objects.test-support.js';

class RecordingProvider implements CloudProvider {
  readonly name = 'recording';
  readonly created: string[] = [];
  getInstanceTypes() {
    return bundledInstanceTypes();
  }
  async create(l: Launch): Promise<Instance> {
    this.created.push(l.claim.name);
    return { nodeName: l.claim.name, claim: l.claim.name, created: 0, providerID: `rec://${l.claim.name}` };
  }
  async delete(): Promise<void> {}
  async list(): Promise<Instance[]> {
    return [];
  }
}

const pool = liveNodePools({ nodePools: [nodePool('default')] })[0]!;
function launch(name: string, instanceType: string, zone: string, capacityType = 'on-demand'): Launch {
  const it = bundledInstanceTypes().find((t) => t.name === instanceType)!;
  return { claim: claimOf(name, { instanceType, zone, capacityType, created: 0 }), pool, instanceType: it };
}

test('the first N creates fail, then creates pass through', async () => {
  const inner = new RecordingProvider();
  const p = new FaultInjectingProvider(inner, { failCreates: 2 });
  await assert.rejects(p.create(launch('a', 'm5.large', 'us-west-2a')), /injected fault: create a failed \(1 more to fail\)/);
  await assert.rejects(p.create(launch('a', 'm5.large', 'us-west-2a')), /0 more to fail/);
  assert.equal((await p.create(launch('a', 'm5.large', 'us-west-2a'))).providerID, 'rec://a');
  assert.deepEqual(inner.created, ['a'], 'failed creates never reached the cloud');
});

test('insufficient capacity for the matching offerings only', async () => {
  const inner = new RecordingProvider();
  const p = new FaultInjectingProvider(inner, { insufficientCapacity: [{ instanceType: 'c5.large', zone: 'us-west-2a' }, { capacityType: 'spot' }] });
  const ice = await p.create(launch('a', 'c5.large', 'us-west-2a')).catch((e: unknown) => e);
  assert.ok(ice instanceof InsufficientCapacityError);
  assert.deepEqual([ice.instanceType, ice.zone, ice.capacityType], ['c5.large', 'us-west-2a', 'on-demand']);
  await assert.rejects(p.create(launch('b', 'm5.large', 'us-west-2b', 'spot')), InsufficientCapacityError);
  await p.create(launch('c', 'c5.large', 'us-west-2b'));
  await p.create(launch('d', 'm5.large', 'us-west-2a'));
  assert.deepEqual(inner.created, ['c', 'd']);
});

test('a create that hangs after the instance exists', async () => {
  const inner = new RecordingProvider();
  const p = new FaultInjectingProvider(inner, { hangAfterCreateMs: 200 });
  const t0 = Date.now();
  const pending = p.create(launch('a', 'm5.large', 'us-west-2a'));
  await new Promise((r) => setTimeout(r, 20));
  assert.deepEqual(inner.created, ['a'], 'the instance exists while the call has not returned');
  await pending;
  assert.ok(Date.now() - t0 >= 190);
});

test('berth controller --inject-faults: a bad spec is exit 2 with the field named, no stack trace', async () => {
  for (const [value, message] of [
    ['{"failCreates":-1}', /--inject-faults: failCreates: Too small/i],
    ['{"insufficientCapacity":[{"type":"x"}]}', /--inject-faults: insufficientCapacity\.0: Unrecognized key/i],
    ['{oops', /--inject-faults: not JSON/],
  ] as const) {
    assert.deepEqual(await cli(['--inject-faults', value]).then((r) => [r.code, message.test(r.stderr), /\n\s+at /.test(r.stderr)]), [2, true, false], value);
  }
});

test('berth controller: a renew deadline not shorter than the lease duration is refused (a leader must stop before a standby takes over)', async () => {
  const r = await cli(['--lease-duration', '10s', '--renew-deadline', '10s']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--renew-deadline \(10000 ms\) must be shorter than --lease-duration \(10000 ms\)/);
});

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (s: string | Uint8Array) => ((stderr += String(s)), true);
  const code = await runCli(['node', 'berth', 'controller', ...args]).finally(() => (process.stderr.write = write));
  return { code, stderr };
}

