// The stdio relay: for editors that only speak MCP over stdio (Claude Desktop). It reads newline-delimited
// JSON-RPC on stdin, relays each message to the bridge's `/mcp/<server>` (MCP Streamable HTTP) and writes
// what comes back to stdout.
//
//   <node> <abs>/electron/relay/main.mjs --server NAME [--editor claude-desktop]
//
// The editor's token is read from the Switchboard home at start (tokens/editors/<editor>; the home is
// $SWITCHBOARD_HOME or the OS default): nothing secret is ever on the command line or in the editor's
// config file. It reaches the bridge only over Switchboard's owner-only socket in the home (run/
// bridge.sock; a named pipe on Windows), never over the TCP port (core/bridge/local-endpoint.ts).
//
// Start-up time is part of the contract (start to first answered request <= 150 ms): import only node:
// modules and dependency-free files (home.ts, compile-cache.mjs); no zod, no SDK, nothing else of the core.
// This entry is JavaScript so that the compile cache is on before any .ts file loads: from the second
// start on, Node's TypeScript stripper is never loaded (compile-cache.mjs).
import { enableHomeCompileCache } from '../core/compile-cache.mjs';

enableHomeCompileCache();
await import('./relay.ts');
