// Claude Desktop entries written before the relay's entry became main.mjs name this file; it keeps them
// working until the next sync rewrites them (with automatic sync off, that is the user's `sync`).
await import('./main.mjs');
