import { RegistryPackageSchema, type InstallKind } from '../../../shared/catalog.ts';
import { displayText } from '../../../shared/display-text.ts';
import { literalWords, type StdioTemplate } from './entry-template.ts';
import { borrowedAsOffered, refusal, refusedValues } from './entry-refusals.ts';
import { FieldSet, keyValue } from './option-fields.ts';
import { broken, invalid, type OptionPlan } from './option-plan.ts';
import { argGroups, argText, dockerRestatements } from './package-arguments.ts';
import {
  packageSpec,
  refusedRuntimeSettings,
  RUNTIME_SOURCES,
  RUNTIMES,
  runtimeFlagNotes,
  type PackageKind,
} from './package-specs.ts';
import { clip } from './server-doc.ts';

// A server.json package as a way to install it: `RUNTIME [runtimeArguments] PACKAGE
// [packageArguments]` with its environment variables, the command following the package type.

export interface OptionContext {
  /** where a runtime (npx, uvx, docker) is found on the PATH servers run with; undefined: nowhere */
  findRuntime(command: string): string | undefined;
}

const PREFIX: Record<PackageKind, string[]> = { npm: ['-y'], pypi: [], oci: ['run', '-i', '--rm'] };
const KIND_LABEL: Record<PackageKind, string> = {
  npm: 'npm package',
  pypi: 'PyPI package',
  oci: 'Docker image',
};

/** A package entry (`packages[index]`) as an option, or why it cannot be installed. */
export function packageOption(raw: unknown, index: number, context: OptionContext): OptionPlan {
  const id = `package:${index}`;
  const parsed = RegistryPackageSchema.safeParse(raw);
  if (!parsed.success) return invalid(id, 'other', `package ${index + 1}`, 'package', parsed.error);
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
