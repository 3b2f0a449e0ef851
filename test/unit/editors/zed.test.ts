import { describe } from 'vitest';
import { adapterCases } from './adapter-cases.ts';

describe('Zed', () => {
  adapterCases('zed', {
    paths: {
      linux: '/home/ann/.config/zed/settings.json',
      darwin: '/Users/ann/.config/zed/settings.json',
      win32: 'C:\\Users\\ann\\AppData\\Roaming\\Zed\\settings.json',
    },
    entry: { url: 'http://127.0.0.1:43117/mcp/alpha', headers: { Authorization: 'Bearer tok-zed' } },
    before: `// Zed settings
//
// For information on how to configure Zed, see the Zed
// documentation: https://zed.dev/docs/configuring-zed
{
  "ui_font_size": 16,
  "buffer_font_size": 15, // a bit smaller
  "theme": {
    "mode": "system",
    "light": "One Light",
    "dark": "One Dark",
  },
  /* servers I run myself */
  "context_servers": {
    "postgres": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://localhost/mydb"],
      "env": {},
    },
  },
  "vim_mode": true,
}
`,
  });
});
