// No zod here: the CLI's help and its quick commands name the editors without loading it.
/** Every editor Switchboard can write managed entries into (one adapter each in electron/core/editors/). */
export const EDITOR_IDS = [
  'zed',
  'claude-desktop',
  'vscode',
  'cursor',
  'windsurf',
  'claude-code',
  'gemini-cli',
  'codex',
  'copilot-cli',
  'opencode',
  'qwen-code',
  'cline',
  'roo-code',
  'continue',
  'kiro',
  'amazon-q',
  'lm-studio',
  'goose',
] as const;
