import type { Notification, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { LogLine } from '../../shared/logs.ts';
import type { SignInOutcome } from '../../shared/sign-in.ts';
import type { ServerStatus, StatusReport } from '../../shared/status.ts';

/**
 * What the core announces (`core.events`). A file of its own so that parts listening to the core
 * name these events without importing the whole `Core` (only composition roots do).
 */
export interface CoreEvents {
  status: [ServerStatus];
  removed: [string];
  log: [LogLine];
  /** servers.json was (re)read: the config error changed, or servers were added/removed */
  config: [StatusReport];
  /** a running server's tool list, after each tools/list */
  tools: [name: string, tools: Tool[]];
  /** a notification from a running server (list_changed, logging, …), for the bridge */
  notification: [name: string, notification: Notification];
  /** a server's tools differ from its pin in a new way, or no longer do (accepted, gone) */
  toolChange: [name: string];
  /** a server's lists (initialize answer, tools, prompts, resources) from its current run are in */
  lists: [name: string];
  /** a sign-in to a remote server ended */
  signIn: [SignInOutcome];
  /** shutdown() began: every server is about to be stopped */
  stopping: [at: number];
  /** which tools an editor gets changed (its selection of tools, or discovery mode) */
  editorTools: [editor: string];
  /** a check for updates of approved packages started or ended (core.updates) */
  updates: [];
  /** the package of a server waiting for approval was resolved in the background, or could not be */
  approval: [name: string];
  /** the projects, or the folders offered as projects (an editor works in one with MCP files), changed */
  projects: [];
}
