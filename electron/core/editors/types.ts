import type { UserDirs } from '../user-dirs.mjs';
import type { EditorId } from '../../../shared/editors.ts';
import type { FileFormat } from './file-format.ts';

/** The OS user folders an editor's settings file is found from (user-dirs.ts). */
export type { UserDirs } from '../user-dirs.mjs';

/** How Claude Desktop's entry starts the stdio relay (no token or secret ever goes in here). */
export interface RelayCommand {
  command: string;
  /** arguments before `--server NAME --editor ID`, e.g. the relay script's absolute path */
  args: string[];
  /** extra environment for the relay (SWITCHBOARD_HOME when not the default home; ELECTRON_RUN_AS_NODE) */
  env: Record<string, string>;
}

/** What a managed entry is built from. */
export interface EntryContext {
  editor: EditorId;
  server: string;
  /** http://127.0.0.1:<port>/mcp/<server>, or …/mcp for the aggregate */
  url: string;
  /** the entry is the aggregate /mcp (an editor in discovery mode), named `server` */
  aggregate?: boolean;
  /** this editor's bridge token (issued on first use) */
  token(): string;
  /** the owner-only file holding this editor's bridge token (for clients that read a file reference) */
  tokenFile: string;
  /**
   * A command line printing this editor's headers as JSON, `{"Authorization": "Bearer …"}`, read from
   * the token file each time it runs (for clients with a header helper): the file then holds no token,
   * and a rotated token needs no rewrite of it.
   */
  headersHelper(): string;
  relay: RelayCommand;
}

/** What tells Switchboard's entries in an editor's file from the user's (ownership.ts). */
export interface OwnershipContext {
  /**
   * the bridge ports this home uses or used: the current one, the default, those written before;
   * 'any' for an entry Switchboard recorded as its own (its port changed by hand is drift)
   */
  ports: ReadonlySet<number> | 'any';
  /** this Switchboard home's root folder */
  homeRoot: string;
  /** true when this home is the one the relay finds without SWITCHBOARD_HOME */
  homeIsDefault: boolean;
  /**
   * the names of the entries Switchboard wrote into this file (state.json); undefined for a file an
   * older Switchboard wrote before it kept this record
   */
  written: ReadonlySet<string> | undefined;
}

/** A server as an editor's file describes it, for import. */
export type ForeignServer =
  | {
      kind: 'stdio';
      command: string;
      args: string[];
      env: Record<string, string>;
      cwd: string | undefined;
    }
  | { kind: 'remote'; url: string; headers: Record<string, string> };

export interface EditorAdapter {
  id: EditorId;
  /** "Claude Desktop" */
  label: string;
  /** the settings file Switchboard edits */
  file(dirs: UserDirs): string;
  /** the folder (or file) whose existence means the editor is installed */
  detectPath(dirs: UserDirs): string;
  /** the top-level key of the servers object: "mcpServers", "context_servers", "servers" */
  serversKey: string;
  /** how the file is read and edited: JSON, JSONC, TOML, YAML (file-format.ts) */
  format: FileFormat;
  /** the managed entry for one server */
  managedEntry(ctx: EntryContext): Record<string, unknown>;
  /**
   * The managed entries hold the bridge token itself (the client has no other way to get it that
   * works for an app started from the desktop: no header helper, no file reference). Such a file
   * is a credential and is kept owner-only.
   */
  tokenInFile: boolean;
  /**
   * true iff this entry points at this bridge (its URL, or the relay of this home); whose it is also
   * takes the record of what Switchboard wrote (ownership.ts ownsEntry)
   */
  pointsAtBridge(entry: unknown, ownership: OwnershipContext): boolean;
  /** what a (user's) entry runs, or why it cannot be imported */
  foreignServer(entry: unknown): ForeignServer | { problem: string };
  /** said once after a sync wrote entries into the file (Gemini CLI connects only in trusted folders) */
  afterWriteNotice?: string;
  /** said after Switchboard changed the file (Claude Desktop reads it only at start) */
  restartNotice?: string;
  /** process names that mean the editor is running (for the restart notice), matched exactly */
  processNames?: { linux: string[]; darwin: string[]; win32: string[] };
  /** the name macOS knows the app by (`open -a NAME`), where Switchboard can restart it */
  macAppName?: string;
}
