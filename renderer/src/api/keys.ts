/** react-query keys: one place, so live events invalidate exactly what they change. */
export const keys = {
  status: ['status'] as const,
  config: (name: string) => ['config', name] as const,
  tools: (name: string) => ['tools', name] as const,
  approvals: ['approvals'] as const,
  secrets: ['secrets'] as const,
  settings: ['settings'] as const,
  tokens: ['tokens'] as const,
  editors: ['editors'] as const,
  signIn: (name: string) => ['sign-in', name] as const,
};
