import { RegistryRemoteSchema } from '../../../shared/catalog.ts';
import { displayText } from '../../../shared/display-text.ts';
import { template, type RemoteTemplate } from './entry-template.ts';
import { borrowedAsOffered, refusedValues } from './entry-refusals.ts';
import { FieldSet, keyValue } from './option-fields.ts';
import { broken, invalid, type OptionPlan } from './option-plan.ts';
import { clip } from './server-doc.ts';

// A server.json remote as a way to install it: its URL (with its {variables} as fields) and headers.

/** A remote entry (`remotes[index]`) as an option, or why it cannot be installed. */
export function remoteOption(raw: unknown, index: number): OptionPlan {
  const id = `remote:${index}`;
  const parsed = RegistryRemoteSchema.safeParse(raw);
  if (!parsed.success) return invalid(id, 'remote', `remote ${index + 1}`, 'remote', parsed.error);
  const remote = parsed.data;
  const sse = remote.type === 'sse';
  const label = `remote server ${displayText(clip(remote.url, 160))}${sse ? ' (SSE)' : ''}`;
  if (remote.type !== 'streamable-http' && !sse) {
    return broken(
      id,
      'remote',
      label,
      `its transport "${displayText(clip(remote.type, 30))}" is not one Switchboard speaks (streamable-http or sse)`,
    );
  }
  const refused = refusedValues(raw);
  if (refused) return broken(id, 'remote', label, refused);
  // The address as it will be once its {variables} are filled in (with stand-ins here).
  const probe = URL.parse(remote.url.replace(/\{[A-Za-z_][A-Za-z0-9_]*\}/g, 'x'));
  if (!probe || (probe.protocol !== 'https:' && probe.protocol !== 'http:'))
    return broken(id, 'remote', label, 'its address is not an http:// or https:// URL');
  if (probe.username || probe.password)
    return broken(
      id,
      'remote',
      label,
      'Switchboard will not install it: its address carries a user name or password of its own',
    );
  const fields = new FieldSet();
  const ids: Record<string, string> = {};
  for (const [name, input] of Object.entries(remote.variables ?? {})) {
    // The address needs every variable it names: none is optional there.
    ids[name] = fields.add({
      id: `var:url:${name}`,
      kind: 'variable',
      key: name,
      label: `${name} in the address ${clip(remote.url, 80)}`,
      input,
      secret: input.isSecret === true,
      required: true,
    }).id;
  }
  const headers = (remote.headers ?? []).map((header) => keyValue(header, 'header', fields));
  const remoteTemplate: RemoteTemplate = {
    kind: 'remote',
    type: sse ? 'sse' : 'http',
    url: template(remote.url, ids),
    headers,
  };
  const borrowed = borrowedAsOffered(remoteTemplate, fields);
  if (borrowed) return broken(id, 'remote', label, borrowed);
  return {
    view: {
      id,
      kind: 'remote',
      label,
      runtime: null,
      runtimePath: null,
      problem: null,
      notes: [],
      fields: fields.list(),
    },
    template: remoteTemplate,
  };
}
