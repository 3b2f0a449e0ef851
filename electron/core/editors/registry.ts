import { EDITOR_IDS, type EditorId } from '../../../shared/editors.ts';
import { amazonQ } from './amazon-q.ts';
import { amp } from './amp.ts';
import { auggie } from './auggie.ts';
import { claudeCode } from './claude-code.ts';
import { claudeDesktop } from './claude-desktop.ts';
import { cline } from './cline.ts';
import { clineCli } from './cline-cli.ts';
import { codex } from './codex.ts';
import { continueDev } from './continue.ts';
import { copilotCli } from './copilot-cli.ts';
import { crush } from './crush.ts';
import { cursor } from './cursor.ts';
import { droid } from './droid.ts';
import { geminiCli } from './gemini-cli.ts';
import { goose } from './goose.ts';
import { kiloCode } from './kilo-code.ts';
import { kiro } from './kiro.ts';
import { lmStudio } from './lm-studio.ts';
import { opencode } from './opencode.ts';
import { qwenCode } from './qwen-code.ts';
import { rooCode } from './roo-code.ts';
import type { EditorAdapter } from './types.ts';
import { userDirs } from '../user-dirs.mjs';
import { vscode } from './vscode.ts';
import { windsurf } from './windsurf.ts';
import { zed } from './zed.ts';

/** Every editor adapter, by id. Adding an editor: its file here, its id in shared/editors.ts, a test. */
export const EDITORS: Readonly<Record<EditorId, EditorAdapter>> = {
  zed,
  'claude-desktop': claudeDesktop,
  vscode,
  cursor,
  windsurf,
  'claude-code': claudeCode,
  'gemini-cli': geminiCli,
  codex,
  'copilot-cli': copilotCli,
  opencode,
  'qwen-code': qwenCode,
  cline,
  'roo-code': rooCode,
  continue: continueDev,
  kiro,
  'amazon-q': amazonQ,
  'lm-studio': lmStudio,
  goose,
  'cline-cli': clineCli,
  'kilo-code': kiloCode,
  crush,
  amp,
  auggie,
  droid,
};

export function allEditors(): EditorAdapter[] {
  return EDITOR_IDS.map((id) => EDITORS[id]);
}

export function isEditorId(value: string): value is EditorId {
  return (EDITOR_IDS as readonly string[]).includes(value);
}

/**
 * Every editor's settings file for this user, installed or not: where Switchboard writes bridge
 * tokens, which every sandbox keeps hidden (CoreOptions.tokenFiles). Empty without a home folder.
 */
export function editorSettingsFiles(env: NodeJS.ProcessEnv, platform: NodeJS.Platform): string[] {
  let dirs;
  try {
    dirs = userDirs(env, platform);
  } catch {
    return [];
  }
  return [...new Set(allEditors().map((e) => e.file(dirs)))];
}
