import { describe, expect, it } from 'vitest';
import { linuxAutostartEntry, linuxAutostartFile } from '../../../electron/desktop/login-item.ts';
import { isExternalWebLink, isOwnPage, signInPageToOpen } from '../../../electron/desktop/window-policy.ts';

describe('window policy', () => {
  it('allows only the app own pages', () => {
    expect(isOwnPage('http://127.0.0.1:43117/servers', 'http://127.0.0.1:43117/')).toBe(true);
    expect(isOwnPage('http://127.0.0.1:9999/', 'http://127.0.0.1:43117/')).toBe(false);
    expect(isOwnPage('https://evil.example/', 'file:///app/index.html')).toBe(false);
    expect(isOwnPage('file:///etc/passwd', 'file:///app/index.html')).toBe(false);
    expect(isOwnPage('not a url', 'file:///app/index.html')).toBe(false);
  });

  it('allows app://switchboard pages only, although every app:// origin reads "null"', () => {
    const start = 'app://switchboard/index.html';
    expect(isOwnPage('app://switchboard/index.html#/servers', start)).toBe(true);
    expect(isOwnPage('app://switchboard/assets/x.js', start)).toBe(true);
    expect(isOwnPage('app://evil/index.html', start)).toBe(false);
    expect(isOwnPage('app://user:pw@switchboard/index.html', start)).toBe(false);
    expect(isOwnPage('file:///app/index.html', start)).toBe(false);
    expect(isOwnPage('https://switchboard/index.html', start)).toBe(false);
  });

  it('sends only web links to the browser', () => {
    expect(isExternalWebLink('https://modelcontextprotocol.io')).toBe(true);
    expect(isExternalWebLink('file:///etc/passwd')).toBe(false);
    expect(isExternalWebLink('javascript:alert(1)')).toBe(false);
  });

  it('sends a sign-in page to the system browser only when it is https, or http on this computer', () => {
    for (const page of [
      'https://auth.example.com/authorize?client_id=x',
      'http://127.0.0.1:8080/authorize',
      'http://localhost:9000/authorize',
      'http://[::1]:9000/authorize',
    ])
      expect(signInPageToOpen(page), page).toBe(page);
    for (const page of [
      'file:///etc/passwd?response_type=code',
      'javascript:alert(1)//',
      'http://evil.example/authorize',
      'http://127.0.0.1.evil.example/authorize',
      'smb://evil.example/share',
      'vscode://extension/x',
      'https://user:pw@auth.example.com/authorize',
      'not a url',
    ])
      expect(signInPageToOpen(page), page).toBeUndefined();
  });
});

describe('Linux autostart', () => {
  it('writes a desktop entry under XDG_CONFIG_HOME/autostart with the executable quoted', () => {
    expect(linuxAutostartFile({ HOME: '/home/me' })).toBe('/home/me/.config/autostart/switchboard.desktop');
    expect(linuxAutostartFile({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/autostart/switchboard.desktop');
    expect(linuxAutostartEntry('/opt/Switch "board"/switchboard')).toContain(
      'Exec="/opt/Switch \\"board\\"/switchboard" --hidden',
    );
  });
});
