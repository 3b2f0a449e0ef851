import { describe, expect, it } from 'vitest';
import { statusDetail } from '../../../electron/cli/commands/status.ts';
import type { ServerStatus } from '../../../shared/status.ts';

const base: ServerStatus = {
  name: 'gh',
  state: 'running',
  transport: 'stdio',
  pid: null,
  restarts: 5,
  lastError: null,
  since: null,
  nextRetryAt: null,
  toolCount: null,
  fingerprint: 'f',
};

describe('status DETAIL column', () => {
  it('says how to get a server out of a crash loop, after why it crashed', () => {
    expect(statusDetail({ ...base, state: 'crash-loop', lastError: 'exited with code 1: boom' })).toBe(
      'exited with code 1: boom; see why: switchboard logs gh; once fixed: switchboard restart gh',
    );
  });

  it('says how to approve a pending server', () => {
    expect(statusDetail({ ...base, state: 'pending-approval' })).toBe('approve with: switchboard approve gh');
  });
});
