// Security properties of the faces around the engine:
//  - the playground runs no user content as code: no code-from-string or HTML sink in
//    the browser bundle's sources, and hostile text through the same engine calls the
//    page makes comes back as inert data;
//  - `berth serve` listens on loopback unless told otherwise;
//  - the live controller's RBAC (deploy/) grants no Secrets and no cluster-admin.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { load, schedule, simulate } from '../web/src/engine.js';
import { splitByKind } from '../web/src/input-tabs.js';
import { decodeState, encodeState } from '../web/src/url-state.js';

const ROOT = new URL('../', import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true })
    .map(String)
    .filter((f) => /\.(ts|js|mjs|html)$/.test(f) && !f.endsWith('.test.ts') && !f.includes('node_modules'))
    .map((f) => join(dir, f));
}

// Every way a string becomes code or markup in a page.
const SINKS: [string, RegExp][] = [
  ['eval', /\beval\s*\(/],
  ['new Function', /\bnew\s+Function\s*\(/],
  ['Function constructor call', /(?<![\w.])Function\s*\(/],
  ['innerHTML / outerHTML', /\.(inner|outer)HTML\b/],
  ['insertAdjacentHTML', /insertAdjacentHTML/],
  ['document.write', /document\.write/],
  ['string timer', /set(Timeout|Interval)\s*\(\s*['"`]/],
  ['javascript: URL', /javascript:/i],
  ['srcdoc', /\bsrcdoc\b/],
  ['dynamic import of a computed specifier', /\bimport\s*\(\s*[^'"`\s)]/],
  ['DOMParser / createContextualFragment', /DOMParser|createContextualFragment/],
];

describe('the playground runs no user content as code', () => {
  // The page bundles web/src and the engine under src/, so both are scanned. The Node-only
  // faces (src/cli, src/live: worker pools, API clients) are never bundled; the test below
  // keeps that true, so they are left out.
  const nodeOnly = /^src\/(cli|live)\//;
  const files = [...sources('web/src'), 'web/index.html', ...sources('src').filter((f) => !nodeOnly.test(f))];

  it('nothing the page bundles imports the Node-only faces (cli/, live/)', () => {
    const hits = files.filter((f) => /from '[^']*\/(cli|live)\/[^']*'/.test(readFileSync(join(ROOT, f), 'utf8')));
    assert.deepEqual(hits, []);
  });

  it('no code-from-string or HTML sink in the sources the browser bundle is built from', () => {
    assert.ok(files.length > 50, `scanned ${files.length} files`);
    const hits: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      text.split('\n').forEach((line, i) => {
        if (/^\s*(\/\/|\*)/.test(line)) return;
        for (const [name, re] of SINKS) if (re.test(line)) hits.push(`${f}:${i + 1}: ${name}: ${line.trim()}`);
      });
    }
    assert.deepEqual(hits, []);
  });

  it('the scan itself finds each sink (it is not vacuous)', () => {
    const samples = ['eval(x)', 'new Function(s)', 'Function(s)()', 'el.innerHTML = s', 'el.insertAdjacentHTML("a", s)', 'document.write(s)', 'setTimeout("x()", 1)', 'a.href = "javascript:x"', 'f.srcdoc = s', 'import(url)', 'new DOMParser()'];
    samples.forEach((s, i) => assert.ok(SINKS[i]![1].test(s), s));
  });

  const hostile = [
    'apiVersion: v1',
    'kind: Node',
    'metadata:',
    '  name: n1',
    '  labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: a}',
    '  annotations: {note: "<img src=x onerror=globalThis.pwned=1>"}',
    'status: {allocatable: {cpu: "4", memory: 8Gi}}',
    '---',
    'apiVersion: v1',
    'kind: Pod',
    'metadata:',
    '  name: web',
    '  labels: {app: web}',
    '  annotations: {w: "</script><script>globalThis.pwned=1</script>", x: "${globalThis.pwned=1}", y: !!js/function "function () { globalThis.pwned = 1 }", z: "{{constructor.constructor(\'globalThis.pwned=1\')()}}"}',
    'spec: {containers: [{name: c, image: "javascript:globalThis.pwned=1"}]}',
    '---',
    'apiVersion: v1',
    'kind: Pod',
    'metadata: {name: proto, labels: {constructor: "x", prototype: "y"}, annotations: {constructor: "x"}}',
    'spec: {containers: [{name: c, image: i}]}',
  ].join('\n');

  it('hostile text through the engine calls the page makes comes back as data: nothing runs, no prototype is touched', () => {
    const loaded = load(splitByKind(hostile));
    assert.ok(loaded.ok, JSON.stringify(!loaded.ok && loaded.errors));
    const run = schedule(loaded);
    assert.deepEqual(run.pods.map((p) => p.key).sort(), ['default/proto', 'default/web']);
    assert.equal(loaded.input.pods.find((p) => p.name === 'web')?.annotations['w'], '</script><script>globalThis.pwned=1</script>');
    // As a label value the same text is refused, and the refusal quotes it as data.
    const refused = load(splitByKind(hostile.replace('app: web', 'app: "</script><script>globalThis.pwned=1</script>"')));
    assert.ok(!refused.ok && refused.errors.some((e) => e.message.includes('"</script><script>globalThis.pwned=1</script>"')));
    // A `__proto__` key is refused as the API server refuses it (not a qualified name), and sets no prototype on the way.
    const proto = load(splitByKind(hostile.replace('labels: {constructor: "x", prototype: "y"}', 'labels: {__proto__: {polluted: "yes"}}')));
    assert.ok(!proto.ok && proto.errors.some((e) => e.field === 'metadata.labels' && e.message.startsWith('Invalid value: "__proto__"')));
    assert.equal((globalThis as Record<string, unknown>)['pwned'], undefined);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
    const labels = loaded.input.pods.find((p) => p.name === 'proto')!.labels;
    assert.equal(Object.getPrototypeOf(labels), Object.prototype);
    assert.deepEqual({ ...labels }, { constructor: 'x', prototype: 'y' });
  });

  it('a scenario whose files reach outside the bundled examples is refused, not fetched', () => {
    const scenario = 'apiVersion: berth.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  objects:\n  - files: [../../../../etc/passwd, "https://evil.example/x.yaml"]\n';
    const r = simulate(scenario, 'examples/scenarios/s.yaml', () => undefined);
    assert.equal(r.ok, false);
  });

  it('the URL state decodes to text only; a damaged hash is no state', async () => {
    assert.equal(await decodeState(await encodeState(hostile)), hostile);
    assert.equal(await decodeState('%3Cscript%3E'), undefined);
    assert.equal(await decodeState('AAAA'), undefined);
  });
});

describe('berth serve', () => {
  it('listens on 127.0.0.1 by default, and not on the machine’s other addresses', async () => {
    const root = mkdtempSync(join(tmpdir(), 'berth-serve-'));
    writeFileSync(join(root, 'index.html'), '<!doctype html><title>t</title>');
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'serve', '--port', '0', '--root', root], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += String(d);
          if (out.includes('\n')) resolve(out);
        });
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}`)));
      });
      const m = /^berth playground on http:\/\/(?<host>[^:]+):(?<port>\d+)\//.exec(line);
      assert.ok(m, line);
      assert.equal(m.groups!['host'], '127.0.0.1');
      const port = Number(m.groups!['port']);
      const reach = (host: string) =>
        new Promise<boolean>((resolve) => {
          const s = connect({ host, port }, () => (s.destroy(), resolve(true)));
          s.once('error', () => resolve(false));
        });
      assert.equal(await reach('127.0.0.1'), true);
      const external = Object.values(networkInterfaces()).flat().filter((a) => a && !a.internal && a.family === 'IPv4').map((a) => a!.address);
      for (const address of external) assert.equal(await reach(address), false, `reachable on ${address}`);
    } finally {
      child.kill();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('live controller RBAC (deploy/)', () => {
  const dir = join(ROOT, 'deploy');
  const docs = () =>
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((f) => /\.ya?ml$/.test(f))
      .flatMap((f) => parseAllDocuments(readFileSync(join(dir, f), 'utf8')).map((d) => ({ file: f, obj: d.toJS() as Record<string, unknown> | null })))
      .filter((d) => d.obj !== null);

  it('grants no access to Secrets and no wildcard over resources or verbs', (t) => {
    if (!existsSync(dir)) return t.skip('deploy/ does not exist yet: the live controller’s manifests come with live mode (issue 8)');
    const roles = docs().filter((d) => d.obj!['kind'] === 'ClusterRole' || d.obj!['kind'] === 'Role');
    assert.ok(roles.length > 0, 'deploy/ has no Role or ClusterRole to check');
    for (const { file, obj } of roles) {
      for (const rule of (obj!['rules'] as { resources?: string[]; verbs?: string[]; apiGroups?: string[] }[] | undefined) ?? []) {
        const resources = rule.resources ?? [];
        assert.ok(!resources.includes('secrets'), `${file}: ${JSON.stringify(rule)} grants secrets`);
        assert.ok(!resources.includes('*'), `${file}: ${JSON.stringify(rule)} grants every resource`);
        assert.ok(!(rule.verbs ?? []).includes('*'), `${file}: ${JSON.stringify(rule)} grants every verb`);
      }
    }
  });

  it('lets the controller evict pods through the Eviction API (PDBs enforced), and delete one only once its node\'s terminationGracePeriod runs out', (t) => {
    if (!existsSync(dir)) return t.skip('deploy/ does not exist yet: the live controller’s manifests come with live mode (issue 8)');
    const rules = docs()
      .filter((d) => d.obj!['kind'] === 'ClusterRole' || d.obj!['kind'] === 'Role')
      .flatMap((d) => (d.obj!['rules'] as { resources?: string[]; verbs?: string[]; apiGroups?: string[] }[] | undefined) ?? [])
      .filter((r) => (r.apiGroups ?? []).includes(''));
    const verbsOn = (resource: string) => rules.filter((r) => (r.resources ?? []).includes(resource)).flatMap((r) => r.verbs ?? []);
    assert.deepEqual(verbsOn('pods/eviction'), ['create']);
    for (const verb of ['deletecollection', 'update', 'patch', 'create']) assert.ok(!verbsOn('pods').includes(verb), `pods: ${verb} granted`);
    // Karpenter's termination deletes the pods left when the grace period ends: the one pod deleter
    // (eviction.ts) is wired by the controller into termination and called nowhere else.
    const deleters = readdirSync('src/live')
      .filter((f) => f.endsWith('.ts') && !f.includes('.test'))
      .filter((f) => /deleteNamespacedPod\(|\bapiPodDeleter\(|this\.deletePod\(/.test(readFileSync(join('src/live', f), 'utf8')));
    assert.deepEqual(deleters.sort(), ['controller.ts', 'eviction.ts', 'termination.ts']);
  });

  it('binds nothing to cluster-admin (or admin/edit)', (t) => {
    if (!existsSync(dir)) return t.skip('deploy/ does not exist yet: the live controller’s manifests come with live mode (issue 8)');
    for (const { file, obj } of docs().filter((d) => /RoleBinding$/.test(String(d.obj!['kind'])))) {
      const ref = obj!['roleRef'] as { name?: string } | undefined;
      assert.ok(!['cluster-admin', 'admin', 'edit'].includes(ref?.name ?? ''), `${file}: binds ${ref?.name}`);
    }
  });
});
