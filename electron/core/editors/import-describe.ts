import { displayText } from '../../../shared/display-text.ts';
import { shellQuote } from '../trust/command-line.ts';
import type { ImportCandidate } from './import.ts';

// What import's listing (the CLI's text and --json) says of each entry, with secret values never shown
// and characters that could hide or fake part of a line escaped (shared/display-text.ts).

/**
 * For listings: what the entry runs, exactly, with secret values never shown and characters that
 * could hide or fake part of a line escaped (shared/display-text.ts).
 */
export function describeForeign(c: ImportCandidate): string[] {
  const server = c.server;
  if (!server) return [];
  const hidden = '<literal secret: moves to the keychain>';
  const masked = (path: (string | number)[], value: string) => {
    const finding = c.secrets.find((f) => JSON.stringify(f.path) === JSON.stringify(path));
    return finding
      ? displayText(value.slice(0, finding.start)) + hidden + displayText(value.slice(finding.end))
      : displayText(value);
  };
  const show = (field: 'env' | 'headers', record: Record<string, string>) =>
    Object.entries(record).map(([k, v]) => `${displayText(k)}=${masked([field, k], v)}`);
  if (server.kind === 'remote') {
    return [
      `url: ${masked(['url'], server.url)}`,
      ...show('headers', server.headers).map((h) => `header: ${h}`),
    ];
  }
  const words = [
    displayText(shellQuote(server.command)),
    ...server.args.map((arg, i) =>
      c.secrets.some((f) => f.field === 'args' && f.path[1] === i)
        ? masked(['args', i], arg)
        : displayText(shellQuote(arg)),
    ),
  ];
  return [
    `command: ${words.join(' ')}`,
    ...(server.cwd ? [`cwd: ${displayText(server.cwd)}`] : []),
    ...show('env', server.env).map((e) => `env: ${e}`),
  ];
}

/**
 * For an entry mapped to a server Switchboard already has (servers.json's, or one an earlier editor's
 * entry imports as) that sets some env variables, headers or its folder differently: which, that the
 * editor gets the other server's, and how to keep this one. Undefined when nothing differs.
 */
export function differenceNote(c: ImportCandidate): string | undefined {
  if (!c.differs.length || !c.server || c.problem) return undefined;
  const names = c.differs.map((k) => (k === 'cwd' ? 'folder (cwd)' : displayText(k)));
  const listed =
    names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  const what = c.server.kind === 'remote' ? 'URL' : 'command';
  const other = c.existing
    ? `servers.json's "${displayText(c.name)}"`
    : `"${displayText(c.name)}" (imported from another editor)`;
  const whose = c.existing ? "servers.json's" : "that entry's";
  const add =
    c.server.kind === 'remote'
      ? 'switchboard add NEW-NAME --url URL --header KEY=VALUE…'
      : 'switchboard add NEW-NAME --env KEY=VALUE… -- COMMAND ARGS…';
  return (
    `same ${what} as ${other}, but its ${listed} ${names.length === 1 ? 'differs' : 'differ'} ` +
    `(compared as written; values not shown): this editor will get ${whose} ` +
    `${names.length === 1 ? 'value' : 'values'}. To keep this one as a separate server, add it ` +
    `under another name as listed above: ${add}`
  );
}
