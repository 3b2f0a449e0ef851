#!/usr/bin/env node
// The client command for the MCP conformance suite's client auth scenarios:
//
//   conformance client --suite auth --spec-version 2025-11-25 --command "node test/conformance/auth-client.mjs"
//
// runs `switchboard try --call test-tool --client-metadata-url <the suite's CIMD URL> [--client-id …
// --client-secret …] URL` with SWITCHBOARD_SIGN_IN=fetch (the suite's authorization server approves at
// once). The runner appends the server URL and, for scenarios with a pre-registered client, passes it
// in MCP_CONFORMANCE_CONTEXT ({"client_id", "client_secret"}), which this turns into options.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CIMD_URL = 'https://conformance-test.local/client-metadata.json';
const bin = fileURLToPath(new URL('../../electron/cli/bin.mjs', import.meta.url));
const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT || '{}');
const url = process.argv[process.argv.length - 1];
const args = [bin, 'try', '--call', 'test-tool', '--client-metadata-url', CIMD_URL];
if (typeof context.client_id === 'string') args.push('--client-id', context.client_id);
if (typeof context.client_secret === 'string') args.push('--client-secret', context.client_secret);
args.push(url);
const child = spawn(process.execPath, args, {
  stdio: 'inherit',
  env: { ...process.env, SWITCHBOARD_SIGN_IN: 'fetch' },
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
