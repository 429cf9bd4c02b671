// Writes docs/scenario.schema.json, the JSON Schema of the Scenario document for
// editors (yaml-language-server), from the zod schema berth validates with.
import { writeFileSync } from 'node:fs';
import { scenarioJsonSchema } from '../src/io/scenario.js';

writeFileSync(new URL('../docs/scenario.schema.json', import.meta.url), `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
