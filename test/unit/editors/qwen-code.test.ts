import { describe, expect, it } from 'vitest';
import { userDirs } from '../../../electron/core/user-dirs.mjs';
import { qwenCode } from '../../../electron/core/editors/qwen-code.ts';
import { adapterCases } from './adapter-cases.ts';

describe('Qwen Code', () => {
  adapterCases('qwen-code', {
    paths: {
      linux: '/home/ann/.qwen/settings.json',
      darwin: '/Users/ann/.qwen/settings.json',
      win32: 'C:\\Users\\ann\\.qwen\\settings.json',
    },
    entry: {
      httpUrl: 'http://127.0.0.1:43117/mcp/alpha',
      headers: { Authorization: 'Bearer tok-qwen-code' },
    },
    before: `{
  // Qwen Code takes comments
  "security": { "auth": { "selectedType": "openai" } },
  "model": { "name": "qwen3-coder-plus" },
  "mcpServers": {
    "sse-docs": { "url": "https://docs.example.com/sse" }
  }
}
`,
  });

  it('follows QWEN_HOME', () => {
    expect(qwenCode.file(userDirs({ HOME: '/home/ann', QWEN_HOME: '/data/qwen' }, 'linux'))).toBe(
      '/data/qwen/settings.json',
    );
  });

  it('imports an entry under "url" as what it is there: a remote (SSE) server', () => {
    expect(qwenCode.foreignServer({ url: 'https://docs.example.com/sse' })).toEqual({
      kind: 'remote',
      url: 'https://docs.example.com/sse',
      headers: {},
    });
  });
});
