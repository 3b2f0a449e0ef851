import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests spawn real MCP servers (npx/node cold starts) on a 2-core machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits for something that will come (a page showing an event, a file written by a
    // sync): its default 1 s is a guess that a 2-core machine shared by eight misses.
    expect: { poll: { timeout: 15_000 } },
    // Real processes, real keychain, real files: keep files isolated, run at most two at once.
    pool: 'forks',
    maxWorkers: 2,
  },
});
