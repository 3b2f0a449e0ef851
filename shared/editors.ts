import { z } from 'zod';

import { EDITOR_IDS } from './editor-ids.ts';

export { EDITOR_IDS };
export const EditorIdSchema = z.enum(EDITOR_IDS);
export type EditorId = z.infer<typeof EditorIdSchema>;

/** What people call each editor (the adapters, the CLI's reports and the UI all use these). */
export const EDITOR_LABELS: Record<EditorId, string> = {
  zed: 'Zed',
  'claude-desktop': 'Claude Desktop',
  vscode: 'VS Code',
  cursor: 'Cursor',
  windsurf: 'Windsurf',
  'claude-code': 'Claude Code',
  'gemini-cli': 'Gemini CLI',
  codex: 'Codex CLI',
  'copilot-cli': 'Copilot CLI',
  opencode: 'opencode',
  'qwen-code': 'Qwen Code',
  cline: 'Cline',
  'roo-code': 'Roo Code',
  continue: 'Continue',
  kiro: 'Kiro',
  'amazon-q': 'Amazon Q Developer',
  'lm-studio': 'LM Studio',
  goose: 'Goose',
  'cline-cli': 'Cline CLI',
  'kilo-code': 'Kilo Code',
  crush: 'Crush',
  amp: 'Amp',
  auggie: 'Auggie',
  droid: 'Factory Droid',
};
