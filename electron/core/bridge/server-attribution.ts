import { displayLines } from '../../../shared/display-text.ts';

/**
 * How a server's request to an editor (elicitation, sampling, roots) says which server sends it. On
 * the aggregate /mcp the editor's session is Switchboard's (its serverInfo, its entry in the editor's
 * file), so without this a server's "your session expired, re-enter your password" reads as
 * Switchboard asking. Every such request carries the server's name under `_meta` (SERVER_META_KEY);
 * on /mcp it is also in the words the person sees: the elicitation's message and the sampling
 * request's system prompt begin with `[server NAME] `, and the server's own words after it have every
 * control, bidi and invisible character escaped as approvals show them (line breaks kept), so nothing
 * can hide the name or draw over it. On /mcp/<server> the session is that server's own (its entry in
 * the editor is named after it), so its words go as they are, with the `_meta` name.
 */
export const SERVER_META_KEY = 'io.switchboard/server';

/**
 * The params of a server's request as the editor gets them: named in `_meta`, and in words when
 * `inWords` (the aggregate). Only server requests come here (rare), never an editor's call.
 */
export function attributed(
  method: string,
  params: Record<string, unknown> | undefined,
  server: string,
  inWords: boolean,
): Record<string, unknown> {
  const meta = params?._meta;
  const out: Record<string, unknown> = {
    ...params,
    _meta: { ...(typeof meta === 'object' && meta !== null ? meta : {}), [SERVER_META_KEY]: server },
  };
  if (!inWords) return out;
  // The servers.json name: letters, digits, "-" and "_" only, so it needs no escaping.
  const tag = `[server ${server}]`;
  if (method === 'elicitation/create' && typeof params?.message === 'string')
    out.message = `${tag} ${shown(params.message)}`;
  if (method === 'sampling/createMessage') {
    const system = params?.systemPrompt;
    out.systemPrompt = typeof system === 'string' && system !== '' ? `${tag} ${shown(system)}` : tag;
  }
  return out;
}

/** A server's words for a person: lines kept, everything that could hide or fake text escaped. */
function shown(text: string): string {
  return displayLines(text).join('\n');
}
