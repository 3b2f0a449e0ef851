import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { serversJsonSchema } from '../../../shared/schema/json-schema.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';

/** Where servers.json's `"$schema": "./servers.schema.json"` points: beside it, in the home. */
export const SCHEMA_FILE_NAME = 'servers.schema.json';

/**
 * Writes the JSON Schema of servers.json (generated from the zod schema) next to it, so an editor
 * opening the file completes and checks it. Rewritten only when its content changed (an upgrade).
 */
export function writeSchemaFile(serversFile: string): void {
  const target = join(dirname(serversFile), SCHEMA_FILE_NAME);
  const content = JSON.stringify(serversJsonSchema(), null, 2) + '\n';
  let current: string | undefined;
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== content) writeFileAtomic(target, content, { mode: 0o600 });
}
