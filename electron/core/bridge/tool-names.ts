import { createHash } from 'node:crypto';

/** What MCP clients accept as a tool name (and what editors such as Claude and VS Code enforce). */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
const SEPARATOR = '__';
const MAX = 64;

/**
 * Names for the aggregate endpoint: `<server>__<tool>`, made valid and at most 64 characters. A name
 * that has to be changed (invalid characters, too long) or would collide gets a short hash of the
 * original pair, so the same server/tool pair always gets the same name and no two pairs share one.
 */
export function aggregateNames(
  pairs: readonly { server: string; tool: string }[],
): Map<string, { server: string; tool: string }> {
  const byName = new Map<string, { server: string; tool: string }>();
  const pending: { server: string; tool: string }[] = [];
  for (const pair of pairs) {
    const plain = `${pair.server}${SEPARATOR}${pair.tool}`;
    if (TOOL_NAME_PATTERN.test(plain) && !byName.has(plain)) byName.set(plain, pair);
    else pending.push(pair);
  }
  // Changed names come second, so a plain name never loses its spelling to a shortened one.
  for (const pair of pending) {
    for (let salt = 0; ; salt++) {
      const name = shortened(pair.server, pair.tool, salt);
      if (!byName.has(name)) {
        byName.set(name, pair);
        break;
      }
    }
  }
  return byName;
}

function shortened(server: string, tool: string, salt: number): string {
  const hash = createHash('sha256').update(`${server}\0${tool}\0${salt}`).digest('hex').slice(0, 8);
  const clean = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, '_');
  const suffix = `_${hash}`;
  const room = MAX - suffix.length;
  const full = `${clean(server)}${SEPARATOR}${clean(tool)}`;
  return `${full.slice(0, room)}${suffix}`;
}
