import { describe, expect, it } from 'vitest';
import { projectOfferNotifications } from '../../../electron/desktop/notifications.ts';

describe("the tray's offer to add a folder as a project", () => {
  it('asks once per folder newly offered, in words that name the folder and its files', () => {
    const acme = { dir: '/work/acme', files: ['.mcp.json', '.vscode/mcp.json'] };
    const first = projectOfferNotifications([acme], new Set());
    expect(first.raise).toEqual([
      {
        dir: '/work/acme',
        title: 'Add a project?',
        body: 'Folder /work/acme has MCP servers in .mcp.json, .vscode/mcp.json — add it as a project?',
      },
    ]);
    // Still offered: not asked again; a second folder is.
    const beta = { dir: '/work/beta', files: ['.cursor/mcp.json'] };
    const second = projectOfferNotifications([acme, beta], first.notified);
    expect(second.raise.map((r) => r.dir)).toEqual(['/work/beta']);
    // Declined or added, then offered again later (a new serve): asked again.
    const gone = projectOfferNotifications([beta], second.notified);
    expect(projectOfferNotifications([acme, beta], gone.notified).raise.map((r) => r.dir)).toEqual([
      '/work/acme',
    ]);
  });
});
