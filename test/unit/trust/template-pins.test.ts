import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { surfaceHash, ToolPins, type ServerSurface } from '../../../electron/core/trust/tool-pins.ts';
import type { Approval } from '../../../shared/schema/state.ts';

// A pin file written before resource templates were pinned (real files in a temp folder): its
// approval's hash still holds, so nothing of the server is held back after the update; its templates
// are pinned at this first sight, and one added after that is held back.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-pins-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const TOOL = { name: 'search', description: 'Searches', inputSchema: { type: 'object' as const } };
const OLD_PIN = {
  instructions: null,
  tools: [{ name: 'search', description: 'Searches', inputSchema: { type: 'object' } }],
  prompts: [],
};

describe('resource template pins and pins from before them', () => {
  it('keeps an older pin valid, pins its templates at first sight, holds a new one back', () => {
    const approval: Approval = {
      fingerprint: 'f'.repeat(64),
      approvedAt: 1_700_000_000_000,
      config: { transport: 'stdio', command: 'node', args: [] },
      source: 'hand-edit',
      pinsHash: surfaceHash(OLD_PIN),
    };
    writeFileSync(
      join(dir, 'srv.json'),
      JSON.stringify({
        version: 2,
        fingerprint: approval.fingerprint,
        approvedAt: approval.approvedAt,
        pinnedAt: 1,
        ...OLD_PIN,
      }),
    );
    const recorded: string[] = [];
    const surface = (templates: string[]): ServerSurface => ({
      instructions: undefined,
      tools: [TOOL],
      prompts: [],
      templates: templates.map((uriTemplate) => ({ uriTemplate, name: uriTemplate })),
    });
    const pins = new ToolPins(dir);
    const first = pins.gate(
      'srv',
      approval,
      surface(['a://{x}']),
      2,
      (h) => recorded.push(h),
      () => {},
    );
    expect(first.change).toBeNull();
    expect(first.templates.listed.map((t) => t.uriTemplate)).toEqual(['a://{x}']);
    expect(recorded).toHaveLength(1);

    const next: Approval = { ...approval, pinsHash: recorded[0] };
    const again = new ToolPins(dir).gate(
      'srv',
      next,
      surface(['a://{x}', '{+all}']),
      3,
      () => {},
      () => {},
    );
    expect(again.templates.held.get('{+all}')).toBe('new');
    expect(again.templates.listed.map((t) => t.uriTemplate)).toEqual(['a://{x}']);
    expect(again.change?.resourceTemplates.added.map((t) => t.name)).toEqual(['{+all}']);
  });
});
