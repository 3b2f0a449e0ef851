import type { CatalogField, RegistryInput, RegistryKeyValue } from '../../../shared/catalog.ts';
import { displayText } from '../../../shared/display-text.ts';
import { secretKeyKind } from '../../../shared/secrets.ts';
import { template, type KeyValueTemplate } from './entry-template.ts';
import { clip } from './server-doc.ts';

// The values a person must or may give for an install option (its fields), and what is wrong with
// an answer.

type InputLike = {
  description?: string | undefined;
  default?: string | undefined;
  placeholder?: string | undefined;
  choices?: string[] | undefined;
  format?: string | undefined;
};

/** The fields of one option, in the order they are met, with keys a person can type. */
export class FieldSet {
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

/** An environment variable or header: its fixed value with {variables} as fields, or a field of its own. */
export function keyValue(
  input: RegistryKeyValue,
  kind: 'env' | 'header',
  fields: FieldSet,
): KeyValueTemplate {
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
export function variableFields(
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
