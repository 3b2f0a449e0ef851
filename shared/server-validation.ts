import type { z } from 'zod';
import {
  RemoteServerSchema,
  ServerNameSchema,
  StdioServerSchema,
  type ServerConfig,
} from './schema/servers.ts';

/** One thing wrong with a server's config, at a field path inside the server (`['env', 'TOKEN']`). */
export interface FieldIssue {
  path: (string | number)[];
  message: string;
}

export type ServerValidation = { ok: true; config: ServerConfig } | { ok: false; issues: FieldIssue[] };

/**
 * Validates one server entry (as written in servers.json) with the same zod schemas and the same
 * stdio-or-remote decision the core uses when it reads the file (config/servers-file.ts), so the UI
 * shows exactly the errors the core would, at the field they belong to.
 */
export function validateServerConfig(value: unknown): ServerValidation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, issues: [{ path: [], message: 'a server must be a JSON object' }] };
  }
  const hasUrl = 'url' in value;
  const hasCommand = 'command' in value;
  if (hasUrl && hasCommand) {
    return {
      ok: false,
      issues: [
        {
          path: [],
          message: 'a server has either "command" (a local program) or "url" (a remote server), not both',
        },
      ],
    };
  }
  if (!hasUrl && !hasCommand) {
    return {
      ok: false,
      issues: [
        { path: [], message: 'a server needs "command" (a local program) or "url" (a remote server)' },
      ],
    };
  }
  const schema: z.ZodType<ServerConfig> = hasUrl ? RemoteServerSchema : StdioServerSchema;
  const parsed = schema.safeParse(value);
  if (parsed.success) return { ok: true, config: parsed.data };
  const issues: FieldIssue[] = [];
  for (const issue of parsed.error.issues) {
    const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: [...path, key], message: `unknown field "${key}"` });
    } else {
      issues.push({ path, message: issue.message });
    }
  }
  return { ok: false, issues };
}

/** The zod message for an invalid server name, or undefined when the name is fine. */
export function serverNameProblem(name: string): string | undefined {
  const parsed = ServerNameSchema.safeParse(name);
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? 'invalid server name');
}
