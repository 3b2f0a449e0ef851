import { useMutation, useQuery, useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect, useSyncExternalStore } from 'react';
import type { EditorId } from '../../../shared/editors.ts';
import type { LogLine } from '../../../shared/logs.ts';
import type { StatusReport } from '../../../shared/status.ts';
import { useApi, useLogStore, useStatusEpoch } from './context.tsx';
import { keys } from './keys.ts';

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
  const api = useApi();
  return useQuery({ queryKey: keys.config(name), queryFn: () => api.serverConfig(name) });
}

export function useTools(name: string) {
  const api = useApi();
  return useQuery({ queryKey: keys.tools(name), queryFn: () => api.tools(name) });
}

export function useEditorTools(editor: EditorId, enabled = true) {
  const api = useApi();
  return useQuery({ queryKey: keys.editorTools(editor), queryFn: () => api.editorTools(editor), enabled });
}

export function useActivity(name: string) {
  const api = useApi();
  return useQuery({ queryKey: keys.activity(name), queryFn: () => api.activity(name) });
}

export function useToolChanges() {
  const api = useApi();
  return useQuery({ queryKey: keys.toolChanges, queryFn: () => api.toolChanges() });
}

export function useApprovals() {
  const api = useApi();
  return useQuery({ queryKey: keys.approvals, queryFn: () => api.approvals() });
}

export function useSecrets() {
  const api = useApi();
  return useQuery({ queryKey: keys.secrets, queryFn: () => api.secrets() });
}

export function useSettings() {
  const api = useApi();
  return useQuery({ queryKey: keys.settings, queryFn: () => api.settings() });
}

export function useStoreUsage() {
  const api = useApi();
  return useQuery({ queryKey: keys.store, queryFn: () => api.storeUsage() });
}

export function useUpdates() {
  const api = useApi();
  return useQuery({ queryKey: keys.updates, queryFn: () => api.updates() });
}

export function useTokens() {
  const api = useApi();
  return useQuery({ queryKey: keys.tokens, queryFn: () => api.tokens() });
}

export function useBrowserSessions() {
  const api = useApi();
  return useQuery({ queryKey: keys.browserSessions, queryFn: () => api.browserSessions() });
}

export function useSignInInfo(name: string, enabled = true) {
  const api = useApi();
  return useQuery({ queryKey: keys.signIn(name), queryFn: () => api.signInInfo(name), enabled });
}

export function useEditors() {
  const api = useApi();
  return useQuery({ queryKey: keys.editors, queryFn: () => api.editors() });
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
