/** react-query keys: one place, so live events invalidate exactly what they change. */
export const keys = {
  status: ['status'] as const,
  config: (name: string) => ['config', name] as const,
  tools: (name: string) => ['tools', name] as const,
  activity: (name: string) => ['activity', name] as const,
  toolChanges: ['tool-changes'] as const,
  approvals: ['approvals'] as const,
  secrets: ['secrets'] as const,
  settings: ['settings'] as const,
  projects: ['projects'] as const,
  tokens: ['tokens'] as const,
  browserSessions: ['browser-sessions'] as const,
  store: ['store'] as const,
  /** what the last check for updates found */
  updates: ['updates'] as const,
  editors: ['editors'] as const,
  editorTools: (editor: string) => ['editor-tools', editor] as const,
  signIn: (name: string) => ['sign-in', name] as const,
  /** the MCP Registry catalog: registry answers (the core caches them too) and the registry address */
  catalog: ['catalog'] as const,
  catalogSearch: (search: string) => ['catalog', 'search', search] as const,
  catalogServer: (name: string, version: string | undefined) =>
    ['catalog', 'server', name, version ?? 'latest'] as const,
  catalogRegistry: ['catalog', 'registry'] as const,
};
