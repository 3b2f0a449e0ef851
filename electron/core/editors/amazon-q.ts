import { EDITOR_LABELS } from '../../../shared/editors.ts';
import { pathFor } from '../user-dirs.mjs';
import { httpAdapter } from './http-adapter.ts';

/**
 * Amazon Q Developer (IDE plugins): the global MCP file ~/.aws/amazonq/mcp.json, which its default
 * agent reads ("useLegacyMcpJson"), `mcpServers.NAME = {"type": "http", "url", "headers"}`. Headers
 * are literal: the token is in the file. Amazon Q Developer CLI became Kiro CLI (see kiro.ts). From
 * AWS's documentation; not run here.
 */
export const amazonQ = httpAdapter({
  id: 'amazon-q',
  label: EDITOR_LABELS['amazon-q'],
  file: (dirs) => pathFor(dirs.platform).join(dirs.home, '.aws', 'amazonq', 'mcp.json'),
  detectPath: (dirs) => pathFor(dirs.platform).join(dirs.home, '.aws', 'amazonq'),
  serversKey: 'mcpServers',
  jsonc: false,
  urlKey: 'url',
  extra: { type: 'http' },
});
