import fc from 'fast-check';
import { buildCase, caseGenArb } from './disruption-gen.js';
import { runBerth } from './disruption-run.js';
import { OracleClient } from './oracle-client.js';
import { INSTANCE_TYPES } from './karpenter-berth.js';
const n = Number(process.argv[2] ?? 100), seed = Number(process.argv[3] ?? 5);
const o = new OracleClient('conformance/oracle-karpenter-disruption/oracle');
const gens = fc.sample(caseGenArb, { numRuns: n, seed });
let same = 0, diff = 0;
for (let i = 0; i < gens.length; i++) {
  const c = buildCase(`w${seed}-${i}`, gens[i]!, INSTANCE_TYPES);
  const k = (await o.run({ ...c, instanceTypes: INSTANCE_TYPES })) as unknown as { events: { object: string; reason: string; message: string }[] };
  const b = runBerth(c);
  if ('error' in b) continue;
  const km = new Map<string, Set<string>>();
  for (const e of k.events) if (e.object.startsWith('v1.Node/') || e.object.startsWith('v1.NodePool/')) { const key = e.object.replace(/^v1\.(Node|NodePool)\//, ''); if (!km.has(key)) km.set(key, new Set()); km.get(key)!.add(`${e.reason}: ${e.message}`); }
  const bm = new Map<string, Set<string>>();
  for (const r of b.rejected) { const [node, ...rest] = r.split(': '); if (!bm.has(node!)) bm.set(node!, new Set()); bm.get(node!)!.add(rest.join(': ')); }
  for (const [node, msgs] of km) {
    for (const m of msgs) {
      const msg = m.replace(/^[A-Za-z]+: /, '');
      if (bm.get(node)?.has(msg)) { same++; if (process.env.SHOW && /would schedule/.test(msg)) console.log(`SAME ${msg}`); } else { diff++; console.log(`${c.id} ${node}\n  K: ${m}\n  B: ${[...(bm.get(node) ?? [])].join(' | ')}`); }
    }
  }
}
await o.close();
console.log(`same ${same}, karpenter-only ${diff}`);
