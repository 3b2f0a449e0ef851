// Writes shared/schema/servers.schema.json from the zod schema, the one source of truth.
// Run: npm run schema (a test fails when the committed file is stale).
import { writeFileSync } from 'node:fs';
import { serversJsonSchema } from './json-schema.ts';

const target = new URL('./servers.schema.json', import.meta.url);
writeFileSync(target, JSON.stringify(serversJsonSchema(), null, 2) + '\n');
console.log(`wrote ${target.pathname}`);
