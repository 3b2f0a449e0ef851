import { isInside, namesSecret, type SandboxPolicy } from './policy.ts';

type Sandboxed = Extract<SandboxPolicy, { sandboxed: true }>;

/**
 * What the sandbox lets the server do with a path: the most specific rule wins, as the mounts are
 * made (temp, then for each path hidden, granted, masked); the system is readable.
 */
export function accessTo(path: string, policy: Sandboxed): 'none' | 'read' | 'write' {
  type Rule = { path: string; effect: 'none' | 'read' | 'write'; order: number };
  const rules: Rule[] = [
    ...policy.temp.map((p) => ({ path: p, effect: 'write' as const, order: -1 })),
    ...policy.hidden.map((p) => ({ path: p, effect: 'none' as const, order: 0 })),
    ...policy.read.map((g) => ({ path: g.path, effect: 'read' as const, order: 1 })),
    ...policy.write.map((g) => ({ path: g.path, effect: 'write' as const, order: 1.5 })),
    ...policy.secrets
      .filter((s) => ![...policy.read, ...policy.write].some((g) => g.path === s && namesSecret(g, s)))
      .map((s) => ({ path: s, effect: 'none' as const, order: 2 })),
  ];
  let best: (Rule & { depth: number }) | undefined;
  for (const rule of rules) {
    if (!isInside(path, rule.path)) continue;
    const depth = rule.path.split('/').filter(Boolean).length;
    if (!best || depth > best.depth || (depth === best.depth && rule.order > best.order))
      best = { ...rule, depth };
  }
  return best?.effect ?? 'read';
}

export function canRead(path: string, policy: Sandboxed): boolean {
  return accessTo(path, policy) !== 'none';
}

export function canWrite(path: string, policy: Sandboxed): boolean {
  return accessTo(path, policy) === 'write';
}

/**
 * The files a program needs to start that its sandbox hides (it would fail every start with
 * "not found"): what the approval warns of.
 */
export function hiddenPrograms(policy: Sandboxed): string[] {
  return policy.programs.filter((file) => !canRead(file, policy));
}
