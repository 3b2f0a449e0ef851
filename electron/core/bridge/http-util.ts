import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import { describeError, UserError } from '../errors.ts';

/** Largest request body the bridge accepts; larger ones get 413 before they are buffered. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

/** A request that fails the schema: 400 with every issue, so the UI can put each at its field. */
export class ValidationError extends HttpError {
  readonly issues: { path: (string | number)[]; message: string }[];
  constructor(message: string, issues: { path: (string | number)[]; message: string }[]) {
    super(400, message);
    this.issues = issues;
  }
}

/** A percent-encoded path segment, decoded; a malformed one (`%ZZ`) is a 400 saying so, not a crash. */
export function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new HttpError(
      400,
      `malformed percent-encoding in the URL path: "${segment}" (write a literal % as %25)`,
    );
  }
}

/**
 * Answers a route's refusal in words (a UserError: what is wrong and what to do) with 400; anything
 * else goes on up (the server answers 500 and logs it).
 */
export function sendUserError(res: ServerResponse, err: unknown): true {
  if (!(err instanceof UserError)) throw err;
  sendJson(res, 400, { error: describeError(err) });
  return true;
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const data = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(data),
    'cache-control': 'no-store',
  });
  res.end(data);
}

/**
 * The request body, at most `limit` bytes (413 beyond; 400 when the client goes away mid-body). Read
 * with listeners rather than `for await`: every editor call comes through here, and the stream's
 * async iterator cost more than the rest of reading a small body.
 */
export function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(new HttpError(413, 'request body too large'));
  if (req.readableEnded) return Promise.resolve(Buffer.alloc(0));
  if (req.destroyed) return Promise.reject(new HttpError(400, 'incomplete request body'));
  return new Promise<Buffer>((resolve, reject) => {
    let first: Buffer | undefined;
    let chunks: Buffer[] | undefined;
    let size = 0;
    // The listeners stay on (the request ends with its answer); `settled` keeps the later 'close'
    // from making an error (a stack trace per call) that nothing would read.
    let settled = false;
    const onData = (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        // The rest is read and dropped, so that the 413 can still be answered on this connection.
        settled = true;
        req.resume();
        reject(new HttpError(413, 'request body too large'));
      } else if (first === undefined) first = chunk;
      else (chunks ??= [first]).push(chunk);
    };
    const onEnd = () => {
      if (settled) return;
      settled = true;
      resolve(chunks ? Buffer.concat(chunks, size) : (first ?? Buffer.alloc(0)));
    };
    // The client went away mid-body (aborted, reset): nothing to answer, nothing to log.
    const onGone = () => {
      if (settled) return;
      settled = true;
      reject(new HttpError(400, 'incomplete request body'));
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onGone);
    req.on('close', onGone);
  });
}

/** Reads a JSON request body (size-limited); malformed JSON is a 400, never a crash. */
export async function readJson(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  const body = await readBody(req, limit);
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'malformed JSON in request body');
  }
}

/** A JSON request body checked against its schema: what does not fit is a 400 naming the first problem. */
export async function readJsonAs<T>(
  req: IncomingMessage,
  schema: z.ZodType<T>,
  whenNull?: unknown,
  limit = MAX_BODY_BYTES,
): Promise<T> {
  const parsed = schema.safeParse((await readJson(req, limit)) ?? whenNull);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpError(
    400,
    `invalid request: ${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'unexpected shape'}`,
  );
}
