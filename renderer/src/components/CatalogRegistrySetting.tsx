import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { CatalogRegistry } from '../../../shared/catalog.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from './Feedback.tsx';
import { SettingForm, SettingInput } from './SettingForm.tsx';

/** Settings: which MCP Registry the catalog asks (a self-hosted or sub-registry, or the official one). */
export function CatalogRegistrySetting() {
  const api = useApi();
  const registry = useQuery({ queryKey: keys.catalogRegistry, queryFn: () => api.catalog.registry() });
  return registry.data ? (
    <RegistryForm registry={registry.data} />
  ) : registry.error ? (
    <ErrorText error={registry.error} />
  ) : null;
}

function RegistryForm({ registry }: { registry: CatalogRegistry }) {
  const api = useApi();
  const client = useQueryClient();
  const [url, setUrl] = useState(registry.configured ?? '');
  const save = useCommand((next: string | null) => api.catalog.setRegistry(next), [keys.catalog]);
  const onSave = () =>
    save.mutate(url.trim() === '' ? null : url.trim(), {
      onSuccess: (saved) => {
        client.setQueryData(keys.catalogRegistry, saved);
        setUrl(saved.configured ?? '');
      },
    });
  return (
    <SettingForm
      title="Catalog"
      onSave={onSave}
      save={save}
      submitLabel="Save registry"
      savedText="Saved to state.json."
      testId="registry-setting"
    >
      <p className="muted">
        The Catalog searches an MCP Registry: the official one unless you name another (a company’s own
        registry or a sub-registry that serves the same API).
      </p>
      {registry.source === 'env' ? (
        <p className="banner info" role="status">
          SWITCHBOARD_REGISTRY_URL is set where Switchboard runs, so the catalog asks{' '}
          <code>{registry.url}</code> whatever is saved here.
        </p>
      ) : null}
      <SettingInput
        label="Registry address"
        value={url}
        onValue={setUrl}
        input={{
          className: 'mono',
          type: 'url',
          placeholder: registry.default,
          autoComplete: 'off',
          spellCheck: false,
        }}
        hint={
          registry.source === 'default'
            ? 'Empty: the official registry.'
            : `Empty: the official registry, ${registry.default}. Now asking ${registry.url}.`
        }
      />
    </SettingForm>
  );
}
