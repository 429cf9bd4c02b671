import { INSTANCE_TYPES } from './karpenter-berth.js';
let vary = 0;
for (const t of INSTANCE_TYPES) { const od = t.offerings.filter((o) => o.capacityType === 'spot').map((o) => o.price); if (new Set(od).size > 1) vary++; }
console.log(INSTANCE_TYPES.length, 'types;', vary, 'with spot prices varying by zone');
console.log(JSON.stringify(INSTANCE_TYPES.find((t) => t.name === 'm5.large')?.offerings));
