import { useId, useState, type FormEvent } from 'react';
import { EDITOR_LABELS } from '../../../shared/editors.ts';
import type { ProjectOffer, ProjectView } from '../../../shared/schema/projects.ts';
import { SERVER_STATES, type ServerState } from '../../../shared/status.ts';
import { useApi } from '../api/context.tsx';
import { useCommand, useProjects } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { ProjectRequestValue } from '../components/ProjectRequestValue.tsx';
import { EmptyState, ErrorText, Loading } from '../components/Feedback.tsx';
import { StateBadge } from '../components/StateBadge.tsx';
import { ViewTitle } from '../components/ViewTitle.tsx';
import { href } from '../router.ts';

/**
 * Repositories whose committed MCP files Switchboard reads (issue 35): each project's folder, the
 * files its servers came from with their digests, each server's state and the editors working in it
 * now; adding and removing one (as `switchboard projects add|rm`), and the folders editors work in
 * that Switchboard offers as projects (it never adds one by itself).
 */
export default function ProjectsView() {
  const projects = useProjects();
  const list = projects.data?.projects ?? [];
  const offers = projects.data?.offers ?? [];
  return (
    <section>
      <ViewTitle>Projects</ViewTitle>
      <p className="muted">
        A project is a repository folder whose MCP files (<code>.mcp.json</code>,{' '}
        <code>.vscode/mcp.json</code>, <code>.cursor/mcp.json</code>, …) Switchboard reads. Each of its
        servers waits for your approval, runs sandboxed to the folder, and is offered only to editors working
        in it.
      </p>
      {projects.isPending ? <Loading what="projects" /> : null}
      {projects.error ? <ErrorText error={projects.error} /> : null}
      {offers.map((offer) => (
        <Offer key={offer.dir} offer={offer} />
      ))}
      <AddProject />
      {projects.data && list.length === 0 ? (
        <EmptyState title="No projects yet">
          <p>
            Add a repository folder above, or run <code>switchboard projects add DIR</code>.
          </p>
        </EmptyState>
      ) : null}
      {list.map((project) => (
        <Project key={project.name} project={project} />
      ))}
    </section>
  );
}

function Offer({ offer }: { offer: ProjectOffer }) {
  const api = useApi();
  const add = useCommand(() => api.addProject(offer.dir), [keys.projects, keys.status]);
  const decline = useCommand(() => api.declineProjectOffer(offer.dir), [keys.projects]);
  return (
    <div className="banner" role="status" data-testid="project-offer" data-dir={offer.dir}>
      <p>
        Folder <code>{offer.dir}</code> has MCP servers in {offer.files.join(', ')} — add it as a project?{' '}
        <span className="muted">(seen in {offer.editors.map(editorLabel).join(', ')})</span>
      </p>
      <button type="button" className="small primary" onClick={() => add.mutate(undefined)}>
        Add as a project
      </button>{' '}
      <button type="button" className="small" onClick={() => decline.mutate(undefined)}>
        Not now
      </button>
      {add.error ? <ErrorText error={add.error} /> : null}
      {decline.error ? <ErrorText error={decline.error} /> : null}
    </div>
  );
}

function AddProject() {
  const api = useApi();
  const id = useId();
  const [dir, setDir] = useState('');
  const [name, setName] = useState('');
  const add = useCommand(
    ({ dir, name }: { dir: string; name: string }) => api.addProject(dir, name || undefined),
    [keys.projects, keys.status],
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (dir.trim() === '') return;
    add.mutate(
      { dir: dir.trim(), name: name.trim() },
      {
        onSuccess: () => {
          setDir('');
          setName('');
        },
      },
    );
  };
  return (
    <form className="card" onSubmit={submit} noValidate aria-label="Add a project">
      <h2>Add a project</h2>
      <div className="row">
        <div className="field">
          <label htmlFor={`${id}-dir`}>Folder</label>
          <input
            id={`${id}-dir`}
            className="mono"
            value={dir}
            autoComplete="off"
            spellCheck={false}
            placeholder="/home/you/src/repository"
            onChange={(e) => setDir(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name (optional)</label>
          <input
            id={`${id}-name`}
            className="mono"
            value={name}
            autoComplete="off"
            spellCheck={false}
            placeholder="the folder's name"
            onChange={(e) => setName(e.target.value)}
          />
        </div>
      </div>
      <button type="submit" className="primary" disabled={add.isPending || dir.trim() === ''}>
        Add project
      </button>
      {add.error ? <ErrorText error={add.error} /> : null}
    </form>
  );
}

function Project({ project }: { project: ProjectView }) {
  const api = useApi();
  const remove = useCommand(() => api.removeProject(project.name), [keys.projects, keys.status]);
  const working = project.activeEditors ?? [];
  return (
    <article className="card" data-testid="project" data-project={project.name} aria-label={project.name}>
      <header className="view-header">
        <h2>{project.name}</h2>
        <div className="actions">
          <ConfirmButton
            label="Remove"
            confirmLabel={`Remove ${project.name}`}
            onConfirm={() => remove.mutate(undefined)}
          />
        </div>
      </header>
      {remove.error ? <ErrorText error={remove.error} /> : null}
      <p>
        <code data-testid="project-dir">{project.dir}</code>
      </p>
      <p data-testid="project-editors">
        Working in it now:{' '}
        {working.length ? (
          working.map(editorLabel).join(', ')
        ) : (
          <span className="muted">no editor in the last 10 minutes</span>
        )}
        . Editors reach its servers on <code>{project.endpoint}</code>
        {project.editors.length ? ` (set up for ${project.editors.map(editorLabel).join(', ')})` : ''}.
      </p>
      <h3>Files</h3>
      {project.files.length === 0 ? <p className="muted">No MCP files in the folder.</p> : null}
      <ul className="plain" data-testid="project-files">
        {project.files.map((f) => (
          <li key={f.file}>
            <code>{f.file}</code> <span className="muted mono">sha256:{f.digest}</span>
            {f.problem ? <span className="tone-danger"> {f.problem}</span> : null}
          </li>
        ))}
      </ul>
      <h3>Servers</h3>
      {project.servers.length === 0 ? <p className="muted">No servers in its files.</p> : null}
      <table data-testid="project-servers">
        <tbody>
          {project.servers.map((s) => {
            const state = project.states[s.name];
            return (
              <tr key={s.name} data-server={s.name}>
                <th scope="row" className="mono">
                  <a href={href({ view: 'server', name: s.name, tab: 'config' })}>{s.name}</a>
                </th>
                <td>
                  {isState(state) ? (
                    <StateBadge state={state} />
                  ) : (
                    <span className="tone-danger">{state}</span>
                  )}
                </td>
                <td>
                  {state === 'pending-approval' ? (
                    <a href={href({ view: 'approvals', server: s.name })}>Review and approve</a>
                  ) : null}
                  {s.problem ? <span className="tone-danger">{s.problem}</span> : null}
                  {(project.needs[s.name] ?? []).map((request) => (
                    <ProjectRequestValue key={request} server={s.name} request={request} />
                  ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </article>
  );
}

function isState(state: string | undefined): state is ServerState {
  return (SERVER_STATES as readonly string[]).includes(state ?? '');
}

function editorLabel(editor: string): string {
  return (EDITOR_LABELS as Record<string, string>)[editor] ?? editor;
}
