// Writes docs/scenario.schema.json and docs/sweep.schema.json, the JSON Schemas of the
// Scenario and Sweep documents for editors (yaml-language-server), from the zod
// schemas berth validates with.
import { writeFileSync } from 'node:fs';
import { scenarioJsonSchema } from '../src/io/scenario.js';
import { sweepJsonSchema } from '../src/io/sweep-spec.js';

const write = (file: string, schema: unknown) => writeFileSync(new URL(`../docs/${file}`, import.meta.url), `${JSON.stringify(schema, null, 2)}\n`);
write('scenario.schema.json', scenarioJsonSchema());
write('sweep.schema.json', sweepJsonSchema());
