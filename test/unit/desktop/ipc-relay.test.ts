import { describe, expect, it } from 'vitest';
import {
  refusedIpcRequest,
  toIpcResponse,
  withDesktopSettings,
} from '../../../electron/desktop/ipc-relay.ts';
import type { Settings } from '../../../shared/ui-api.ts';

const settings: Settings = {
  port: 43117,
  configuredPort: null,
  defaultPort: 43117,
  home: '/home/me/.config/switchboard',
  serversFile: '/home/me/.config/switchboard/servers.json',
  platform: 'linux',
  startAtLogin: null,
  idleTimeout: 600,
  autoSync: true,
  editorSyncNotice: false,
  configuredIdleTimeout: null,
  defaultIdleTimeout: 600,
  clientMetadataUrl: null,
  updateChecks: true,
};

describe('settings over IPC', () => {
  it('fills in start at login, which the core reports as not applying', () => {
    const response = { status: 200, body: settings };
    expect(withDesktopSettings({ method: 'GET', path: '/api/settings' }, response, true)).toEqual({
      status: 200,
      body: { ...settings, startAtLogin: true },
    });
    expect(withDesktopSettings({ method: 'PUT', path: '/api/settings' }, response, false).body).toEqual({
      ...settings,
      startAtLogin: false,
    });
  });

  it('leaves other answers alone', () => {
    const error = { status: 400, body: { error: 'bad port' } };
    expect(withDesktopSettings({ method: 'PUT', path: '/api/settings' }, error, true)).toBe(error);
    const status = { status: 200, body: { live: true } };
    expect(withDesktopSettings({ method: 'GET', path: '/api/status' }, status, true)).toBe(status);
    const odd = { status: 200, body: { something: 'else' } };
    expect(withDesktopSettings({ method: 'GET', path: '/api/settings' }, odd, true)).toBe(odd);
  });
});

describe('control API answers', () => {
  it('parses JSON, and turns text into an error a person can read', () => {
    expect(toIpcResponse(200, '{"ok":true}')).toEqual({ status: 200, body: { ok: true } });
    expect(toIpcResponse(204, '')).toEqual({ status: 204, body: null });
    expect(toIpcResponse(502, 'Bad gateway\n')).toEqual({ status: 502, body: { error: 'Bad gateway' } });
  });

  it('answers a refused request like a bad request', () => {
    expect(refusedIpcRequest('no such control API route: /api/x')).toEqual({
      status: 400,
      body: { error: 'Switchboard refused this request: no such control API route: /api/x' },
    });
  });
});
