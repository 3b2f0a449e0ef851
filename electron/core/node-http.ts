import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import type * as Https from 'node:https';

// Not named `require`: the desktop bundle is CommonJS, where that name is the bundler's own.
const load = createRequire(import.meta.url);

/**
 * node:http, loaded with require rather than an ES import. Importing a built-in module as ESM builds
 * its namespace by reading every export, and node:http's lazy WebSocket, CloseEvent and MessageEvent
 * exports then load Node's whole undici (fetch): ~14 MB of a serve's resident memory for the life of
 * the process, measured (17.5 MB against 3.7 MB for the module alone). Use this for values (createServer);
 * `import type` from node:http is erased and costs nothing.
 */
export const http = load('node:http') as typeof Http;
/** node:https, the same way, and only when first asked: it loads TLS, which most serves never use. */
export const https = (): typeof Https => load('node:https') as typeof Https;
