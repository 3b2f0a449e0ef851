import { z } from 'zod';
import { ServersFileSchema } from './servers.ts';

/** JSON Schema for servers.json, so editors autocomplete and validate the file. */
export function serversJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(ServersFileSchema, { io: 'input', unrepresentable: 'any' }),
    $id: 'https://switchboard.dev/schema/servers.schema.json',
    title: 'Switchboard servers.json',
  };
}
