import type { BundleView } from '../../../shared/store.ts';

/**
 * The bundle settings a person left empty that the bundle cannot run without (required, no default),
 * by key, each said by the title the form shows: checked before the form is sent, so the message is
 * at its field and in the person's words, not a key under the button.
 */
export function missingBundleValues(
  fields: BundleView['fields'],
  values: Readonly<Record<string, string>>,
): Record<string, string> {
  const missing: Record<string, string> = {};
  for (const field of fields)
    if (field.required && field.default === null && (values[field.key] ?? '').trim() === '')
      missing[field.key] = `${field.title} is required: give a value`;
  return missing;
}
