import type {
  EditorServerTools,
  EditorToolsChange,
  EditorToolsView,
  ToolCost,
} from '../../../shared/editor-tools.ts';
import type { EditorId } from '../../../shared/editors.ts';
import { useApi } from '../api/context.tsx';
import { useCommand, useEditorTools } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { ErrorText } from '../components/Feedback.tsx';
import { ToolSwitch } from '../components/ToolSwitch.tsx';

const WHY: Record<string, string> = {
  'held-new': 'new since you approved its tools: accept it in Approvals first',
  'held-changed': 'changed since you approved its tools: accept it in Approvals first',
  'server-filter': 'turned off for every editor on the server’s page',
};

/**
 * What an editor gets of tools: how many, roughly what they cost it each turn, its client's known
 * limit with a warning before it is crossed, discovery mode, and a switch per tool for this editor.
 */
export function EditorTools({ editor, label }: { editor: EditorId; label: string }) {
  const api = useApi();
  const view = useEditorTools(editor);
  const change = useCommand(
    (c: EditorToolsChange) => api.changeEditorTools(editor, c),
    [keys.editorTools(editor), keys.editors],
  );
  if (view.isPending) return <p className="muted small">Counting {label}’s tools…</p>;
  if (view.error) return <ErrorText error={view.error} />;
  const v = view.data;
  return (
    <section className="editor-tools" aria-label={`${label}’s tools`} data-testid={`editor-tools-${editor}`}>
      <p data-testid="tool-summary">
        <strong>{v.current.tools} tools</strong>, about {v.current.tokens.toLocaleString()} tokens of
        definitions on every turn
        {v.limits.tools ? (
          <>
            {' '}
            · {label} {v.limits.tools.hard ? 'takes at most' : 'works best under'} {v.limits.tools.count}{' '}
            <a href={v.limits.tools.source} target="_blank" rel="noreferrer" className="small">
              (source)
            </a>
          </>
        ) : null}
        {v.calledLastHour > 0 ? (
          <span className="muted"> · called {v.calledLastHour} of them in the last hour</span>
        ) : null}
      </p>
      {v.warnings.map((w) => (
        <p
          key={w.message}
          className={`small warning-${w.level}`}
          role={w.level === 'info' ? 'note' : 'alert'}
        >
          {w.message}
        </p>
      ))}
      <div className="costs small muted">
        <Cost label="Every tool" cost={v.costs.everything} />
        <Cost label="With servers’ switches" cost={v.costs.serverFilters} />
        <Cost label={`With ${label}’s choice`} cost={v.costs.selection} />
        <Cost label="Discovery mode" cost={v.costs.discovery} />
      </div>
      <div className="discovery-row">
        <ToolSwitch
          label={`Discovery mode for ${label}`}
          on={v.discovery}
          busy={change.isPending}
          onChange={(discovery) => change.mutate({ discovery })}
        />
        <span>
          Discovery mode: {label} gets two tools, <code>find_tools</code> and <code>call_tool</code>, and
          reaches every server’s tools through them (one entry in its file instead of one per server).
        </span>
      </div>
      {change.error ? <ErrorText error={change.error} /> : null}
      <details>
        <summary>Choose {label}’s tools</summary>
        {v.servers.map((server) => (
          <ServerTools
            key={server.server}
            editor={v}
            server={server}
            busy={change.isPending}
            onChange={(c) => change.mutate(c)}
          />
        ))}
        {v.servers.length === 0 ? (
          <p className="muted small">No server is selected for {label} yet.</p>
        ) : null}
      </details>
    </section>
  );
}

function Cost({ label, cost }: { label: string; cost: ToolCost }) {
  return (
    <span>
      {label}: {cost.tools} ({cost.tokens.toLocaleString()} tokens)
    </span>
  );
}

function ServerTools({
  editor,
  server,
  busy,
  onChange,
}: {
  editor: EditorToolsView;
  server: EditorServerTools;
  busy: boolean;
  onChange: (change: EditorToolsChange) => void;
}) {
  const on = server.tools.filter((t) => t.on).length;
  return (
    <div data-server={server.server}>
      <h3 className="small mono-name">
        {server.server}{' '}
        <span className="muted">
          {server.known
            ? `${on} of ${server.tools.length}`
            : 'tools not listed yet (it has not run since approval)'}
        </span>{' '}
        {server.known ? (
          <>
            <button
              type="button"
              className="small"
              disabled={busy || !server.selection}
              onClick={() => onChange({ server: server.server, selection: null })}
            >
              All
            </button>{' '}
            <button
              type="button"
              className="small"
              disabled={busy || on === 0}
              onClick={() => onChange({ server: server.server, selection: { include: [] } })}
            >
              None
            </button>
          </>
        ) : null}
      </h3>
      <ul className="tool-switches">
        {server.tools.map((tool) => (
          <li key={tool.name} data-tool={tool.name}>
            <ToolSwitch
              label={`${tool.name} for ${editor.label}`}
              on={tool.on}
              busy={busy}
              disabledWhy={tool.why && tool.why !== 'editor-selection' ? WHY[tool.why] : undefined}
              onChange={(next) => onChange({ server: server.server, tool: tool.name, on: next })}
            />
            <span
              className="mono"
              title={tool.exposed ? `${editor.label} sees it as ${tool.exposed}` : tool.name}
            >
              {tool.name}
            </span>
            <span className="muted small">
              {tool.tokens}
              {tool.called ? ' · called' : ''}
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
