import { createHash } from 'node:crypto';
import type { EditorId } from '../../../shared/editors.ts';
import {
  SERVER_NAME_PATTERN,
  ServerConfigSchema,
  type ServerConfigInput,
} from '../../../shared/schema/servers.ts';
import { setServer } from '../config/edit.ts';
import { readServersFile } from '../config/servers-file.ts';
import { UserError } from '../errors.ts';
import type { HomePaths } from '../home.ts';
import { findLiteralSecrets, type SecretFinding } from '../secrets/detect.ts';
import type { Keychain } from '../secrets/keychain.ts';
import { storeLiteralSecrets } from '../secrets/store-literals.ts';
import { serverEntry } from '../server-entry.ts';
import type { AppStateStore } from '../trust/app-state.ts';
import { canonicalJson } from '../trust/canonical-json.ts';
import { configHash } from '../trust/fingerprint.ts';
import type { Backups, SecretSpan } from './backups.ts';
import type { SyncServer } from './desired.ts';
import type { EditorSync } from './engine.ts';
import type { EditorReport } from './report.ts';
import {
  differences,
  identity,
  identityOfConfig,
  settingsOf,
  settingsOfConfig,
  type Settings,
} from './import-match.ts';
import { ownsEntry } from './ownership.ts';
import { EDITORS } from './registry.ts';
import type { ForeignServer } from './types.ts';

/** One server found in an editor's file that Switchboard does not manage. */
export interface ImportCandidate {
  editor: EditorId;
  /** its name in the editor's file */
  entry: string;
  /** the name it gets (or has) in servers.json */
  name: string;
  server: ForeignServer | undefined;
  /** why it cannot be imported */
  problem: string | undefined;
  /** the same command and args (or URL) as an earlier candidate: imported once, under that name */
  duplicateOf: string | undefined;
  /** servers.json already has it (same command and args, or URL) under `name` */
  existing: boolean;
  /**
   * existing or duplicate: the env variables (headers) and `cwd` it sets differently from the server it
   * maps to, which the editor then gets instead (names only; compared as written, see import-match.ts)
   */
  differs: string[];
  /** literal secrets (in env, headers, args or the url), which move into the keychain */
  secrets: SecretFinding[];
}

export interface ImportScan {
  candidates: ImportCandidate[];
  /** editors whose file could not be read (does not parse, …) */
  problems: { editor: EditorId; problem: string }[];
}

/** Lists the servers in editors' files that Switchboard does not manage (user entries). */
export function scanImports(engine: EditorSync, serversFile: string, from?: readonly EditorId[]): ImportScan {
  const existing = readServersFile(serversFile);
  if (!existing.ok)
    throw new UserError(`${serversFile} has errors; fix them first (see: switchboard status)`);
  const known = new Map<string, { name: string; settings: Settings }[]>(); // identity → servers.json's
  for (const [name, config] of existing.servers) {
    const id = identityOfConfig(config);
    if (id) known.set(id, [...(known.get(id) ?? []), { name, settings: settingsOfConfig(config) }]);
  }
  const taken = new Set(existing.servers.keys());
  const seen = new Map<string, { name: string; settings: Settings }>(); // identity → the first candidate
  const candidates: ImportCandidate[] = [];
  const problems: ImportScan['problems'] = [];

  // Claude Desktop first: that is where most hand-written servers already are, under the names
  // READMEs give them, so a server found in several editors is imported under its name there.
  const editors = [...(from ?? engine.activeEditors())].sort(
    (a, b) => Number(b === 'claude-desktop') - Number(a === 'claude-desktop'),
  );
  for (const editor of editors) {
    const adapter = EDITORS[editor];
    const read = engine.read(editor);
    if (read.kind === 'problem') {
      problems.push({ editor, problem: read.problem });
      continue;
    }
    if (read.text === undefined || read.text.trim() === '') continue;
    const listed = adapter.format.entries(read.text, adapter.serversKey);
    if (!listed.ok) {
      problems.push({ editor, problem: `${engine.fileOf(editor)}: ${listed.problem}` });
      continue;
    }
    const ownership = engine.ownership(editor);
    for (const [entry, value] of listed.entries) {
      // Switchboard's entries, and the user's own that reach a server through its bridge already:
      // importing one would make a server of Switchboard's bridge itself.
      if (ownsEntry(adapter, ownership, entry, value)) continue;
      if (adapter.pointsAtBridge(value, { ...ownership, ports: 'any' })) continue;
      const fixed = listed.fixed?.get(entry);
      const found: ReturnType<typeof adapter.foreignServer> = fixed
        ? { problem: fixed }
        : adapter.foreignServer(value);
      const candidate: ImportCandidate = {
        editor,
        entry,
        name: entry,
        server: undefined,
        problem: undefined,
        duplicateOf: undefined,
        existing: false,
        differs: [],
        secrets: [],
      };
      candidates.push(candidate);
      if ('problem' in found) {
        candidate.problem = found.problem;
        continue;
      }
      candidate.server = found;
      candidate.secrets = findLiteralSecrets(
        found.kind === 'stdio'
          ? { env: found.env, args: found.args }
          : { headers: found.headers, url: found.url },
      ).filter((f) => !inInputReference(valueAt(found, f.path), f));
      const id = identity(found);
      // Of servers.json's servers with this command, the one whose env differs least (the first on a tie).
      const already = (known.get(id) ?? [])
        .map((k) => ({ name: k.name, differs: differences(found, k.settings) }))
        .sort((a, b) => a.differs.length - b.differs.length)[0];
      if (already !== undefined) {
        candidate.name = already.name;
        candidate.existing = true;
        candidate.differs = already.differs;
        continue;
      }
      const first = seen.get(id);
      if (first !== undefined) {
        candidate.name = first.name;
        candidate.duplicateOf = first.name;
        candidate.differs = differences(found, first.settings);
        continue;
      }
      candidate.problem = importProblem(found);
      if (candidate.problem) continue;
      candidate.name = freeName(entry, editor, taken);
      taken.add(candidate.name);
      seen.set(id, { name: candidate.name, settings: settingsOf(found) });
    }
  }
  return { candidates, problems };
}

const INPUT_REFERENCE = /\$\{input:[^}]*\}/g;

/**
 * VS Code's `${input:ID}` is a prompt VS Code shows, not a value: it is no literal secret (and such an
 * entry cannot be imported anyway, see importProblem), so it is never labelled as one.
 */
function inInputReference(value: string | undefined, f: SecretFinding): boolean {
  if (value === undefined) return false;
  for (const m of value.matchAll(INPUT_REFERENCE))
    if (f.start < m.index + m[0].length && f.end > m.index) return true;
  return false;
}

function valueAt(server: ForeignServer, path: readonly (string | number)[]): string | undefined {
  const [field, key] = path;
  if (server.kind === 'stdio') {
    if (field === 'env' && typeof key === 'string') return server.env[key];
    if (field === 'args' && typeof key === 'number') return server.args[key];
    return undefined;
  }
  if (field === 'headers' && typeof key === 'string') return server.headers[key];
  if (field === 'url') return server.url;
  return undefined;
}

/** Why a server cannot be brought into servers.json as it is. */
function importProblem(server: ForeignServer): string | undefined {
  const values = server.kind === 'stdio' ? Object.values(server.env) : Object.values(server.headers);
  if (values.some((v) => /\$\{input:/.test(v)))
    return 'it asks VS Code for a value (${input:…}); add it by hand with a secret';
  const config = configOf(server);
  const checked = ServerConfigSchema.safeParse(config);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    return `${issue?.path.join('.') || 'config'}: ${issue?.message}`;
  }
  return undefined;
}

/** A valid, free servers.json name: the entry's own, else with the editor's id, else numbered. */
function freeName(entry: string, editor: EditorId, taken: ReadonlySet<string>): string {
  const base =
    entry
      .replace(/[^a-zA-Z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'server';
  if (!taken.has(base) && SERVER_NAME_PATTERN.test(base)) return base;
  const withEditor = `${base.slice(0, 47 - editor.length)}-${editor}`;
  if (!taken.has(withEditor)) return withEditor;
  for (let n = 2; ; n++) {
    const numbered = `${withEditor.slice(0, 44)}-${n}`;
    if (!taken.has(numbered)) return numbered;
  }
}

function configOf(server: ForeignServer): ServerConfigInput & Record<string, unknown> {
  if (server.kind === 'remote') return { url: server.url, headers: { ...server.headers } };
  return {
    command: server.command,
    args: [...server.args],
    env: { ...server.env },
    ...(server.cwd ? { cwd: server.cwd } : {}),
  };
}

/**
 * What a listing showed, as one digest: every candidate with its name, verdict and exactly what it
 * runs. An import applied elsewhere (by a running Switchboard for the CLI) is refused when its own
 * scan digests differently: the editors' files changed since the person saw the listing.
 */
export function importListing(scan: ImportScan): string {
  const shown = scan.candidates.map((c) => ({
    editor: c.editor,
    entry: c.entry,
    name: c.name,
    problem: c.problem ?? null,
    duplicateOf: c.duplicateOf ?? null,
    existing: c.existing,
    differs: c.differs,
    server: c.server ?? null,
    secrets: c.secrets.map((f) => f.path),
  }));
  return createHash('sha256').update(canonicalJson(shown)).digest('hex');
}

/** The editors' files changed between the listing the person saw and the import: nothing was done. */
export class StaleImportListing extends UserError {
  constructor() {
    super("the editors' files changed since the servers to import were listed; nothing was imported", {
      hint: 'run switchboard import again to see what there is now',
    });
    this.name = 'StaleImportListing';
  }
}

export interface ImportResult {
  /** servers added to servers.json (and approved) */
  imported: string[];
  /** secrets stored in the keychain: name → the server and key they came from */
  secrets: { name: string; server: string; key: string }[];
  /** editor files rewritten so their entries are managed ones */
  reports: EditorReport[];
  skipped: ImportCandidate[];
}

export interface ImportOptions {
  home: HomePaths;
  env: NodeJS.ProcessEnv;
  /** PATH commands are found on, as `serve` finds them (on macOS the login shell's): the approval's fingerprint depends on it */
  commandPath?: string | undefined;
  platform?: NodeJS.Platform;
  state: Pick<AppStateStore, 'approve' | 'noteSource'>;
  keychain: Keychain;
  engine: { readonly backups: Pick<Backups, 'scrub'>; sync: EditorSync['sync'] };
  /** the servers editors get after the import (read again from the files) */
  syncServers: () => SyncServer[] | Promise<SyncServer[]>;
  now?: number;
}

/**
 * Brings the candidates into servers.json: literal secrets into the keychain first (servers.json only
 * ever sees `${secret:NAME}`), then approved (source "import": the listing showed the exact command),
 * then written; finally each editor's entries are replaced by managed ones, after a backup that holds
 * references instead of the secrets. Existing backups lose their copies of the secrets too.
 */
export async function applyImport(scan: ImportScan, options: ImportOptions): Promise<ImportResult> {
  const { home, keychain, state } = options;
  const platform = options.platform ?? process.platform;
  const imported: string[] = [];
  const moved: { name: string; server: string; key: string; raw: string }[] = [];
  const skipped: ImportCandidate[] = [];

  for (const c of scan.candidates) {
    if (c.problem || !c.server) {
      skipped.push(c);
      continue;
    }
    if (c.existing || c.duplicateOf !== undefined) {
      // Its entry is replaced too: a literal secret in it goes to the keychain like the others, so the
      // backup and what unsync keeps of the entry hold a reference, and unsync can put it back.
      if (c.secrets.length) {
        for (const stored of await storeLiteralSecrets(c.name, configOf(c.server), c.secrets, keychain))
          moved.push({ ...stored, server: c.name });
      }
      continue;
    }
    const config = configOf(c.server);
    for (const stored of await storeLiteralSecrets(c.name, config, c.secrets, keychain)) {
      moved.push({ ...stored, server: c.name });
    }
    const parsed = ServerConfigSchema.parse(config);
    // Approve first: a running Switchboard that reloads servers.json then finds the approval in place.
    const entry = serverEntry(c.name, parsed, (cwd) => ({
      path: options.commandPath ?? options.env.PATH,
      pathExt: options.env.PATHEXT,
      cwd: cwd ?? home.root,
      platform,
    }));
    if (entry.refusal) {
      c.problem = entry.refusal;
      skipped.push(c);
      continue;
    }
    const now = options.now ?? Date.now();
    state.approve(c.name, entry.fingerprint, entry.launch, 'import', now);
    // Bound to the entry as written, the source outlives the approval: a package run still to be
    // resolved, or a later grant, says "imported" rather than "edited by hand".
    state.noteSource(c.name, 'import', configHash(parsed), now);
    setServer(home.serversFile, c.name, config);
    imported.push(c.name);
  }

  // The editors' own entries become managed ones (adopted), where Switchboard now serves that server.
  const adopt = new Map<EditorId, Map<string, string>>();
  for (const c of scan.candidates) {
    if (c.problem || !c.server) continue;
    if (!adopt.has(c.editor)) adopt.set(c.editor, new Map());
    adopt.get(c.editor)?.set(c.entry, c.name);
  }
  const spansFor = (text: string): SecretSpan[] => {
    const spans: SecretSpan[] = [];
    // Longest first; a place already taken (the same secret found in two entries) counts once.
    for (const m of [...moved].sort((a, b) => b.raw.length - a.raw.length)) {
      for (let at = text.indexOf(m.raw); at >= 0; at = text.indexOf(m.raw, at + m.raw.length)) {
        const end = at + m.raw.length;
        if (spans.some((s) => at < s.offset + s.length && end > s.offset)) continue;
        spans.push({ name: m.name, offset: at, length: m.raw.length });
      }
    }
    return spans;
  };
  const secretsInFile = new Map<EditorId, (text: string) => SecretSpan[]>(
    [...adopt.keys()].map((e) => [e, spansFor]),
  );
  const reports = adopt.size
    ? await options.engine.sync(await options.syncServers(), {
        editors: [...adopt.keys()],
        adopt,
        secretsInFile,
      })
    : [];
  for (const m of moved) options.engine.backups.scrub(m.raw, m.name);
  return {
    imported,
    secrets: moved.map(({ name, server, key }) => ({ name, server, key })),
    reports,
    skipped,
  };
}
