import { displayText } from '../../../shared/display-text.ts';
import { refusedForeignValue } from '../secrets/foreign-values.ts';
import { REFERENCE_LIKE } from '../secrets/references.ts';
import { buildConfig, words, type Answer, type EntryTemplate } from './entry-template.ts';
import type { FieldSet } from './option-fields.ts';
import { refusedRuntimeSettings } from './package-specs.ts';
import { clip } from './server-doc.ts';

// Why Switchboard will not install a registry entry: what it says (hidden characters, references to
// the person's secrets, names that are not names), and what it would make once filled in (a refused
// runtime setting, a secret or environment variable it was not given).

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Why a package or remote is refused for what it would run, or undefined: hidden characters anywhere
 * in it (as install links are refused), a `${secret:…}`/`${env:…}` of its own (it would borrow one of
 * the person's secrets), or env and header names that are not names.
 */
export function refusedValues(raw: unknown): string | undefined {
  const found = refusedForeignValue(raw);
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

/**
 * Why the entry as filled in is refused (a field's default or answer that makes a refused runtime
 * setting, e.g. a volume of `/`), or undefined.
 */
export function refusedAsFilled(template: EntryTemplate, answer: Answer): string | undefined {
  if (template.kind === 'remote') return undefined;
  const reasons = refusedRuntimeSettings(template.runtime, words(template.runtimeArgs, answer), []);
  return reasons.length ? refusal(reasons) : undefined;
}

/** The refusal of runtime settings (package-specs.ts refusedRuntimeSettings), in words. */
export function refusal(reasons: string[]): string {
  return `Switchboard will not run this from a registry entry: ${reasons.join('; ')}`;
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
export function borrowedByEntry(template: EntryTemplate, answer: Answer): string | undefined {
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
export function borrowedAsOffered(template: EntryTemplate, fields: FieldSet): string | undefined {
  return borrowedByEntry(template, (id) => {
    const field = fields.get(id);
    if (!field) return undefined;
    return field.secret ? '' : (field.default ?? undefined);
  });
}
