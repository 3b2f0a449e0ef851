import { chmodSync, readFileSync } from 'node:fs';
import type { EditorId } from '../../../shared/editors.ts';
import { editorTokenFile } from '../tokens/token-store.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import type { HomePaths } from '../home.ts';
import { pathFor } from '../user-dirs.mjs';

/**
 * The header helper: a tiny script in the Switchboard home that prints an editor's bridge token as
 * `{"Authorization":"Bearer …"}`, read from its owner-only token file each time. Clients that run a
 * command for their headers (Claude Code's `headersHelper`, Codex's `http_headers_helper`) get this
 * command instead of the token, so their file holds no credential and a rotated token needs no
 * rewrite of it. They run it on every connection: it is a POSIX shell script using only builtins
 * (`read`, `printf`) — no Node start — and a batch file on Windows. docs/performance.md has its time.
 */

const SCRIPT = 'editor-headers';

export function headersHelperPath(home: HomePaths, platform: NodeJS.Platform): string {
  return pathFor(platform).join(home.root, 'bin', platform === 'win32' ? `${SCRIPT}.cmd` : SCRIPT);
}

/** The command line an editor's entry names: the script, then the editor's id. */
export function headersHelperCommand(home: HomePaths, editor: EditorId, platform: NodeJS.Platform): string {
  const script = headersHelperPath(home, platform);
  if (platform === 'win32') return `"${script}" ${editor}`;
  // Quoted only when needed (macOS homes have a space: "Application Support"); both a shell and
  // shell-style word splitting read it back as one word.
  const word = /^[A-Za-z0-9_@%+=:,./-]+$/.test(script) ? script : `'${script.replace(/'/g, `'\\''`)}'`;
  return `${word} ${editor}`;
}

/** The script's text for this home (it names the tokens folder by absolute path). */
export function headersHelperScript(home: HomePaths, platform: NodeJS.Platform): string {
  const dir = pathFor(platform).dirname(editorTokenFile(home.tokens, 'x'));
  if (platform === 'win32') {
    return [
      '@echo off',
      'rem Written by Switchboard: prints the bridge token of the editor named first as an HTTP header',
      "rem (JSON), for editors' header helpers. The token stays in Switchboard's owner-only token file.",
      `set /p token=<"${dir}\\%~1"`,
      'echo {"Authorization":"Bearer %token%"}',
      '',
    ].join('\r\n');
  }
  const quoted = `'${dir.replace(/'/g, `'\\''`)}'`;
  return [
    '#!/bin/sh',
    '# Written by Switchboard: prints the bridge token of the editor named in $1 as an HTTP header',
    "# (JSON), for editors' header helpers. The token stays in Switchboard's owner-only token file.",
    'case "$1" in ""|*[!a-z0-9-]*) echo "usage: $0 EDITOR" >&2; exit 2 ;; esac',
    `IFS= read -r token < ${quoted}/"$1" || [ -n "$token" ] || exit 1`,
    `printf '{"Authorization":"Bearer %s"}\\n' "$token"`,
    '',
  ].join('\n');
}

/** Writes the script when it is missing or not this home's (owner-only, executable). */
export function ensureHeadersHelper(home: HomePaths, platform: NodeJS.Platform): string {
  const path = headersHelperPath(home, platform);
  const text = headersHelperScript(home, platform);
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current !== text) writeFileAtomic(path, text, { mode: 0o700 });
  else if (platform !== 'win32') chmodSync(path, 0o700);
  return path;
}
