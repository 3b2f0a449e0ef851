import { httpAdapter } from './http-adapter.ts';
import type { EditorAdapter } from './types.ts';
import { pathFor } from '../user-dirs.mjs';
import { EDITOR_LABELS } from '../../../shared/editors.ts';

/** Gemini CLI: ~/.gemini/settings.json, `mcpServers.<name> = {"httpUrl", "headers"}` (Streamable HTTP). */
export const geminiCli: EditorAdapter = {
  ...httpAdapter({
    id: 'gemini-cli',
    label: EDITOR_LABELS['gemini-cli'],
    file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.gemini', 'settings.json'),
    detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.gemini'),
    serversKey: 'mcpServers',
    // Gemini CLI strips comments before parsing.
    jsonc: true,
    urlKey: 'httpUrl',
    otherUrlKeys: ['url'],
  }),
  // Gemini CLI (0.61) connects to no MCP server, user-level ones included, in a folder it has not
  // been told to trust (its docs/cli/trusted-folders.md: "MCP servers do not connect").
  afterWriteNotice:
    'Gemini CLI connects to MCP servers only in folders you trust: in any other folder it runs in safe mode and none of these servers connect. ' +
    'Trust a folder in the dialog Gemini CLI shows when it starts there, or later with /permissions inside Gemini CLI (your choices are kept in ~/.gemini/trustedFolders.json).',
};
