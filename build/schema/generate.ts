// Writes shared/schema/servers.schema.json from the zod schema, the one source of truth.
// Lives in build/ because it writes files (shared/ holds no Node code).
// Run: npm run schema (a test fails when the committed file is stale).
import { writeFileSync } from 'node:fs';
import { serversJsonSchema } from '../../shared/schema/json-schema.ts';

const target = new URL('../../shared/schema/servers.schema.json', import.meta.url);
writeFileSync(target, JSON.stringify(serversJsonSchema(), null, 2) + '\n');
console.log(`wrote ${target.pathname}`);
