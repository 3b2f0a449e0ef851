import { join } from 'node:path';
import {
  ActionResultSchema,
  ApiErrorSchema,
  ApiEventSchema,
  ApiRoutes,
  ApprovalPreviewSchema,
  LogsResponseSchema,
  TokenCreatedSchema,
  ToolReviewSchema,
  type ToolReview,
  TokenListSchema,
  type ApprovalPreview,
  type ApiEvent,
  type InstanceInfo,
  type ServerAction,
  type TokenCreated,
  type TokenInfo,
} from '../../shared/api.ts';
import type { EditorId } from '../../shared/editors.ts';
import {
  BackupRestoreResultSchema,
  EditorCliRoutes,
  EditorsUnsyncResultSchema,
  ImportDoneSchema,
  type BackupRestoreResult,
  type EditorsUnsyncRequest,
  type EditorsUnsyncResult,
  type ImportDone,
  type ImportRequest,
} from '../../shared/editor-report.ts';
import {
  EditorToolsViewSchema,
  type EditorToolsChange,
  type EditorToolsView,
} from '../../shared/editor-tools.ts';
import type { LogLine } from '../../shared/logs.ts';
import {
  EditorRestartResultSchema,
  EditorsSyncResultSchema,
  LoginLinkSchema,
  UiRoutes,
  type EditorRestartResult,
  type EditorsSyncResult,
  SecretHeldResultSchema,
  SecretSetResultSchema,
  SecretsResponseSchema,
  OkSchema,
  type SecretHeld,
  type SecretSetResult,
  type SecretsResponse,
} from '../../shared/ui-api.ts';
import { StatusReportSchema, type StatusReport } from '../../shared/status.ts';
import { ProjectsViewSchema, type ProjectsView } from '../../shared/schema/projects.ts';
import { ProjectRoutes } from '../../shared/projects-api.ts';
import {
  SignInInfoSchema,
  SignInStartSchema,
  type SignInInfo,
  type SignInRequest,
  type SignInStart,
} from '../../shared/sign-in.ts';
import {
  CatalogDetailSchema,
  CatalogInstallResultSchema,
  CatalogPageSchema,
  CatalogRegistrySchema,
  CatalogRoutes,
  type CatalogDetail,
  type CatalogInstallRequest,
  type CatalogInstallResult,
  type CatalogPage,
  type CatalogRegistry,
  type CatalogSearchRequest,
  type CatalogServerRequest,
} from '../../shared/catalog.ts';
import {
  OutdatedReportSchema,
  StorePruneResultSchema,
  StoreUsageSchema,
  type OutdatedReport,
  type StorePruneResult,
  type StoreUsage,
} from '../../shared/store.ts';
import { CONTROL_TOKEN, readToken } from '../core/tokens/token-file.ts';
import { UserError } from '../core/errors.ts';
import { findInstance } from '../core/instance-file.ts';
import type { HomePaths } from '../core/home.ts';
import { z } from 'zod';

const SignedOutSchema = z.object({ signedOut: z.number() });

/** Talks to a running instance over its control API (127.0.0.1, control token). */
export class InstanceClient {
  readonly #base: string;
  readonly #token: string;

  constructor(info: InstanceInfo, token: string) {
    this.#base = `http://127.0.0.1:${info.port}`;
    this.#token = token;
  }

  static connect(home: HomePaths): InstanceClient | undefined {
    const info = findInstance(home);
    if (!info) return undefined;
    const token = readToken(home.tokens, CONTROL_TOKEN);
    if (!token)
      throw new UserError(
        `Switchboard is running (pid ${info.pid}) but ${join(home.tokens, CONTROL_TOKEN)} is missing`,
      );
    return new InstanceClient(info, token);
  }

  async status(): Promise<StatusReport> {
    return StatusReportSchema.parse(await this.#request('GET', ApiRoutes.status));
  }

  /** The projects and the folders offered now (only a running serve has offers). */
  async projects(): Promise<ProjectsView> {
    return ProjectsViewSchema.parse(await this.#request('GET', ProjectRoutes.projects));
  }

  async action(
    name: string,
    action: Exclude<ServerAction, 'approve'>,
  ): Promise<z.infer<typeof ActionResultSchema>> {
    return ActionResultSchema.parse(await this.#request('POST', ApiRoutes.serverAction(name, action)));
  }

  /**
   * What approving the server would allow now, and the fingerprint to approve exactly that by
   * (`fresh`: its package resolved again, for an update).
   */
  async review(name: string, fresh = false): Promise<ApprovalPreview> {
    return ApprovalPreviewSchema.parse(
      await this.#request('GET', `${ApiRoutes.approval(name)}${fresh ? '?fresh=1' : ''}`),
    );
  }

  async outdated(names: string[]): Promise<OutdatedReport> {
    const query = names.map((n) => `server=${encodeURIComponent(n)}`).join('&');
    return OutdatedReportSchema.parse(
      await this.#request('GET', `${ApiRoutes.outdated}${query ? `?${query}` : ''}`),
    );
  }

  async storeUsage(): Promise<StoreUsage> {
    return StoreUsageSchema.parse(await this.#request('GET', ApiRoutes.store));
  }

  async pruneStore(): Promise<StorePruneResult> {
    return StorePruneResultSchema.parse(await this.#request('POST', ApiRoutes.storePrune));
  }

  /** Approves the server if its config still has the fingerprint that was shown. */
  async approve(name: string, fingerprint: string): Promise<z.infer<typeof ActionResultSchema>> {
    return ActionResultSchema.parse(
      await this.#request('POST', ApiRoutes.serverAction(name, 'approve'), { fingerprint }),
    );
  }

  /** The server's tools as pinned, and the change to them that waits for a decision. */
  async toolReview(name: string): Promise<ToolReview> {
    return ToolReviewSchema.parse(await this.#request('GET', ApiRoutes.toolReview(name)));
  }

  /** Accepts the change to the server's tools if it is still the one that was shown. */
  async acceptTools(name: string, change: string): Promise<void> {
    await this.#request('POST', ApiRoutes.acceptTools(name), { change });
  }

  async logs(name: string, limit: number): Promise<LogLine[]> {
    return LogsResponseSchema.parse(await this.#request('GET', `${ApiRoutes.logs(name)}?limit=${limit}`))
      .lines;
  }

  async tokens(): Promise<TokenInfo[]> {
    return TokenListSchema.parse(await this.#request('GET', ApiRoutes.tokens)).tokens;
  }

  async createToken(name: string): Promise<TokenCreated> {
    return TokenCreatedSchema.parse(await this.#request('POST', ApiRoutes.tokens, { name }));
  }

  async revokeToken(name: string): Promise<void> {
    await this.#request('DELETE', ApiRoutes.token(name));
  }

  /**
   * Editor sync by the running instance (its own relay command and tokens), one editor or all; with
   * `selection`, that editor's excluded servers change first.
   */
  async syncEditors(
    editor?: EditorId,
    selection?: { exclude: string[]; include: string[] },
  ): Promise<EditorsSyncResult> {
    return EditorsSyncResultSchema.parse(
      await this.#request('POST', UiRoutes.editorsSync, editor ? { editor, ...selection } : {}),
    );
  }

  /** Unsync by the running instance, in one run (its drift repair cannot interleave). */
  async unsyncEditors(request: EditorsUnsyncRequest): Promise<EditorsUnsyncResult> {
    return EditorsUnsyncResultSchema.parse(await this.#request('POST', EditorCliRoutes.unsync, request));
  }

  /** Import by the running instance, of exactly the listing shown (else 409, nothing done). */
  async importEditors(request: ImportRequest): Promise<ImportDone> {
    return ImportDoneSchema.parse(await this.#request('POST', EditorCliRoutes.import, request));
  }

  /** Restores an editor's backup through the running instance. */
  async restoreBackup(backup: string): Promise<BackupRestoreResult> {
    return BackupRestoreResultSchema.parse(await this.#request('POST', EditorCliRoutes.restore, { backup }));
  }

  /** An editor's tool view (what it gets, tokens, limits), from the running instance. */
  async editorTools(editor: EditorId): Promise<EditorToolsView> {
    return EditorToolsViewSchema.parse(await this.#request('GET', UiRoutes.editorTools(editor)));
  }

  async changeEditorTools(editor: EditorId, change: EditorToolsChange): Promise<EditorToolsView> {
    return EditorToolsViewSchema.parse(await this.#request('POST', UiRoutes.editorTools(editor), change));
  }

  /** Restarts Claude Desktop through the running instance (its Editors view updates at once). */
  async restartEditor(editor: EditorId): Promise<EditorRestartResult> {
    return EditorRestartResultSchema.parse(await this.#request('POST', UiRoutes.editorRestart(editor)));
  }

  /** Stores a secret through the running instance, which restarts the servers waiting for it. */
  async setSecret(name: string, value: string): Promise<SecretSetResult> {
    return SecretSetResultSchema.parse(await this.#request('PUT', UiRoutes.secret(name), { value }));
  }

  /** Secret names in the instance's keychain and who uses them (never values). */
  async secrets(): Promise<SecretsResponse> {
    return SecretsResponseSchema.parse(await this.#request('GET', UiRoutes.secrets));
  }

  async deleteSecret(name: string): Promise<void> {
    OkSchema.parse(await this.#request('DELETE', UiRoutes.secret(name)));
  }

  /** Whether the instance's keychain has `name`, with this value or another (never the value). */
  async secretHeld(name: string, value: string): Promise<SecretHeld> {
    return SecretHeldResultSchema.parse(await this.#request('POST', UiRoutes.secretHeld(name), { value }))
      .held;
  }

  /** Starts a sign-in to a remote server in the running instance (it listens for the browser). */
  async signIn(name: string, request: SignInRequest = {}): Promise<SignInStart> {
    const start = SignInStartSchema.safeParse(await this.#request('POST', ApiRoutes.signIn(name), request));
    if (start.success) return start.data;
    throw new UserError(
      `cannot sign in to "${name}": ${start.error.issues[0]?.message ?? 'unexpected answer'}`,
    );
  }

  async signInInfo(name: string): Promise<SignInInfo> {
    return SignInInfoSchema.parse(await this.#request('GET', ApiRoutes.signIn(name)));
  }

  /** Forgets a server's sign-in; true if there was one. */
  async signOut(name: string): Promise<boolean> {
    const body = await this.#request('DELETE', ApiRoutes.signIn(name));
    return typeof body === 'object' && body !== null && 'signedOut' in body && body.signedOut === true;
  }

  /** The live events of /api/events, parsed, until `signal` aborts or the stream ends. */
  async *subscribe(signal: AbortSignal): AsyncGenerator<ApiEvent> {
    const stream = await this.events(signal);
    let buffer = '';
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!frame.startsWith('data: ')) continue;
        const event = ApiEventSchema.safeParse(JSON.parse(frame.slice(6)));
        if (event.success) yield event.data;
      }
    }
  }

  // The catalog, through the running instance: its registry setting, cache and keychain, and the
  // approval then says the server came from the catalog.
  async catalogSearch(request: CatalogSearchRequest): Promise<CatalogPage> {
    return CatalogPageSchema.parse(await this.#request('POST', CatalogRoutes.search, request));
  }

  async catalogDetail(request: CatalogServerRequest): Promise<CatalogDetail> {
    return CatalogDetailSchema.parse(await this.#request('POST', CatalogRoutes.server, request));
  }

  async catalogInstall(request: CatalogInstallRequest): Promise<CatalogInstallResult> {
    return CatalogInstallResultSchema.parse(await this.#request('POST', CatalogRoutes.install, request));
  }

  async catalogRegistry(): Promise<CatalogRegistry> {
    return CatalogRegistrySchema.parse(await this.#request('GET', CatalogRoutes.registry));
  }

  async setCatalogRegistry(url: string | null): Promise<CatalogRegistry> {
    return CatalogRegistrySchema.parse(await this.#request('PUT', CatalogRoutes.registry, { url }));
  }

  /** Opens /api/events; returns the response body as a stream of SSE frames. */
  async events(signal: AbortSignal): Promise<ReadableStream<Uint8Array>> {
    const res = await fetch(this.#base + ApiRoutes.events, { headers: this.#headers(), signal });
    if (!res.ok || !res.body)
      throw new UserError(`Switchboard refused the event stream (HTTP ${res.status})`);
    return res.body;
  }

  #headers(): Record<string, string> {
    return { authorization: `Bearer ${this.#token}` };
  }

  /** A fresh one-time sign-in link for a browser. */
  async loginLink(): Promise<z.infer<typeof LoginLinkSchema>> {
    return LoginLinkSchema.parse(await this.#request('POST', UiRoutes.loginLink));
  }

  /** Signs every browser out of the UI; how many were signed in. */
  async signOutBrowsers(): Promise<number> {
    const { signedOut } = SignedOutSchema.parse(await this.#request('DELETE', UiRoutes.sessions));
    return signedOut;
  }

  async #request(method: string, path: string, payload?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.#base + path, {
        method,
        headers:
          payload === undefined
            ? this.#headers()
            : { ...this.#headers(), 'content-type': 'application/json' },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
    } catch (err) {
      throw new UserError(`cannot reach the running Switchboard at ${this.#base}`, {
        cause: err,
        hint: 'is `switchboard serve` still running?',
      });
    }
    const body: unknown = await res.json().catch(() => ({}));
    if (!res.ok) {
      const parsed = ApiErrorSchema.safeParse(body);
      throw new UserError(parsed.success ? parsed.data.error : `Switchboard answered HTTP ${res.status}`);
    }
    return body;
  }
}
