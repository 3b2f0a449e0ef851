import { z } from 'zod';

/**
 * OAuth sign-in for remote servers, as the control API, the CLI and the UI speak of it. Tokens never
 * cross this contract: only whether there is a sign-in, for what, and where the person is to go.
 */

/** `POST /api/servers/<name>/sign-in` */
export const SignInRequestSchema = z
  .object({
    /** an OAuth client registered by hand with the server's authorization server */
    clientId: z.string().min(1).max(512).optional(),
    clientSecret: z.string().min(1).max(2048).optional(),
    /** this sign-in's Client ID Metadata Document URL, instead of the one in Settings */
    clientMetadataUrl: z.string().max(2048).optional(),
    /** ask the person again even while the tokens held still work ("Sign in again") */
    fresh: z.boolean().optional(),
  })
  .strict()
  .refine((r) => r.clientSecret === undefined || r.clientId !== undefined, {
    message: 'a client secret needs its client ID',
    path: ['clientSecret'],
  });
export type SignInRequest = z.infer<typeof SignInRequestSchema>;

/** How a sign-in started: the person is to open `url` in a browser, or none was needed. */
export const SignInStartSchema = z.discriminatedUnion('status', [
  /** `id` names this sign-in in its `sign-in` event (another may start and end meanwhile) */
  z.object({ status: z.literal('browser'), url: z.string(), id: z.string() }),
  z.object({ status: z.literal('signed-in') }),
]);
export type SignInStart = z.infer<typeof SignInStartSchema>;

/** `GET /api/servers/<name>/sign-in` */
export const SignInInfoSchema = z.object({
  name: z.string(),
  /** Switchboard holds tokens for this server (its current URL) */
  signedIn: z.boolean(),
  /** what was granted, as the authorization server said */
  scope: z.string().nullable(),
  /** epoch ms when the current access token expires (it is refreshed before) */
  expiresAt: z.number().nullable(),
  /** a scope a call asked for since, which the next sign-in asks for too */
  wantedScope: z.string().nullable(),
  /** a sign-in waiting for the person in the browser */
  pending: z.object({ url: z.string(), startedAt: z.number() }).nullable(),
});
export type SignInInfo = z.infer<typeof SignInInfoSchema>;

export const SignInOutcomeSchema = z.object({
  name: z.string(),
  /** the sign-in's id, as its start answered it */
  id: z.string(),
  result: z.enum(['signed-in', 'failed', 'cancelled']),
  message: z.string().optional(),
});
export type SignInOutcome = z.infer<typeof SignInOutcomeSchema>;

/**
 * Why `url` cannot be a Client ID Metadata Document URL (undefined: it can). The MCP authorization
 * spec and the SDK want an https URL with a path: the URL is the client's ID.
 */
export function clientMetadataUrlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL (for example https://example.com/switchboard/client.json)';
  }
  if (parsed.protocol !== 'https:') return 'it must be an https:// address';
  if (parsed.pathname === '/' || parsed.pathname === '')
    return 'it needs a path to the document, not just a host';
  if (parsed.hash) return 'it may not have a #fragment';
  if (parsed.username || parsed.password) return 'it may not carry a user name or password';
  return undefined;
}
