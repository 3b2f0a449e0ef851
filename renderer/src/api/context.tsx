import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import type { StatusReport } from '../../../shared/status.ts';
import { UiApiError, type ApiEvent, type ConnectionState, type UiApi } from '../../../shared/ui-api.ts';
import { LogStore } from './log-store.ts';
import { keys } from './keys.ts';

interface ApiContextValue {
  api: UiApi;
  logs: LogStore;
  connection: ConnectionStore;
  statusEpoch: StatusEpoch;
}

/**
 * Counts live events that changed the cached status. A status fetch that was in flight while one
 * arrived may carry older state than the cache now holds, so its answer is dropped (see useStatus).
 */
export class StatusEpoch {
  value = 0;
}

const ApiContext = createContext<ApiContextValue | null>(null);

/**
 * The connection state as an external store, for useSyncExternalStore, and since when what the page
 * shows is only the last known state: Switchboard said it was stopping (or stopped answering) then.
 */
class ConnectionStore {
  state: ConnectionState = 'connecting';
  /** ms since the epoch; undefined while live */
  lastKnownAt: number | undefined;
  readonly #listeners = new Set<() => void>();
  set(state: ConnectionState): void {
    this.state = state;
    if (state === 'live') this.lastKnownAt = undefined;
    // Gone without saying it was stopping (killed, crashed): what was shown until now is the last state.
    else if (state === 'offline') this.lastKnownAt ??= Date.now();
    this.#notify();
  }
  stopping(at: number): void {
    this.lastKnownAt = at;
    this.#notify();
  }
  #notify(): void {
    for (const l of this.#listeners) l();
  }
  subscribe = (listener: () => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };
}

function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // Data changes arrive by subscription; nothing is refetched on a timer or on focus.
        staleTime: Infinity,
        refetchOnWindowFocus: false,
        refetchOnReconnect: false,
        retry: (count, err) =>
          !(err instanceof UiApiError && err.status >= 400 && err.status < 500) && count < 2,
      },
      mutations: { retry: false },
    },
  });
}

/** Applies one live event to the query cache and the log store. */
export function applyEvent(client: QueryClient, logs: LogStore, event: ApiEvent, epoch?: StatusEpoch): void {
  if (epoch && (event.type === 'status' || event.type === 'config' || event.type === 'removed'))
    epoch.value++;
  switch (event.type) {
    case 'log':
      logs.append(event.line);
      return;
    case 'config':
      client.setQueryData<StatusReport>(keys.status, event.report);
      // servers.json was read again (a hand edit, or ours): everything derived from it may differ.
      void client.invalidateQueries({ queryKey: ['config'] });
      void client.invalidateQueries({ queryKey: keys.approvals });
      void client.invalidateQueries({ queryKey: keys.secrets });
      void client.invalidateQueries({ queryKey: keys.editors });
      void client.invalidateQueries({ queryKey: ['editor-tools'] });
      void client.invalidateQueries({ queryKey: ['tools'] });
      void client.invalidateQueries({ queryKey: keys.updates });
      return;
    case 'editors':
      void client.invalidateQueries({ queryKey: keys.editors });
      return;
    case 'editor-tools':
      void client.invalidateQueries({ queryKey: keys.editorTools(event.editor) });
      return;
    case 'tool-change':
      void client.invalidateQueries({ queryKey: keys.toolChanges });
      void client.invalidateQueries({ queryKey: keys.tools(event.server) });
      void client.invalidateQueries({ queryKey: ['editor-tools'] });
      return;
    case 'activity':
      for (const server of event.servers) void client.invalidateQueries({ queryKey: keys.activity(server) });
      return;
    case 'sign-in':
      void client.invalidateQueries({ queryKey: keys.signIn(event.outcome.name) });
      return;
    case 'stopping':
      return; // the provider keeps the state from before (see ApiProvider)
    case 'projects':
      void client.invalidateQueries({ queryKey: keys.projects });
      return;
    case 'updates':
      void client.invalidateQueries({ queryKey: keys.updates });
      return;
    case 'approval':
      // A package resolved (or not) for a server waiting for approval: its card fills in.
      void client.invalidateQueries({ queryKey: keys.approvals });
      return;
    case 'removed': {
      client.setQueryData<StatusReport>(keys.status, (old) =>
        old ? { ...old, servers: old.servers.filter((s) => s.name !== event.name) } : old,
      );
      void client.invalidateQueries({ queryKey: keys.approvals });
      void client.invalidateQueries({ queryKey: keys.updates });
      return;
    }
    case 'status': {
      const next = event.status;
      const old = client.getQueryData<StatusReport>(keys.status);
      if (!old) {
        void client.invalidateQueries({ queryKey: keys.status });
        return;
      }
      const prev = old.servers.find((s) => s.name === next.name);
      const servers = prev
        ? old.servers.map((s) => (s.name === next.name ? next : s))
        : [...old.servers, next];
      client.setQueryData<StatusReport>(keys.status, { ...old, servers });
      const trust = (s: typeof prev) => s?.state === 'pending-approval' || s?.state === 'denied';
      if (!prev || prev.state !== next.state || prev.fingerprint !== next.fingerprint) {
        if (trust(prev) || trust(next) || prev?.fingerprint !== next.fingerprint)
          void client.invalidateQueries({ queryKey: keys.approvals });
        // Approved again (an update): what the last check found for it no longer applies.
        if (prev && prev.fingerprint !== next.fingerprint)
          void client.invalidateQueries({ queryKey: keys.updates });
      }
      if (!prev || prev.state !== next.state || prev.toolCount !== next.toolCount) {
        void client.invalidateQueries({ queryKey: keys.tools(next.name) });
        void client.invalidateQueries({ queryKey: ['editor-tools'] });
      }
      if (next.transport === 'http' && prev?.state !== next.state)
        void client.invalidateQueries({ queryKey: keys.signIn(next.name) });
      return;
    }
  }
}

export function ApiProvider({ api, children }: { api: UiApi; children: ReactNode }) {
  const [client] = useState(newQueryClient);
  const [logs] = useState(() => new LogStore());
  const [connection] = useState(() => new ConnectionStore());
  const [statusEpoch] = useState(() => new StatusEpoch());

  useEffect(() => {
    let wasDown = false;
    const offConnection = api.onConnection((state) => {
      connection.set(state);
      if (state === 'reconnecting' || state === 'offline' || state === 'signed-out') wasDown = true;
      // Events may have been missed while the stream was down: refetch what is on screen.
      if (state === 'live' && wasDown) {
        wasDown = false;
        void client.invalidateQueries();
      }
    });
    const offEvents = api.subscribe((event) => {
      // Switchboard is stopping: the status events that follow are its servers stopped with it. The
      // page keeps showing how things stood before (marked as such) until it is back and refetches.
      if (event.type === 'stopping') connection.stopping(event.at);
      if (connection.lastKnownAt !== undefined && FROZEN_WHILE_STOPPED.has(event.type)) return;
      applyEvent(client, logs, event, statusEpoch);
    });
    return () => {
      offEvents();
      offConnection();
    };
  }, [api, client, logs, connection, statusEpoch]);

  return (
    <ApiContext.Provider value={{ api, logs, connection, statusEpoch }}>
      <QueryClientProvider client={client}>{children}</QueryClientProvider>
    </ApiContext.Provider>
  );
}

const FROZEN_WHILE_STOPPED = new Set<ApiEvent['type']>(['status', 'removed', 'config']);

function useApiContext(): ApiContextValue {
  const value = useContext(ApiContext);
  if (!value) throw new Error('useApi outside <ApiProvider>');
  return value;
}

export function useApi(): UiApi {
  return useApiContext().api;
}

export function useStatusEpoch(): StatusEpoch {
  return useApiContext().statusEpoch;
}

export function useLogStore(): LogStore {
  return useApiContext().logs;
}

export function useConnection(): ConnectionState {
  const { connection } = useApiContext();
  return useSyncExternalStore(connection.subscribe, () => connection.state);
}

/**
 * When Switchboard stopped (ms since the epoch), while the page shows the last state it knew; undefined
 * while it is live.
 */
export function useLastKnownAt(): number | undefined {
  const { connection } = useApiContext();
  return useSyncExternalStore(connection.subscribe, () => connection.lastKnownAt);
}
