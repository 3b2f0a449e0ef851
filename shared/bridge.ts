// Bridge constants with no dependencies at all: the stdio relay imports this file and must start fast
// (no zod), so keep it free of imports.

/** The bridge's fixed default port: editor files point here, so it must not change between runs. */
export const DEFAULT_BRIDGE_PORT = 43117;

/** Names of editor/client tokens (tokens/editors/<name>): lowercase letters, digits and dashes. */
export const TOKEN_NAME_PATTERN = /^[a-z0-9-]{1,32}$/;

/** The folder under the home's tokens/ that holds one token file per editor or client. */
export const EDITOR_TOKENS_DIR = 'editors';

/**
 * The name of the one entry an editor in discovery mode gets, for the aggregate /mcp (it replaces
 * the editor's entries per server).
 */
export const AGGREGATE_ENTRY = 'switchboard';
