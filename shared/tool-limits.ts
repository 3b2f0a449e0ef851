import type { EditorId } from './editors.ts';

/**
 * What each client is known to take of MCP tools, with where that is known from
 * (docs/decisions/tools-and-discovery.md, "Client tool limits"). Only limits seen documented or
 * reported by the client's users are here; a client without an entry has no known limit, and nothing
 * is shortened for it.
 */
export interface ToolCountLimit {
  count: number;
  /** true: the client refuses past it; false: it works worse past it */
  hard: boolean;
  /** what happens, in words */
  what: string;
  source: string;
}

export interface NameLimit {
  /**
   * The longest tool name the client can use from an entry of this name (the name Switchboard gives
   * its entry: the server's, or `switchboard` for the aggregate); names over it are shortened.
   */
  budget(entry: string): number;
  what: string;
  source: string;
}

export interface ClientLimits {
  tools?: ToolCountLimit;
  names?: NameLimit;
}

/** What model APIs take as a function name (OpenAI, Anthropic): the rule /mcp names always follow. */
export const API_NAME_MAX = 64;

export const CLIENT_LIMITS: Partial<Record<EditorId, ClientLimits>> = {
  vscode: {
    tools: {
      count: 128,
      hard: true,
      what: 'VS Code’s chat refuses a request with more than 128 tools (“Tool limit exceeded (154/128)”); its own built-in tools count too',
      source: 'https://github.com/microsoft/vscode/issues/262246',
    },
  },
  cursor: {
    tools: {
      count: 40,
      hard: false,
      what: 'Cursor’s agent picks tools worse past about 40 (earlier versions sent only the first 40)',
      source: 'https://gitlab.com/fforster/gitlab-mcp/-/issues/36',
    },
    names: {
      // "Combined server and tool name length (60) exceeds 60 characters": 60 itself is refused.
      budget: (entry) => 59 - entry.length,
      what: 'Cursor filters out a tool whose server name and tool name together reach 60 characters',
      source: 'https://github.com/ComposioHQ/composio/issues/2788',
    },
  },
  windsurf: {
    tools: {
      count: 100,
      hard: true,
      what: 'Windsurf’s Cascade has a limit of 100 tools at any given time',
      source: 'https://docs.windsurf.com/windsurf/cascade/mcp',
    },
  },
  'claude-code': {
    names: {
      budget: (entry) => API_NAME_MAX - 'mcp__'.length - entry.length - '__'.length,
      what: 'Claude Code names a tool mcp__<server>__<tool>, and the API refuses names over 64 characters',
      source: 'https://github.com/anthropics/claude-code/issues/2326',
    },
  },
  'claude-desktop': {
    names: {
      budget: () => API_NAME_MAX,
      what: 'the Anthropic API refuses tool names that do not match ^[a-zA-Z0-9_-]{1,64}$',
      source: 'https://github.com/cyanheads/atlas-mcp-server/issues/14',
    },
  },
  'gemini-cli': {
    tools: {
      count: 512,
      hard: true,
      what: 'the Gemini API takes at most 512 function declarations',
      source: 'https://github.com/google-gemini/gemini-cli/issues/19083',
    },
  },
};

/** The limits of a bridge token's client (none for tokens that are not an editor's). */
export function limitsOf(token: string): ClientLimits {
  // A project route's `<editor>@<project>` is that editor (bridge/project-scope.ts).
  const editor = token.split('@')[0] ?? token;
  return (CLIENT_LIMITS as Record<string, ClientLimits | undefined>)[editor] ?? {};
}

/** From this share of a count limit on, the editor is warned (before the limit is crossed). */
export const NEAR_LIMIT = 0.75;
