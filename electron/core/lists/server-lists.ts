import type {
  Implementation,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';

/**
 * What a server told Switchboard about itself on its last run: its initialize answer and its four
 * lists, as it sent them (objects kept whole, fields Switchboard does not know included). Enough to
 * answer an editor's initialize and list requests while the server is not running.
 */
export interface ServerLists {
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions: string | undefined;
  tools: Tool[];
  prompts: Prompt[];
  resources: Resource[];
  resourceTemplates: ResourceTemplate[];
}

export type ListKind = 'tools' | 'prompts' | 'resources' | 'resourceTemplates';

/** The list request and the field of its answer, per kind. */
export const LIST_METHODS: Record<ListKind, { method: string; field: string }> = {
  tools: { method: 'tools/list', field: 'tools' },
  prompts: { method: 'prompts/list', field: 'prompts' },
  resources: { method: 'resources/list', field: 'resources' },
  resourceTemplates: { method: 'resources/templates/list', field: 'resourceTemplates' },
};

const Named = z.object({ name: z.string() }).loose();
const WithUri = z.object({ uri: z.string() }).loose();
const WithTemplate = z.object({ uriTemplate: z.string() }).loose();

/** One page of a list, its items kept whole: the SDK's own schemas would drop fields they do not know. */
export const LIST_PAGE_SCHEMAS = {
  tools: z.object({ tools: z.array(Named), nextCursor: z.string().optional() }).loose(),
  prompts: z.object({ prompts: z.array(Named), nextCursor: z.string().optional() }).loose(),
  resources: z.object({ resources: z.array(WithUri), nextCursor: z.string().optional() }).loose(),
  resourceTemplates: z
    .object({ resourceTemplates: z.array(WithTemplate), nextCursor: z.string().optional() })
    .loose(),
} as const;

/** The lists file in the home's cache (cache/lists/<name>.json), checked when read back. */
export const ListsFileSchema = z.object({
  /** the approved config the lists came from: lists of another fingerprint are never served */
  fingerprint: z.string(),
  savedAt: z.number(),
  capabilities: z.record(z.string(), z.unknown()),
  serverInfo: z.object({ name: z.string(), version: z.string() }).loose(),
  instructions: z.string().optional(),
  tools: z.array(Named),
  prompts: z.array(Named),
  resources: z.array(WithUri),
  resourceTemplates: z.array(WithTemplate),
});
