import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests spawn real MCP servers (npx/node cold starts) on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Real processes, real keychain, real files: keep files isolated, run at most two at once.
    pool: 'forks',
    maxWorkers: 2,
  },
});
