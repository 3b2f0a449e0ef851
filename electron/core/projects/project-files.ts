import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EditorId } from '../../../shared/editors.ts';
import { EDITORS } from '../editors/registry.ts';
import type { ForeignServer } from '../editors/types.ts';
import { stripBom } from '../fs/bom.ts';

/**
 * The MCP files editors read from a repository, each with the editor adapter that knows its format
 * (the same parser import uses): where in the folder, and which adapter reads its entries.
 */
export const PROJECT_FILES: readonly { path: readonly string[]; editor: EditorId }[] = [
  { path: ['.mcp.json'], editor: 'claude-code' },
  { path: ['.vscode', 'mcp.json'], editor: 'vscode' },
  { path: ['.cursor', 'mcp.json'], editor: 'cursor' },
  { path: ['.gemini', 'settings.json'], editor: 'gemini-cli' },
  { path: ['.roo', 'mcp.json'], editor: 'roo-code' },
  { path: ['.kiro', 'settings', 'mcp.json'], editor: 'kiro' },
  { path: ['.qwen', 'settings.json'], editor: 'qwen-code' },
  { path: ['.amazonq', 'mcp.json'], editor: 'amazon-q' },
  { path: ['.zed', 'settings.json'], editor: 'zed' },
  { path: ['opencode.json'], editor: 'opencode' },
  { path: ['.codex', 'config.toml'], editor: 'codex' },
];

/** One entry of a project file: what it runs, or why it cannot be read as a server. */
export interface ProjectFileEntry {
  entry: string;
  server: ForeignServer | undefined;
  problem: string | undefined;
}

export interface ProjectFileRead {
  file: string;
  editor: EditorId;
  /** sha256 (hex) of the bytes read */
  digest: string;
  entries: ProjectFileEntry[];
  /** the file as a whole could not be read (does not parse) */
  problem: string | undefined;
}

/** Every known project MCP file present in `dir`, read once (bytes, digest, entries). */
export function readProjectFiles(dir: string): ProjectFileRead[] {
  const found: ProjectFileRead[] = [];
  for (const known of PROJECT_FILES) {
    const file = join(dir, ...known.path);
    let bytes: Buffer;
    try {
      bytes = readFileSync(file);
    } catch {
      continue; // absent (or unreadable, which an editor could not read either)
    }
    found.push(readProjectFile(file, known.editor, bytes));
  }
  return found;
}

function readProjectFile(file: string, editor: EditorId, bytes: Buffer): ProjectFileRead {
  const adapter = EDITORS[editor];
  const digest = createHash('sha256').update(bytes).digest('hex');
  const text = stripBom(bytes.toString('utf8'));
  const base = { file, editor, digest, entries: [] };
  if (text.trim() === '') return { ...base, problem: undefined };
  const listed = adapter.format.entries(text, adapter.serversKey);
  if (!listed.ok) return { ...base, problem: `${file}: ${listed.problem}` };
  return {
    ...base,
    problem: undefined,
    entries: listed.entries.map(([entry, value]) => {
      const found = adapter.foreignServer(value);
      return 'problem' in found
        ? { entry, server: undefined, problem: found.problem }
        : { entry, server: found, problem: undefined };
    }),
  };
}

/** Every path a project's servers come from (present or not): what the watcher looks at. */
export function projectFilePaths(dir: string): string[] {
  return PROJECT_FILES.map((known) => join(dir, ...known.path));
}
