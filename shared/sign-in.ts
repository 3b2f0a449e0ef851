import { z } from 'zod';

/**
 * Why a sign-in (authorization) page address is not one Switchboard opens, prints or returns, or
 * undefined when it is: only https, or http on this computer's loopback (127.0.0.1, localhost, [::1]);
 * never a file:, javascript:, data: or custom-scheme address, nor one with a user name or password.
 */
export function authorizationUrlProblem(address: string): string | undefined {
  const url = URL.parse(address);
  if (!url) return 'it is not a web address';
  if (url.username || url.password) return 'it carries a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    const host = url.hostname;
    if (host === '127.0.0.1' || host === 'localhost' || host === '[::1]') return undefined;
    return 'plain http is only for pages on this computer; a sign-in page must be https';
  }
  return `only https pages are opened, not ${url.protocol.replace(/:$/, '')}:`;
}

/** A sign-in page's address, as the API may hand it out (see authorizationUrlProblem). */
const SignInPageSchema = z.string().superRefine((url, ctx) => {
  const problem = authorizationUrlProblem(url);
  if (problem)
    ctx.addIssue({ code: 'custom', message: `a sign-in page Switchboard will not open: ${problem}` });
});

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
  z.object({ status: z.literal('browser'), url: SignInPageSchema, id: z.string() }),
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
  pending: z.object({ url: SignInPageSchema, startedAt: z.number() }).nullable(),
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
