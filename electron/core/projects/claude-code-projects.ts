import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import { z } from 'zod';
import { AGGREGATE_ENTRY } from '../../../shared/bridge.ts';
import { claudeCode } from '../editors/claude-code.ts';
import { ensureHeadersHelper, headersHelperCommand } from '../editors/headers-helper.ts';
import { writeFileAtomic } from '../fs/atomic-write.ts';
import type { HomePaths } from '../home.ts';
import { userDirs } from '../user-dirs.mjs';
import type { ProjectService } from './project-service.ts';

/**
 * Claude Code's own per-project settings (`projects[<dir>]` in ~/.claude.json: local scope, never
 * committed) for every project: each approved project server as an entry of its own endpoint
 * (/mcp/<project>--<server>, with the same header helper as the user-level entries), and every
 * server of the folder's .mcp.json in `disabledMcpjsonServers` (taken out of `enabledMcpjsonServers`)
 * so Claude Code does not also run the repository's servers itself, unsandboxed. What was written is
 * recorded (<home>/claude-code-projects.json) so a removed project, or server, is taken out again
 * and the names it re-enabled come back.
 */

const RecordSchema = z.record(
  z.string(),
  z.object({
    servers: z.array(z.string()).default([]),
    disabled: z.array(z.string()).default([]),
    /** names that were in enabledMcpjsonServers before, given back when the project goes */
    unenabled: z.array(z.string()).default([]),
  }),
);
type WrittenRecord = z.infer<typeof RecordSchema>;
const RECORD_FILE = 'claude-code-projects.json';
const FORMAT = { insertSpaces: true, tabSize: 2, eol: '\n' };

export interface ClaudeProjectsOptions {
  home: HomePaths;
  env: NodeJS.ProcessEnv;
  platform?: NodeJS.Platform;
  port: number;
  projects: Pick<ProjectService, 'infos'>;
  /** the project servers approved as they are now (only those are written) */
  approved: (name: string) => boolean;
  /**
   * Claude Code is in discovery mode (its one user-level entry is the aggregate): in a project's
   * folder that entry's name gets the project route instead of an entry per project server
   */
  discovery?: () => boolean;
  /** issues Claude Code's bridge token if it has none yet (its header helper prints it) */
  ensureToken?: () => void;
}

/** Brings ~/.claude.json's per-project settings in step; returns the folders written (none: no Claude Code). */
export function syncClaudeProjects(options: ClaudeProjectsOptions): string[] {
  const platform = options.platform ?? process.platform;
  const file = claudeCode.file(userDirs(options.env, platform));
  if (!existsSync(file)) return []; // Claude Code not set up here
  const recordFile = join(options.home.root, RECORD_FILE);
  const record = readRecord(recordFile);
  const text = readFileSync(file, 'utf8');
  const settings = JSON.parse(text) as Record<string, unknown>;
  const projects = isObject(settings.projects) ? settings.projects : {};
  const helper = headersHelperCommand(options.home, 'claude-code', platform);
  const next: WrittenRecord = {};
  // Only the entries that change are edited in place: the rest of the file keeps its bytes.
  let written = text;
  const byDir = new Map(options.projects.infos().map((p) => [p.dir, p]));
  for (const dir of new Set([...Object.keys(record), ...byDir.keys()])) {
    const before = record[dir] ?? { servers: [], disabled: [], unenabled: [] };
    const info = byDir.get(dir);
    const entry: Record<string, unknown> = isObject(projects[dir]) ? { ...projects[dir] } : {};
    const servers = Object.fromEntries(
      Object.entries(isObject(entry.mcpServers) ? entry.mcpServers : {}).filter(
        ([name]) => !before.servers.includes(name),
      ),
    );
    let disabled = strings(entry.disabledMcpjsonServers).filter((n) => !before.disabled.includes(n));
    let enabled = [...strings(entry.enabledMcpjsonServers), ...before.unenabled];
    const now = { servers: [] as string[], disabled: [] as string[], unenabled: [] as string[] };
    if (info) {
      const approved = info.servers.filter((s) => !s.problem && options.approved(s.name));
      // Discovery mode: one entry, the project route under the aggregate's name (local scope wins over
      // the user-level entry of that name), so find_tools sees the project's servers beside the rest.
      const route = options.discovery?.() === true && approved.length > 0;
      const entries: [string, string][] = route
        ? [[AGGREGATE_ENTRY, info.endpoint]]
        : approved.map((s) => [s.name, `/mcp/${s.name}`]);
      for (const [name, path] of entries) {
        servers[name] = {
          type: 'http',
          url: `http://127.0.0.1:${options.port}${path}`,
          headersHelper: helper,
        };
        now.servers.push(name);
      }
      const mcpJson = join(dir, '.mcp.json');
      const names = info.servers.filter((s) => s.file === mcpJson).map((s) => s.entry);
      now.disabled = names.filter((n) => !disabled.includes(n));
      disabled = [...disabled, ...now.disabled];
      now.unenabled = enabled.filter((n) => names.includes(n));
      enabled = enabled.filter((n) => !names.includes(n));
      next[dir] = now;
    }
    const was = JSON.stringify(projects[dir]);
    entry.mcpServers = servers;
    entry.disabledMcpjsonServers = disabled;
    entry.enabledMcpjsonServers = enabled;
    if (JSON.stringify(entry) !== was)
      written = applyEdits(written, modify(written, ['projects', dir], entry, { formattingOptions: FORMAT }));
  }
  if (written !== text) {
    if (Object.values(next).some((r) => r.servers.length > 0)) {
      options.ensureToken?.();
      ensureHeadersHelper(options.home, platform);
    }
    // Claude Code rewrites this file itself: a change in between is not overwritten (the next sync
    // applies ours to its new text).
    writeFileAtomic(file, written, {
      beforeRename: (target) => {
        if (readFileSync(target, 'utf8') !== text) throw new Error(`${file} changed meanwhile; not written`);
      },
    });
  }
  writeFileAtomic(recordFile, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
  return Object.keys(next);
}

/** The folders whose Claude Code per-project settings Switchboard wrote. */
export function claudeProjectDirs(home: HomePaths): Set<string> {
  return new Set(Object.keys(readRecord(join(home.root, RECORD_FILE))));
}

function readRecord(file: string): WrittenRecord {
  try {
    const parsed = RecordSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** What following the core needs: its events, entries and approvals. */
export interface ClaudeProjectsCore {
  readonly events: {
    on(event: 'status' | 'config' | 'editorTools', listener: () => void): unknown;
    off(event: 'status' | 'config' | 'editorTools', listener: () => void): unknown;
  };
  readonly state: { read(): { approvals: Record<string, { fingerprint: string }> } };
  readonly servers: { entries(): ReadonlyMap<string, { fingerprint: string }> };
}

/**
 * Keeps Claude Code's per-project settings in step while serve runs: at start, and whenever the set
 * of approved project servers or the projects change (looked at after the core's changes settle).
 */
export class ClaudeProjectsSync {
  readonly #core: ClaudeProjectsCore;
  readonly #options: Omit<ClaudeProjectsOptions, 'approved'>;
  readonly #log: (line: string) => void;
  #timer: NodeJS.Timeout | undefined;
  #signature = '';
  readonly #changed = () => {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.sync(), 100);
  };

  constructor(
    core: ClaudeProjectsCore,
    options: Omit<ClaudeProjectsOptions, 'approved'>,
    log: (line: string) => void,
  ) {
    this.#core = core;
    this.#options = options;
    this.#log = log;
    core.events.on('status', this.#changed);
    core.events.on('config', this.#changed);
    core.events.on('editorTools', this.#changed);
  }

  sync(): void {
    const { approvals } = this.#core.state.read();
    const entries = this.#core.servers.entries();
    const approved = (name: string) => {
      const fingerprint = entries.get(name)?.fingerprint;
      return fingerprint !== undefined && approvals[name]?.fingerprint === fingerprint;
    };
    const infos = this.#options.projects.infos();
    const signature = JSON.stringify([
      this.#options.discovery?.() === true,
      infos.map((p) => [p.dir, p.servers.map((s) => [s.name, s.entry, s.file, approved(s.name)])]),
    ]);
    if (signature === this.#signature) return;
    try {
      syncClaudeProjects({ ...this.#options, approved });
      this.#signature = signature;
    } catch (err) {
      this.#log(`Claude Code's per-project settings: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  close(): void {
    clearTimeout(this.#timer);
    this.#core.events.off('status', this.#changed);
    this.#core.events.off('config', this.#changed);
    this.#core.events.off('editorTools', this.#changed);
  }
}
