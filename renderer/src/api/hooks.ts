import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import type { EditorId } from '../../../shared/editors.ts';
import type { LogLine } from '../../../shared/logs.ts';
import type { StatusReport } from '../../../shared/status.ts';
import type { UiApi } from '../../../shared/ui-api.ts';
import { useApi, useLogStore, useStatusEpoch } from './context.tsx';
import { keys } from './keys.ts';

/** A query of the core through the UI API, cached under `queryKey`. */
function useApiQuery<T>(queryKey: QueryKey, fetch: (api: UiApi) => Promise<T>, enabled = true) {
  const api = useApi();
  return useQuery({ queryKey, queryFn: () => fetch(api), enabled });
}

export function useStatus() {
  const api = useApi();
  const client = useQueryClient();
  const epoch = useStatusEpoch();
  return useQuery({
    queryKey: keys.status,
    queryFn: async () => {
      const before = epoch.value;
      const report = await api.status();
      // Live events arrived while this was in flight: the cache they updated is newer than this answer.
      const cached = client.getQueryData<StatusReport>(keys.status);
      return epoch.value !== before && cached ? cached : report;
    },
  });
}

export function useServerConfig(name: string) {
  return useApiQuery(keys.config(name), (api) => api.serverConfig(name));
}

export function useTools(name: string) {
  return useApiQuery(keys.tools(name), (api) => api.tools(name));
}

export function useEditorTools(editor: EditorId, enabled = true) {
  return useApiQuery(keys.editorTools(editor), (api) => api.editorTools(editor), enabled);
}

export function useActivity(name: string) {
  return useApiQuery(keys.activity(name), (api) => api.activity(name));
}

export function useToolChanges() {
  return useApiQuery(keys.toolChanges, (api) => api.toolChanges());
}

export function useApprovals() {
  const api = useApi();
  return useQuery({
    queryKey: keys.approvals,
    queryFn: () => api.approvals(),
    // A resolution's `approval` event can come while the request that started it is still answering
    // (a fast failure): that event's refetch then joins the old request, and the card would say
    // "resolving" until something else changed. Asking again every 2 s while one resolves ends that.
    refetchInterval: (query) => (query.state.data?.some((a) => a.resolving) ? 2000 : false),
  });
}

export function useSecrets() {
  return useApiQuery(keys.secrets, (api) => api.secrets());
}

/** Projects, asked again every few seconds too: who works in each now changes with no event. */
export function useProjects() {
  const api = useApi();
  return useQuery({ queryKey: keys.projects, queryFn: () => api.projects(), refetchInterval: 5_000 });
}

export function useSettings() {
  return useApiQuery(keys.settings, (api) => api.settings());
}

export function useStoreUsage() {
  return useApiQuery(keys.store, (api) => api.storeUsage());
}

export function useUpdates() {
  return useApiQuery(keys.updates, (api) => api.updates());
}

export function useTokens() {
  return useApiQuery(keys.tokens, (api) => api.tokens());
}

export function useBrowserSessions() {
  return useApiQuery(keys.browserSessions, (api) => api.browserSessions());
}

export function useSignInInfo(name: string, enabled = true) {
  return useApiQuery(keys.signIn(name), (api) => api.signInInfo(name), enabled);
}

export function useEditors() {
  return useApiQuery(keys.editors, (api) => api.editors());
}

/**
 * A command: runs `fn`, then refetches what it changed (live events cover the rest).
 * Errors stay on the mutation for the view to show in words.
 */
export function useCommand<TArgs, TResult>(
  fn: (args: TArgs) => Promise<TResult>,
  invalidate: QueryKey[] = [],
) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: async () => {
      await Promise.all(invalidate.map((queryKey) => client.invalidateQueries({ queryKey })));
    },
  });
}

/**
 * A server's log: history from the core once, then every line the subscription brings. Re-renders at
 * most once per animation frame however fast lines arrive.
 */
export function useServerLog(name: string): {
  lines: readonly LogLine[];
  version: number;
  generation: number;
  seeded: boolean;
} {
  const api = useApi();
  const store = useLogStore();
  const version = useSyncExternalStore(
    (listener) => store.subscribe(name, listener),
    () => store.version(name),
  );
  useEffect(() => {
    if (store.isSeeded(name)) return;
    let cancelled = false;
    api
      .logs(name)
      .then((history) => {
        if (!cancelled) store.seed(name, history);
      })
      .catch(() => {
        if (!cancelled) store.seed(name, []);
      });
    return () => {
      cancelled = true;
    };
  }, [api, store, name]);
  return {
    lines: store.lines(name),
    version,
    generation: store.generation(name),
    seeded: store.isSeeded(name),
  };
}
