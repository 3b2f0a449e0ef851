import { useApi } from '../api/context.tsx';
import { useCommand, useEditors, useSettings } from '../api/hooks.ts';
import { keys } from '../api/keys.ts';
import { syncNoticeEditors } from '../lib/editor-sync-notice.ts';
import { href } from '../router.ts';
import { ErrorText } from './Feedback.tsx';

/**
 * Shown until read, on a first run: automatic editor sync is the product, but before the first
 * approval writes anything a person should see which editors' files it writes, and have the one
 * switch that turns it off. Either answer marks it read (state.json), so it is shown once.
 */
export function EditorSyncNotice() {
  const api = useApi();
  const settings = useSettings();
  const editors = useEditors();
  const answer = useCommand(
    (keepOn: boolean) =>
      api.saveSettings(
        keepOn ? { editorSyncNoticeRead: true } : { editorSyncNoticeRead: true, autoSync: false },
      ),
    [keys.settings, keys.editors],
  );
  if (!settings.data?.editorSyncNotice || !editors.data?.available) return null;
  // The editors whose files the next approval writes, and those found with sync turned off.
  const { synced, off } = syncNoticeEditors(editors.data.editors);
  return (
    <section className="banner info editor-sync-notice" aria-labelledby="editor-sync-notice-title">
      <h2 id="editor-sync-notice-title">Switchboard keeps your editors in sync</h2>
      {synced.length ? (
        <p>
          Found on this computer: <strong>{synced.join(', ')}</strong>. Each gets every server you approve, as
          soon as you approve it: Switchboard adds one entry per server to its config file, pointing at
          Switchboard (the file is backed up first; your own entries are never changed).
        </p>
      ) : off.length ? (
        <p>
          Found on this computer, with sync turned off for them: <strong>{off.join(', ')}</strong>. They get
          no servers until you turn sync back on for them in <a href={href({ view: 'editors' })}>Editors</a>;
          an editor found later gets every server you approve.
        </p>
      ) : (
        <p>
          No editor was found on this computer yet. When one is, it gets every server you approve: Switchboard
          adds one entry per server to its config file (backed up first; your own entries are never changed).
        </p>
      )}
      <p className="muted small">
        You can change this any time in Settings (Sync editors automatically), or per editor in{' '}
        <a href={href({ view: 'editors' })}>Editors</a>.
      </p>
      <div className="actions">
        <button
          type="button"
          className="primary"
          disabled={answer.isPending}
          onClick={() => answer.mutate(true)}
        >
          Keep automatic sync
        </button>
        <button type="button" disabled={answer.isPending} onClick={() => answer.mutate(false)}>
          Turn automatic sync off
        </button>
      </div>
      {answer.error ? <ErrorText error={answer.error}>Nothing was changed: </ErrorText> : null}
    </section>
  );
}
