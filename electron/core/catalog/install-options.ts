import {
  RegistryPackageSchema,
  RegistryRemoteSchema,
  type CatalogField,
  type CatalogOption,
  type InstallKind,
  type RegistryArgument,
  type RegistryInput,
  type RegistryKeyValue,
} from '../../../shared/catalog.ts';
import { displayText, hasHiddenCharacters } from '../../../shared/display-text.ts';
import { secretKeyKind } from '../../../shared/secrets.ts';
import { REFERENCE_LIKE } from '../secrets/references.ts';
import {
  packageSpec,
  refusedRuntimeSettings,
  RUNTIME_SOURCES,
  RUNTIMES,
  runtimeFlagNotes,
  type PackageKind,
} from './package-specs.ts';
import { clip, type ServerDoc } from './server-doc.ts';

/**
 * A server.json's packages and remotes as ways to install it: for each, the values a person must or
 * may give (fields), and a template of the servers.json entry that `buildConfig` fills in with the
 * answers. The mapping is the one MCP clients share (VS Code's gallery): npm → `npx -y pkg@version`,
 * PyPI → `uvx pkg==version`, OCI → `docker run -i --rm … image:tag`, each as
 * `RUNTIME [runtimeArguments] PACKAGE [packageArguments]`; environment variables go to the server's
 * env (and to the container with `-e NAME`, never with their value on the command line); a remote is
 * its URL with its headers. The command always follows the package type, never `runtimeHint`: an entry
 * cannot make a "npm package" run under another program.
 */

/** A piece of a value: text from the entry, or a field's answer. */
export type Part = { text: string } | { field: string };

/** Arguments that stay or go together (`--port 8080`), left out when an optional field in them is empty. */
interface ArgGroup {
  words: Part[][];
  dependsOn: string[];
}

interface KeyValueTemplate {
  name: string;
  value: Part[];
  dependsOn: string[];
}

export interface OptionPlan {
  view: CatalogOption;
  /** what buildConfig makes; undefined when the option has a problem that stops it */
  template: StdioTemplate | RemoteTemplate | undefined;
}

interface StdioTemplate {
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

interface RemoteTemplate {
  kind: 'remote';
  type: 'http' | 'sse';
  url: Part[];
  headers: KeyValueTemplate[];
}

export interface OptionContext {
  /** where a runtime (npx, uvx, docker) is found on the PATH servers run with; undefined: nowhere */
  findRuntime(command: string): string | undefined;
}

/** Every way the document offers, packages first, in its order. */
export function installOptions(doc: ServerDoc, context: OptionContext): OptionPlan[] {
  return [
    ...doc.packages.map((pkg, i) => packageOption(pkg, i, context)),
    ...doc.remotes.map((remote, i) => remoteOption(remote, i)),
  ];
}

// ---- packages -------------------------------------------------------------------------------------

const PREFIX: Record<PackageKind, string[]> = { npm: ['-y'], pypi: [], oci: ['run', '-i', '--rm'] };
const KIND_LABEL: Record<PackageKind, string> = {
  npm: 'npm package',
  pypi: 'PyPI package',
  oci: 'Docker image',
};

function packageOption(raw: unknown, index: number, context: OptionContext): OptionPlan {
  const id = `package:${index}`;
  const parsed = RegistryPackageSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return broken(
      id,
      'other',
      `package ${index + 1}`,
      `this package entry is not valid server.json (${at}${issue?.message ?? 'invalid'})`,
    );
  }
  const pkg = parsed.data;
  const type = pkg.registryType;
  const kind: InstallKind = type === 'npm' || type === 'pypi' || type === 'oci' ? type : 'other';
  const described = `${displayText(clip(pkg.identifier, 120))}${pkg.version ? ` ${displayText(clip(pkg.version, 40))}` : ''}`;
  if (kind === 'other') {
    const label = `${displayText(clip(type, 30))} package ${described}`;
    return broken(id, kind, label, unsupportedType(type));
  }
  const refused = refusedValues(raw);
  const label = `${KIND_LABEL[kind]} ${described}`;
  if (refused) return broken(id, kind, label, refused);
  const transport = pkg.transport?.type ?? 'stdio';
  if (transport !== 'stdio') {
    return broken(
      id,
      kind,
      label,
      `this package serves MCP over ${displayText(clip(transport, 30))}${pkg.transport?.url ? ` at ${displayText(clip(pkg.transport.url, 120))}` : ''}, ` +
        'and Switchboard runs local servers over stdio: choose another way to run it',
    );
  }
  const spec = packageSpec(kind, pkg.identifier, pkg.version, pkg.registryBaseUrl);
  if (!spec.ok) return broken(id, kind, label, `Switchboard will not install this package: ${spec.problem}`);

  const fields = new FieldSet();
  const problems: string[] = [];
  const runtimeArguments = pkg.runtimeArguments ?? [];
  // Docker's own `run -i --rm` and the image are Switchboard's to write; an entry that repeats them
  // among its runtime arguments (the official GitHub server's does) means them once.
  const restated =
    kind === 'oci'
      ? dockerRestatements(runtimeArguments, [pkg.identifier, spec.spec.word])
      : new Set<number>();
  const runtimeArgs = argGroups(runtimeArguments, 'runtime', fields, problems, kind === 'oci', restated);
  const packageArgs = argGroups(pkg.packageArguments ?? [], 'package', fields, problems, false);
  const env = (pkg.environmentVariables ?? []).map((variable) => keyValue(variable, 'env', fields));
  const runtime = RUNTIMES[kind];
  // No "unpinned" note: whatever version the entry names (or none), approving it pins the exact
  // release (and its whole tree, or the image digest) in the package store.
  const notes: string[] = [];
  if (pkg.runtimeHint && pkg.runtimeHint !== runtime) {
    notes.push(
      `The entry suggests running it with "${displayText(clip(pkg.runtimeHint, 40))}"; Switchboard runs ${KIND_LABEL[kind]}s with ${runtime}.`,
    );
  }
  if (restated.size)
    notes.push(
      `The entry repeats what \`docker run -i --rm IMAGE\` already says among its runtime arguments (${[
        ...restated,
      ]
        .map((i) => displayText(clip(argText(runtimeArguments[i]), 60)))
        .join(', ')}): Switchboard passes each once.`,
    );
  // Flags and variables that would change where the code comes from are refused outright.
  const refusedSettings = refusedRuntimeSettings(runtime, literalWords(runtimeArgs.groups), [
    ...env.map((e) => e.name),
    ...runtimeArgs.env.map((e) => e.name),
  ]);
  if (refusedSettings.length) problems.push(refusal(refusedSettings));
  notes.push(...runtimeFlagNotes(runtime, literalWords(runtimeArgs.groups)));
  const stdio: StdioTemplate = {
    kind: 'stdio',
    runtime,
    prefix: PREFIX[kind],
    runtimeArgs: runtimeArgs.groups,
    spec: spec.spec.word,
    packageArgs: packageArgs.groups,
    env,
    argEnv: runtimeArgs.env,
    envFlags: kind === 'oci',
  };
  const borrowed = problems.length === 0 ? borrowedAsOffered(stdio, fields) : undefined;
  if (borrowed) return broken(id, kind, label, borrowed);
  const runtimePath = context.findRuntime(runtime) ?? null;
  const problem =
    problems[0] ??
    (runtimePath === null
      ? `${runtime} is not installed (${RUNTIME_SOURCES[runtime]}). Install it, or choose another way to run this server.`
      : null);
  return {
    view: { id, kind, label, runtime, runtimePath, problem, notes, fields: fields.list() },
    template: problems.length > 0 ? undefined : stdio,
  };
}

function unsupportedType(type: string): string {
  switch (type) {
    case 'nuget':
      return 'NuGet packages (dnx) are not supported by Switchboard yet: choose another way to run this server';
    case 'mcpb':
      return 'MCP bundles (.mcpb) are not supported by Switchboard yet: choose another way to run this server';
    default:
      return `packages of type "${displayText(clip(type, 30))}" are not supported by Switchboard: choose another way to run this server`;
  }
}

/**
 * Runtime or package arguments as groups of words. Docker's `-e NAME={secret}` becomes `-e NAME` with
 * NAME in the server's env, so the secret is never on the command line.
 */
function argGroups(
  args: readonly RegistryArgument[],
  scope: 'runtime' | 'package',
  fields: FieldSet,
  problems: string[],
  docker: boolean,
  skip: ReadonlySet<number> = new Set(),
): { groups: ArgGroup[]; env: KeyValueTemplate[] } {
  const groups: ArgGroup[] = [];
  const env: KeyValueTemplate[] = [];
  args.forEach((arg, i) => {
    if (skip.has(i)) return;
    const where = `${scope} argument ${i + 1}`;
    const context =
      arg.type === 'named'
        ? `${arg.name}${arg.value !== undefined ? ` ${arg.value}` : ''}`
        : (arg.value ?? arg.valueHint ?? '');
    const vars = variableFields(arg.variables, `var:${scope}:${i}`, context, arg.isRequired === true, fields);
    if (arg.type === 'positional') {
      if (arg.value !== undefined) {
        groups.push({ words: [template(arg.value, vars.ids)], dependsOn: vars.optional });
      } else if (arg.valueHint !== undefined) {
        const field = fields.add({
          id: `arg:${scope}:${i}`,
          kind: 'argument',
          key: arg.valueHint,
          label: `argument ${arg.valueHint}`,
          input: arg,
          secret: arg.isSecret === true,
          required: arg.isRequired === true,
        });
        groups.push({ words: [[{ field: field.id }]], dependsOn: field.required ? [] : [field.id] });
      } else {
        problems.push(
          `its ${where} has neither a value nor a valueHint, so Switchboard cannot tell what to pass`,
        );
      }
      return;
    }
    if (arg.value !== undefined && arg.format === 'boolean' && !arg.variables) {
      // A switch: `--flag` when "true", left out when "false" (never `--flag true`, which a program
      // reads as the flag and then a word of its own).
      if (arg.value === 'true') groups.push({ words: [[{ text: arg.name }]], dependsOn: [] });
      else if (arg.value !== 'false')
        groups.push({ words: [[{ text: arg.name }], [{ text: arg.value }]], dependsOn: [] });
      return;
    }
    if (arg.value !== undefined) {
      const envSecret = docker && scope === 'runtime' ? dockerEnvSecret(arg, vars.ids, fields) : undefined;
      if (envSecret) {
        groups.push({ words: [[{ text: arg.name }], [{ text: envSecret.name }]], dependsOn: vars.optional });
        env.push({ name: envSecret.name, value: [{ field: envSecret.field }], dependsOn: vars.optional });
        return;
      }
      groups.push({ words: [[{ text: arg.name }], template(arg.value, vars.ids)], dependsOn: vars.optional });
      return;
    }
    const asks =
      arg.description !== undefined ||
      arg.default !== undefined ||
      arg.isRequired === true ||
      arg.choices !== undefined ||
      arg.placeholder !== undefined;
    if (!asks) {
      groups.push({ words: [[{ text: arg.name }]], dependsOn: [] });
      return;
    }
    const field = fields.add({
      id: `arg:${scope}:${i}`,
      kind: 'argument',
      key: arg.name.replace(/^-+/, '') || arg.name,
      label: `argument ${arg.name}`,
      input: arg,
      secret: arg.isSecret === true || secretKeyKind(arg.name) !== undefined,
      required: arg.isRequired === true,
    });
    groups.push({
      words: [[{ text: arg.name }], [{ field: field.id }]],
      dependsOn: field.required ? [] : [field.id],
    });
  });
  return { groups, env };
}

/**
 * The runtime arguments of an OCI package that restate `docker run -i --rm IMAGE`, by index: a
 * leading positional `run`, `-i`/`--interactive` and `--rm` as plain switches (no value, or "true"),
 * and a positional naming the image itself (with or without its tag). Whatever else an entry says is
 * kept, so nothing it means is lost; what is dropped is shown as a note.
 */
function dockerRestatements(args: readonly RegistryArgument[], images: readonly string[]): Set<number> {
  const untagged = (image: string) => image.replace(/@.*$/, '').replace(/:[^/:]*$/, '');
  const names = new Set(images.flatMap((image) => [image, untagged(image)]));
  const restated = new Set<number>();
  let positionals = 0;
  args.forEach((arg, i) => {
    if (arg.variables) return;
    if (arg.type === 'positional') {
      const first = positionals++ === 0;
      if ((first && arg.value === 'run') || (arg.value !== undefined && names.has(arg.value)))
        restated.add(i);
      return;
    }
    const isSwitch = arg.value === undefined || arg.value === 'true';
    if (isSwitch && ['-i', '--interactive', '--rm'].includes(arg.name)) restated.add(i);
  });
  return restated;
}

/** An argument as the entry writes it, for a note. */
function argText(arg: RegistryArgument | undefined): string {
  if (!arg) return '';
  if (arg.type === 'positional') return arg.value ?? arg.valueHint ?? '';
  return arg.value === undefined ? arg.name : `${arg.name} ${arg.value}`;
}

/** `-e NAME={token}` / `--env NAME={token}` whose one variable is secret: the NAME and the field. */
function dockerEnvSecret(
  arg: RegistryArgument & { type: 'named' },
  vars: Record<string, string>,
  fields: FieldSet,
): { name: string; field: string } | undefined {
  if (arg.name !== '-e' && arg.name !== '--env') return undefined;
  const match = /^([A-Za-z_][A-Za-z0-9_]*)=\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(arg.value ?? '');
  const field = match?.[2] !== undefined ? vars[match[2]] : undefined;
  if (!match?.[1] || !field || !fields.get(field)?.secret) return undefined;
  return { name: match[1], field };
}

function keyValue(input: RegistryKeyValue, kind: 'env' | 'header', fields: FieldSet): KeyValueTemplate {
  const scope = `${kind}:${input.name}`;
  if (input.value !== undefined) {
    const vars = variableFields(
      input.variables,
      `var:${scope}`,
      `${input.name}=${input.value}`,
      input.isRequired === true,
      fields,
    );
    return { name: input.name, value: template(input.value, vars.ids), dependsOn: vars.optional };
  }
  const field = fields.add({
    id: scope,
    kind,
    key: input.name,
    label: `${kind === 'env' ? 'env' : 'header'} ${input.name}`,
    input,
    secret: input.isSecret === true || secretKeyKind(input.name) !== undefined,
    required: input.isRequired === true,
  });
  return { name: input.name, value: [{ field: field.id }], dependsOn: field.required ? [] : [field.id] };
}

/** The `variables` of an input as fields; `ids` maps a variable's name to its field. */
function variableFields(
  variables: Record<string, RegistryInput> | undefined,
  prefix: string,
  context: string,
  parentRequired: boolean,
  fields: FieldSet,
): { ids: Record<string, string>; optional: string[] } {
  const ids: Record<string, string> = {};
  const optional: string[] = [];
  for (const [name, input] of Object.entries(variables ?? {})) {
    const field = fields.add({
      id: `${prefix}:${name}`,
      kind: 'variable',
      key: name,
      label: `${name} in ${clip(context, 80)}`,
      input,
      secret: input.isSecret === true || secretKeyKind(name) !== undefined,
      required: input.isRequired === true || (parentRequired && input.default === undefined),
    });
    ids[name] = field.id;
    if (!field.required) optional.push(field.id);
  }
  return { ids, optional };
}

// ---- remotes --------------------------------------------------------------------------------------

function remoteOption(raw: unknown, index: number): OptionPlan {
  const id = `remote:${index}`;
  const parsed = RegistryRemoteSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    return broken(
      id,
      'remote',
      `remote ${index + 1}`,
      `this remote entry is not valid server.json (${at}${issue?.message ?? 'invalid'})`,
    );
  }
  const remote = parsed.data;
  const sse = remote.type === 'sse';
  const label = `remote server ${displayText(clip(remote.url, 160))}${sse ? ' (SSE)' : ''}`;
  if (remote.type !== 'streamable-http' && !sse) {
    return broken(
      id,
      'remote',
      label,
      `its transport "${displayText(clip(remote.type, 30))}" is not one Switchboard speaks (streamable-http or sse)`,
    );
  }
  const refused = refusedValues(raw);
  if (refused) return broken(id, 'remote', label, refused);
  // The address as it will be once its {variables} are filled in (with stand-ins here).
  const probe = URL.parse(remote.url.replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, 'x'));
  if (!probe || (probe.protocol !== 'https:' && probe.protocol !== 'http:'))
    return broken(id, 'remote', label, 'its address is not an http:// or https:// URL');
  if (probe.username || probe.password)
    return broken(
      id,
      'remote',
      label,
      'Switchboard will not install it: its address carries a user name or password of its own',
    );
  const fields = new FieldSet();
  const ids: Record<string, string> = {};
  for (const [name, input] of Object.entries(remote.variables ?? {})) {
    // The address needs every variable it names: none is optional there.
    ids[name] = fields.add({
      id: `var:url:${name}`,
      kind: 'variable',
      key: name,
      label: `${name} in the address ${clip(remote.url, 80)}`,
      input,
      secret: input.isSecret === true,
      required: true,
    }).id;
  }
  const headers = (remote.headers ?? []).map((header) => keyValue(header, 'header', fields));
  const remoteTemplate: RemoteTemplate = {
    kind: 'remote',
    type: sse ? 'sse' : 'http',
    url: template(remote.url, ids),
    headers,
  };
  const borrowed = borrowedAsOffered(remoteTemplate, fields);
  if (borrowed) return broken(id, 'remote', label, borrowed);
  return {
    view: {
      id,
      kind: 'remote',
      label,
      runtime: null,
      runtimePath: null,
      problem: null,
      notes: [],
      fields: fields.list(),
    },
    template: remoteTemplate,
  };
}

// ---- building the entry ---------------------------------------------------------------------------

/** A field's answer as it goes into the entry (`${secret:…}` for a secret); undefined when empty. */
export type Answer = (field: string) => string | undefined;

/**
 * The servers.json entry an option makes with these answers. A group or variable that depends on an
 * optional field left empty is left out; required fields are checked by the caller (fieldIssue).
 */
export function buildConfig(
  template: StdioTemplate | RemoteTemplate,
  answer: Answer,
): Record<string, unknown> {
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

/**
 * Why the entry as filled in is refused (a field's default or answer that makes a refused runtime
 * setting, e.g. a volume of `/`), or undefined.
 */
export function refusedAsFilled(
  template: StdioTemplate | RemoteTemplate,
  answer: Answer,
): string | undefined {
  if (template.kind === 'remote') return undefined;
  const reasons = refusedRuntimeSettings(template.runtime, words(template.runtimeArgs, answer), []);
  return reasons.length ? refusal(reasons) : undefined;
}

function refusal(reasons: string[]): string {
  return `Switchboard will not run this from a registry entry: ${reasons.join('; ')}`;
}

function filled(parts: Part[], answer: Answer): string {
  return parts.map((p) => ('text' in p ? p.text : (answer(p.field) ?? ''))).join('');
}

function present(dependsOn: string[], answer: Answer): boolean {
  return dependsOn.every((f) => answer(f) !== undefined);
}

function words(groups: ArgGroup[], answer: Answer): string[] {
  return groups
    .filter((g) => present(g.dependsOn, answer))
    .flatMap((g) => g.words.map((w) => filled(w, answer)));
}

/**
 * Why the entry an option makes would borrow one of the person's secrets or environment variables,
 * or undefined. The refusal scan of the entry (refusedValues) sees its parts; this sees what they
 * make once joined: `"${cfg}"` with cfg's default `{secret:x}` is `${secret:x}`, and so is a `$`
 * followed by what a choice or a typed value holds. `answer` must give '' for a secret field that has
 * an answer: the references Switchboard writes for secrets are its own, and a reference found with
 * them left out was made of other parts. Docker's `-e NAME` without a value hands the container NAME
 * from Switchboard's own environment: only the entry's own environment variables may be passed so.
 */
export function borrowedByEntry(
  template: StdioTemplate | RemoteTemplate,
  answer: Answer,
): string | undefined {
  const config = buildConfig(template, answer) as {
    url?: string;
    headers?: Record<string, string>;
    args?: string[];
    env?: Record<string, string>;
  };
  const values: [string, string][] = [
    ...(config.url !== undefined ? [['its address', config.url] as [string, string]] : []),
    ...Object.entries(config.headers ?? {}).map(([k, v]): [string, string] => [`header ${k}`, v]),
    ...(config.args ?? []).map((v, i): [string, string] => [`args[${i}]`, v]),
    ...Object.entries(config.env ?? {}).map(([k, v]): [string, string] => [`env ${k}`, v]),
  ];
  for (const [where, value] of values) {
    const reference = REFERENCE_LIKE.exec(value);
    if (reference)
      return (
        `Switchboard will not install it: filled in, ${displayText(clip(where, 60))} reads ` +
        `${displayText(clip(reference[0], 60))}, which would hand the server one of your keychain secrets or ` +
        'environment variables that you did not give it (a server from the catalog gets only the secrets you type for it)'
      );
  }
  if (template.kind === 'stdio' && template.envFlags) {
    const runtimeWords = words(template.runtimeArgs, answer);
    for (let i = 0; i < runtimeWords.length; i++) {
      const word = runtimeWords[i] ?? '';
      const name =
        word === '-e' || word === '--env'
          ? runtimeWords[++i]
          : word.startsWith('--env=')
            ? word.slice('--env='.length)
            : /^-e[^-]/.test(word)
              ? word.slice(2)
              : undefined;
      if (name !== undefined && !name.includes('=') && !Object.hasOwn(config.env ?? {}, name))
        return (
          `Switchboard will not install it: its docker argument -e ${displayText(clip(name, 60))} would pass your ` +
          `environment variable ${displayText(clip(name, 60))} into the container`
        );
    }
  }
  return undefined;
}

/** borrowedByEntry on the option as offered: defaults as given, secrets as Switchboard's own. */
function borrowedAsOffered(template: StdioTemplate | RemoteTemplate, fields: FieldSet): string | undefined {
  return borrowedByEntry(template, (id) => {
    const field = fields.get(id);
    if (!field) return undefined;
    return field.secret ? '' : (field.default ?? undefined);
  });
}

/** What is wrong with one answer, or undefined. `value` undefined or '' means not given. */
export function fieldIssue(field: CatalogField, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return field.required ? `${field.key} is required` : undefined;
  if (field.choices && !field.choices.includes(value))
    return `${field.key} must be one of: ${field.choices.map((c) => displayText(c)).join(', ')}`;
  if (field.format === 'number' && !/^-?\d+(\.\d+)?$/.test(value.trim()))
    return `${field.key} must be a number`;
  if (field.format === 'boolean' && value !== 'true' && value !== 'false')
    return `${field.key} must be true or false`;
  return undefined;
}

// ---- helpers --------------------------------------------------------------------------------------

function broken(id: string, kind: InstallKind, label: string, problem: string): OptionPlan {
  return {
    view: { id, kind, label, runtime: null, runtimePath: null, problem, notes: [], fields: [] },
    template: undefined,
  };
}

/** "{name}" in a value → that variable's field; an unknown "{x}" stays as written (the spec's rule). */
function template(text: string, vars: Record<string, string>): Part[] {
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

/** The runtime arguments' fixed words, for the flag notes. */
function literalWords(groups: ArgGroup[]): string[] {
  return groups.flatMap((g) => g.words.map((w) => w.map((p) => ('text' in p ? p.text : '…')).join('')));
}

/** Descriptions and placeholders are only shown (escaped); every other string may end up running. */
const SHOWN_ONLY = new Set(['description', 'placeholder', 'title', 'statusMessage']);
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Why a package or remote is refused for what it would run, or undefined: hidden characters anywhere
 * in it (as install links are refused), a `${secret:…}`/`${env:…}` of its own (it would borrow one of
 * the person's secrets), or env and header names that are not names.
 */
export function refusedValues(raw: unknown): string | undefined {
  const found = scan(raw, []);
  if (found) return found;
  const record = raw as { environmentVariables?: unknown; headers?: unknown };
  for (const [list, what, pattern] of [
    [record.environmentVariables, 'environment variable', ENV_NAME],
    [record.headers, 'header', HEADER_NAME],
  ] as const) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      const name = (item as { name?: unknown } | null)?.name;
      if (typeof name === 'string' && !pattern.test(name))
        return `Switchboard will not install it: "${displayText(clip(name, 60))}" is not a valid ${what} name`;
    }
  }
  return undefined;
}

function scan(value: unknown, path: (string | number)[]): string | undefined {
  if (typeof value === 'string') {
    const where = path.length ? ` (at ${path.join('.')})` : '';
    if (hasHiddenCharacters(value))
      return (
        `Switchboard will not install it: it has control, bidi, line-break or invisible characters${where}: ` +
        `"${displayText(clip(value, 80))}". They can make what runs look like something else`
      );
    const reference = REFERENCE_LIKE.exec(value);
    if (reference)
      return (
        `Switchboard will not install it: it uses ${displayText(clip(reference[0], 60))}${where}, which would hand it ` +
        'one of your keychain secrets or environment variables that you did not give it'
      );
    return undefined;
  }
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = scan(item, [...path, i]);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (SHOWN_ONLY.has(key)) continue;
      if (hasHiddenCharacters(key)) return scan(key, path);
      const found = scan(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

type InputLike = {
  description?: string | undefined;
  default?: string | undefined;
  placeholder?: string | undefined;
  choices?: string[] | undefined;
  format?: string | undefined;
};

/** The fields of one option, in the order they are met, with keys a person can type. */
class FieldSet {
  readonly #fields = new Map<string, CatalogField>();
  readonly #keys = new Set<string>();

  add(spec: {
    id: string;
    kind: CatalogField['kind'];
    key: string;
    label: string;
    input: InputLike;
    secret: boolean;
    required: boolean;
  }): CatalogField {
    const existing = this.#fields.get(spec.id);
    if (existing) return existing;
    let key = spec.key;
    for (let n = 2; this.#keys.has(key); n++) key = `${spec.key}#${n}`;
    this.#keys.add(key);
    const format = spec.input.format;
    const field: CatalogField = {
      id: spec.id,
      kind: spec.kind,
      key,
      label: displayText(spec.label),
      description: spec.input.description ? displayText(clip(spec.input.description, 500)) : null,
      secret: spec.secret,
      required: spec.required,
      default: spec.input.default ?? null,
      placeholder: spec.input.placeholder ? displayText(clip(spec.input.placeholder, 120)) : null,
      choices: spec.input.choices?.length ? spec.input.choices : null,
      format: format === 'number' || format === 'boolean' || format === 'filepath' ? format : 'string',
    };
    this.#fields.set(spec.id, field);
    return field;
  }

  get(id: string): CatalogField | undefined {
    return this.#fields.get(id);
  }

  list(): CatalogField[] {
    return [...this.#fields.values()];
  }
}
