import type { z } from 'zod';
import type { SecretSpanSchema } from '../../../shared/schema/state.ts';
import { secretReference } from '../secrets/references.ts';

/** `length` characters at `offset` of a text are a literal secret now in the keychain as `name`. */
export type SecretSpan = z.infer<typeof SecretSpanSchema>;

/**
 * The text with each span's secret replaced by its `${secret:NAME}` reference, and where those
 * references now stand: what backups and import records keep instead of the secret itself.
 */
export function cutSecrets(
  text: string,
  spans: readonly SecretSpan[],
): { text: string; secrets: SecretSpan[] } {
  let out = text;
  let secrets: SecretSpan[] = [];
  for (const span of [...spans].sort((a, b) => b.offset - a.offset)) {
    const reference = secretReference(span.name);
    out = out.slice(0, span.offset) + reference + out.slice(span.offset + span.length);
    const delta = reference.length - span.length;
    secrets = secrets.map((s) => ({ ...s, offset: s.offset + delta }));
    secrets.push({ name: span.name, offset: span.offset, length: reference.length });
  }
  return { text: out, secrets: secrets.sort((a, b) => a.offset - b.offset) };
}

/** The text with each span replaced by what `valueOf` gives for its name (the inverse of cutSecrets). */
export function fillSecrets(
  text: string,
  secrets: readonly SecretSpan[],
  valueOf: (name: string) => string,
): string {
  let out = text;
  for (const span of [...secrets].sort((a, b) => b.offset - a.offset)) {
    out = out.slice(0, span.offset) + valueOf(span.name) + out.slice(span.offset + span.length);
  }
  return out;
}

/** A secret's value as it stands inside a JSON string. */
export function inJsonString(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}
