import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadSources } from '../io/load.js';
import { ListServer } from '../live/list-server.test-support.js';
import { readLiveInput } from './live-input.js';

// A node with a field the v1.37 schema lacks (a newer server), on a line of its own in the saved text.
const node = { metadata: { name: 'n1' }, spec: { newerField: true }, status: { allocatable: { cpu: '4', memory: '8Gi', pods: '110' } } };
const pod = { metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x', resources: { requests: { cpu: 'lots' } } }] } };

let server: ListServer;
let dir: string;
let kubeconfig: string;
before(async () => {
  server = new ListServer(new Map([['/api/v1/nodes', { rv: '1', items: [node] }], ['/api/v1/pods', { rv: '2', items: [pod] }]]));
  dir = mkdtempSync(join(tmpdir(), 'berth-live-input-'));
  kubeconfig = await server.kubeconfig(dir);
});
after(async () => await server.close());

/** The diagnostics of loading `live` as they would be printed. */
const printed = (r: ReturnType<typeof loadSources>) => [...(r.ok ? [] : r.errors), ...r.warnings].map((d) => `${d.file}:${d.line}:${d.column}: ${d.field ?? ''}: ${d.message}`);

for (const ext of ['json', 'yaml']) {
  test(`objects loaded from the API's JSON get the positions of their place in the ${ext} snapshot, as when the file is read back`, async () => {
    const saveSnapshot = join(dir, `snap.${ext}`);
    const live = await readLiveInput({ kubeconfig, saveSnapshot }, 'strict', () => {});
    assert.ok(live.parsed, 'loaded from the objects as read, not from the text');
    const fromLive = printed(loadSources([live]));
    const fromFile = printed(loadSources([{ name: saveSnapshot, text: readFileSync(saveSnapshot, 'utf8'), validate: 'warn' }]));
    assert.deepEqual(fromLive, fromFile);
    assert.ok(fromLive.some((d) => d.includes('spec.newerField: unknown field')) && fromLive.some((d) => d.includes('requests.cpu: invalid quantity')), fromLive.join('\n'));
  });
}
