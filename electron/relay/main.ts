// The stdio relay: for editors that only speak MCP over stdio (Claude Desktop). It reads newline-delimited
// JSON-RPC on stdin, relays each message to the bridge's `/mcp/<server>` (MCP Streamable HTTP) and writes
// what comes back to stdout.
//
//   <node> <abs>/electron/relay/main.ts --server NAME [--editor claude-desktop]
//
// The editor's token is read from the Switchboard home at start (tokens/editors/<editor>; the home is
// $SWITCHBOARD_HOME or the OS default), the port from run/serve.json, else state.json, else the default:
// nothing secret is ever on the command line or in the editor's config file.
//
// Start-up time is part of the contract (start to first answered request <= 150 ms): import only node:
// modules and the dependency-free files below; no zod, no SDK, nothing from the core.
import { existsSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { join } from 'node:path';
import { resolveHome } from '../core/home.ts';

// Node's compile cache also caches the type-stripped TypeScript, so from the second start on the relay's
// files load without stripping or compiling them again (~100 ms less on the 2-core CI machine). It lives
// in the Switchboard home (private to this user), never in a shared temp folder whose cached code
// another user could plant. NODE_COMPILE_CACHE in the environment, if set, takes precedence; it also
// covers this file itself.
const { root } = resolveHome();
if (process.env.NODE_COMPILE_CACHE || existsSync(root)) {
  enableCompileCache(process.env.NODE_COMPILE_CACHE || join(root, 'cache', 'node-compile'));
}
await import('./relay.ts');
