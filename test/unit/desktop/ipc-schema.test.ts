import { describe, expect, it } from 'vitest';
import { ApiRoutes } from '../../../shared/api.ts';
import { IpcRequestSchema, IpcShellRequestSchema } from '../../../shared/ipc.ts';
import { UiRoutes } from '../../../shared/ui-api.ts';

const ok = (request: unknown) => IpcRequestSchema.safeParse(request).success;

describe('IPC requests from the window', () => {
  it('accepts every request the UI sends', () => {
    const requests = [
      { method: 'GET', path: ApiRoutes.status },
      { method: 'GET', path: ApiRoutes.tokens },
      { method: 'POST', path: ApiRoutes.tokens, body: { name: 'zed' } },
      { method: 'DELETE', path: ApiRoutes.token('zed') },
      {
        method: 'POST',
        path: ApiRoutes.serverAction('git-hub_2', 'approve'),
        body: { fingerprint: 'ab'.repeat(32) },
      },
      { method: 'POST', path: ApiRoutes.serverAction('git-hub_2', 'deny') },
      { method: 'GET', path: `${ApiRoutes.logs('github')}?limit=10000` },
      { method: 'GET', path: ApiRoutes.logs('github') },
      { method: 'POST', path: UiRoutes.servers, body: { name: 'x', config: { command: 'npx' } } },
      { method: 'DELETE', path: UiRoutes.server('x') },
      { method: 'GET', path: UiRoutes.serverConfig('x') },
      { method: 'PUT', path: UiRoutes.serverConfig('x'), body: { config: {} } },
      { method: 'POST', path: UiRoutes.serverEnabled('x'), body: { enabled: false } },
      { method: 'GET', path: UiRoutes.serverTools('x') },
      { method: 'GET', path: UiRoutes.approvals },
      { method: 'GET', path: UiRoutes.secrets },
      { method: 'PUT', path: UiRoutes.secret('GITHUB.token'), body: { value: 's' } },
      { method: 'DELETE', path: UiRoutes.secret('GITHUB.token') },
      { method: 'POST', path: UiRoutes.secretMove, body: { server: 'x', key: 'TOKEN' } },
      { method: 'GET', path: UiRoutes.settings },
      { method: 'PUT', path: UiRoutes.settings, body: { port: 43118 } },
      { method: 'GET', path: UiRoutes.editors },
      { method: 'POST', path: UiRoutes.editorsSync, body: {} },
      { method: 'POST', path: UiRoutes.editorRestore('zed'), body: { backup: 'b1' } },
      { method: 'POST', path: UiRoutes.editorRestart('claude-desktop') },
      { method: 'PUT', path: UiRoutes.settings, body: { idleTimeout: 300 } },
      { method: 'PUT', path: UiRoutes.settings, body: { idleTimeout: null } },
      { method: 'GET', path: UiRoutes.serverActivity('x') },
      { method: 'GET', path: UiRoutes.toolChanges },
      { method: 'POST', path: ApiRoutes.acceptTools('x'), body: { change: 'cd'.repeat(32) } },
    ];
    for (const request of requests) expect(ok(request), `${request.method} ${request.path}`).toBe(true);
  });

  it.each([
    ['a path leaving /api', { method: 'GET', path: '/api/../mcp/x' }],
    ['encoded dots', { method: 'GET', path: '/api/%2e%2e/login' }],
    ['mixed-case encoded dots', { method: 'GET', path: '/api/.%2E/mcp' }],
    ['an encoded slash', { method: 'DELETE', path: '/api/servers/a%2F..%2F..%2Fmcp' }],
    ['a dot segment', { method: 'GET', path: '/api/./status' }],
    ['".." as a server name', { method: 'DELETE', path: '/api/servers/..' }],
    ['"." as a secret name', { method: 'DELETE', path: '/api/secrets/.' }],
    ['".." in a route', { method: 'GET', path: '/api/servers/../config' }],
    ['an empty segment', { method: 'GET', path: '/api//status' }],
    ['a backslash', { method: 'GET', path: '/api/servers/a\\..\\x/config' }],
    ['a path outside /api', { method: 'GET', path: '/mcp/github' }],
    ['the sign-in page', { method: 'GET', path: '/login?code=x' }],
    ['an absolute URL', { method: 'GET', path: 'http://evil.example/api/status' }],
    ['a protocol-relative URL', { method: 'GET', path: '//evil.example/api/status' }],
    ['no leading slash', { method: 'GET', path: 'api/status' }],
    ['a route that does not exist', { method: 'GET', path: '/api/nothing' }],
    ['accepting tools without the change shown', { method: 'POST', path: '/api/servers/x/accept-tools' }],
    ['the event stream', { method: 'GET', path: '/api/events' }],
    ['browser sign-in links', { method: 'POST', path: '/api/ui/login-link' }],
    ['a method the route does not take', { method: 'DELETE', path: '/api/status' }],
    ['a method outside the list', { method: 'PATCH', path: '/api/status' }],
    ['a lowercase method', { method: 'get', path: '/api/status' }],
    ['an unknown server action', { method: 'POST', path: '/api/servers/x/explode' }],
    ['a query where none is taken', { method: 'GET', path: '/api/status?x=1' }],
    ['a query of the wrong shape', { method: 'GET', path: '/api/servers/x/logs?limit=1&path=/etc' }],
    ['two question marks', { method: 'GET', path: '/api/servers/x/logs?limit=1?x' }],
    ['a body where none is taken', { method: 'DELETE', path: '/api/servers/x', body: { force: true } }],
    ['a missing body', { method: 'PUT', path: '/api/secrets/X' }],
    ['an approval without the fingerprint shown', { method: 'POST', path: '/api/servers/x/approve' }],
    [
      'a body of the wrong shape',
      { method: 'POST', path: '/api/servers/x/enabled', body: { enabled: 'yes' } },
    ],
    ['extra body fields', { method: 'PUT', path: '/api/secrets/X', body: { value: 's', also: 1 } }],
    ['an invalid token name', { method: 'POST', path: '/api/tokens', body: { name: '../control' } }],
    ['extra request fields', { method: 'GET', path: '/api/status', headers: { host: 'x' } }],
    ['an over-long path', { method: 'GET', path: `/api/servers/${'a'.repeat(3000)}/config` }],
    ['not an object', 'GET /api/status'],
  ])('refuses %s', (_what, request) => {
    expect(ok(request)).toBe(false);
  });

  it('says what is wrong', () => {
    const result = IpcRequestSchema.safeParse({ method: 'GET', path: '/api/%2e%2e/login' });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('%2e%2e');
  });
});

describe('IPC shell requests', () => {
  it('accepts the two desktop actions', () => {
    expect(IpcShellRequestSchema.safeParse({ type: 'set-start-at-login', enabled: true }).success).toBe(true);
    expect(
      IpcShellRequestSchema.safeParse({ type: 'open-external', url: 'https://modelcontextprotocol.io/docs' })
        .success,
    ).toBe(true);
  });

  it.each([
    { type: 'open-external', url: 'javascript:alert(1)' },
    { type: 'open-external', url: 'file:///etc/passwd' },
    { type: 'open-external', url: 'smb://host/share' },
    { type: 'open-external', url: 'vscode://extension/x' },
    { type: 'open-external', url: 'https://user:pw@evil.example/' },
    { type: 'open-external', url: `https://example.com/${'a'.repeat(3000)}` },
    { type: 'open-external', url: 'not a url' },
    { type: 'set-start-at-login', enabled: 'true' },
    { type: 'set-start-at-login', enabled: true, path: '/evil' },
    { type: 'run-command', command: 'rm' },
    {},
  ])('refuses %j', (request) => {
    expect(IpcShellRequestSchema.safeParse(request).success).toBe(false);
  });
});
