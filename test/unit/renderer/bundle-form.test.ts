import { describe, expect, it } from 'vitest';
import { missingBundleValues } from '../../../renderer/src/lib/bundle-form.ts';
import type { BundleView } from '../../../shared/store.ts';

// Issue 36 item 9: a bundle form's missing required value is said at its field, by the title the
// form shows, before anything is sent (renderer/src/components/AddBundle.tsx).

const field = (key: string, title: string, extra: Partial<BundleView['fields'][number]> = {}) => ({
  key,
  title,
  description: '',
  required: true,
  sensitive: false,
  default: null,
  ...extra,
});

const fields: BundleView['fields'] = [
  field('greeting', 'Greeting'),
  field('api_key', 'API key', { sensitive: true }),
  field('region', 'Region', { default: 'eu' }),
  field('note', 'Note', { required: false }),
];

describe('a bundle form’s required values', () => {
  it('names each empty required value by its title, at its key', () => {
    expect(missingBundleValues(fields, { greeting: 'hi', api_key: '  ' })).toEqual({
      api_key: 'API key is required: give a value',
    });
    expect(Object.keys(missingBundleValues(fields, {}))).toEqual(['greeting', 'api_key']);
  });

  it('asks nothing of a value with a default, an optional one, or one given', () => {
    expect(missingBundleValues(fields, { greeting: 'hi', api_key: 'k' })).toEqual({});
  });
});
