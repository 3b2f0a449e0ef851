import type { RegistryArgument } from '../../../shared/catalog.ts';
import { secretKeyKind } from '../../../shared/secrets.ts';
import { template, type ArgGroup, type KeyValueTemplate } from './entry-template.ts';
import { variableFields, type FieldSet } from './option-fields.ts';

// A package's runtime and package arguments (server.json) as the words of its command line, with
// fields for the values a person gives; and what docker's own arguments need.

/**
 * Runtime or package arguments as groups of words. Docker's `-e NAME={secret}` becomes `-e NAME` with
 * NAME in the server's env, so the secret is never on the command line.
 */
export function argGroups(
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
export function dockerRestatements(
  args: readonly RegistryArgument[],
  images: readonly string[],
): Set<number> {
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
export function argText(arg: RegistryArgument | undefined): string {
  if (!arg) return '';
  if (arg.type === 'positional') return arg.value ?? arg.valueHint ?? '';
  return arg.value === undefined ? arg.name : `${arg.name} ${arg.value}`;
}

/** `-e NAME={token}` / `--env NAME={token}` whose one variable is secret: the NAME and the field. */
export function dockerEnvSecret(
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
