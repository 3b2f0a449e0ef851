// The servers.json entry an install option makes, as a template: its words and values are made of
// parts, text from the registry entry or a field's answer, filled in when the person has answered.

/** A piece of a value: text from the entry, or a field's answer. */
export type Part = { text: string } | { field: string };

/** Arguments that stay or go together (`--port 8080`), left out when an optional field in them is empty. */
export interface ArgGroup {
  words: Part[][];
  dependsOn: string[];
}

export interface KeyValueTemplate {
  name: string;
  value: Part[];
  dependsOn: string[];
}

export interface StdioTemplate {
  kind: 'stdio';
  runtime: string;
  prefix: string[];
  runtimeArgs: ArgGroup[];
  spec: string;
  packageArgs: ArgGroup[];
  /** the package's environment variables (docker: passed into the container by name, `-e NAME`) */
  env: KeyValueTemplate[];
  /** env made from docker's `-e NAME={secret}` runtime arguments, whose `-e NAME` is already there */
  argEnv: KeyValueTemplate[];
  envFlags: boolean;
}

export interface RemoteTemplate {
  kind: 'remote';
  type: 'http' | 'sse';
  url: Part[];
  headers: KeyValueTemplate[];
}

export type EntryTemplate = StdioTemplate | RemoteTemplate;

/** A field's answer as it goes into the entry (`${secret:…}` for a secret); undefined when empty. */
export type Answer = (field: string) => string | undefined;

/** "{name}" in a value → that variable's field; an unknown "{x}" stays as written (the spec's rule). */
export function template(text: string, vars: Record<string, string>): Part[] {
  const parts: Part[] = [];
  let last = 0;
  for (const match of text.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    const field = match[1] !== undefined ? vars[match[1]] : undefined;
    if (!field) continue;
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ field });
    last = match.index + match[0].length;
  }
  if (last < text.length || parts.length === 0) parts.push({ text: text.slice(last) });
  return parts;
}

/**
 * The servers.json entry an option makes with these answers. A group or variable that depends on an
 * optional field left empty is left out; required fields are checked by the caller (fieldIssue).
 */
export function buildConfig(template: EntryTemplate, answer: Answer): Record<string, unknown> {
  const record = (items: KeyValueTemplate[]) =>
    Object.fromEntries(
      items.filter((kv) => present(kv.dependsOn, answer)).map((kv) => [kv.name, filled(kv.value, answer)]),
    );
  if (template.kind === 'remote') {
    const headers = record(template.headers);
    return {
      ...(template.type === 'sse' ? { type: 'sse' } : { type: 'http' }),
      url: filled(template.url, answer),
      ...(Object.keys(headers).length ? { headers } : {}),
    };
  }
  const own = record(template.env);
  const env = { ...record(template.argEnv), ...own };
  const args = [
    ...template.prefix,
    ...words(template.runtimeArgs, answer),
    // docker: each variable into the container by name; its value stays in the server's env
    ...(template.envFlags ? Object.keys(own).flatMap((name) => ['-e', name]) : []),
    template.spec,
    ...words(template.packageArgs, answer),
  ];
  return { command: template.runtime, args, ...(Object.keys(env).length ? { env } : {}) };
}

/** The words of these argument groups with these answers (groups missing an optional answer left out). */
export function words(groups: ArgGroup[], answer: Answer): string[] {
  return groups
    .filter((g) => present(g.dependsOn, answer))
    .flatMap((g) => g.words.map((w) => filled(w, answer)));
}

/** The runtime arguments' fixed words, for the flag notes. */
export function literalWords(groups: ArgGroup[]): string[] {
  return groups.flatMap((g) => g.words.map((w) => w.map((p) => ('text' in p ? p.text : '…')).join('')));
}

function filled(parts: Part[], answer: Answer): string {
  return parts.map((p) => ('text' in p ? p.text : (answer(p.field) ?? ''))).join('');
}

function present(dependsOn: string[], answer: Answer): boolean {
  return dependsOn.every((f) => answer(f) !== undefined);
}
