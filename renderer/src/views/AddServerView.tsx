import { useState } from 'react';
import { UiApiError } from '../../../shared/ui-api.ts';
import type { FieldIssue } from '../../../shared/server-validation.ts';
import { useApi } from '../api/context.tsx';
import { useCommand } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from '../components/Feedback.tsx';
import { ServerForm } from '../components/ServerForm.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { emptyDraft, type Draft } from '../lib/server-draft.ts';
import { href, navigate } from '../router.ts';

export default function AddServerView() {
  const api = useApi();
  const [name, setName] = useState('');
  const [draft, setDraft] = useState<Draft>(emptyDraft);
  const add = useCommand(
    ({ name, config }: { name: string; config: unknown }) => api.addServer(name, config),
    [keys.status, keys.approvals],
  );
  const serverIssues: FieldIssue[] = add.error instanceof UiApiError ? add.error.issues : [];

  return (
    <section className="narrow">
      <nav aria-label="Breadcrumb" className="crumbs">
        <a href={href({ view: 'servers' })}>Servers</a> <span aria-hidden="true">›</span> New server
      </nav>
      <ViewTitle>Add a server</ViewTitle>
      <p className="muted">
        It is written to <code>servers.json</code> and waits for your approval before anything runs.
      </p>
      <ServerForm
        mode="add"
        name={name}
        onName={setName}
        draft={draft}
        onDraft={setDraft}
        serverIssues={serverIssues}
        busy={add.isPending}
        submitLabel="Add server"
        onSubmit={(config) =>
          add.mutate(
            { name: name.trim(), config },
            { onSuccess: () => navigate({ view: 'server', name: name.trim(), tab: 'config' }) },
          )
        }
        footer={<a href={href({ view: 'servers' })}>Cancel</a>}
      />
      {add.error && serverIssues.length === 0 ? <ErrorText error={add.error} /> : null}
    </section>
  );
}
