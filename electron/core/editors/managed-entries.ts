import { AGGREGATE_ENTRY } from '../../../shared/bridge.ts';
import type { EditorId } from '../../../shared/editors.ts';
import type { HomePaths } from '../home.ts';
import { editorTokenFile, type TokenStore } from '../tokens/token-store.ts';
import { headersHelperCommand } from './headers-helper.ts';
import { aggregateUrl, bridgeUrl } from './ownership.ts';
import type { EditorAdapter, RelayCommand } from './types.ts';

/** Stands for a token a dry run would issue. */
const NEW_TOKEN = '<new token>';

/** The editor's bridge token if it has one; a dry run never issues one. */
export function existingToken(tokens: Pick<TokenStore, 'get'>, editor: EditorId): string {
  return tokens.get(editor) ?? NEW_TOKEN;
}

/** An editor's bridge token as its entries ask for it: issued on first use (a dry run never issues one). */
export class TokenOnDemand {
  readonly #tokens: Pick<TokenStore, 'get' | 'ensure'>;
  readonly #editor: EditorId;
  readonly #dryRun: boolean;
  #token: string | undefined;

  constructor(tokens: Pick<TokenStore, 'get' | 'ensure'>, editor: EditorId, dryRun: boolean) {
    this.#tokens = tokens;
    this.#editor = editor;
    this.#dryRun = dryRun;
  }

  /** The token, issued now if the editor has none yet. */
  get(): string {
    return (this.#token ??= this.#dryRun
      ? existingToken(this.#tokens, this.#editor)
      : this.#tokens.ensure(this.#editor));
  }

  /** The token if something asked for it so far. */
  get asked(): string | undefined {
    return this.#token;
  }
}

/** Where managed entries point and what they are made from. */
export interface EntrySources {
  home: HomePaths;
  platform: NodeJS.Platform;
  /** the bridge port managed entries point at */
  port: number;
  relay: RelayCommand;
  tokens: Pick<TokenStore, 'dir'>;
}

/**
 * The managed entry of each server name as the adapter writes it (in discovery mode the one
 * AGGREGATE_ENTRY, pointing at /mcp); `helperUsed` says whether one of them runs the header helper.
 */
export function managedEntries(
  adapter: EditorAdapter,
  names: readonly string[],
  discovery: boolean,
  sources: EntrySources,
  token: TokenOnDemand,
): { readonly desired: Map<string, Record<string, unknown>>; readonly helperUsed: boolean } {
  let helperUsed = false;
  const headersHelper = () => {
    helperUsed = true;
    return headersHelperCommand(sources.home, adapter.id, sources.platform);
  };
  const desired = new Map<string, Record<string, unknown>>();
  for (const server of names) {
    const aggregate = discovery && server === AGGREGATE_ENTRY;
    desired.set(
      server,
      adapter.managedEntry({
        editor: adapter.id,
        server,
        aggregate,
        url: aggregate ? aggregateUrl(sources.port) : bridgeUrl(sources.port, server),
        token: () => token.get(),
        tokenFile: editorTokenFile(sources.tokens.dir, adapter.id),
        headersHelper,
        relay: sources.relay,
      }),
    );
  }
  return {
    desired,
    get helperUsed() {
      return helperUsed;
    },
  };
}
