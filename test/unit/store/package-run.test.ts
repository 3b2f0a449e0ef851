import { describe, expect, it } from 'vitest';
import { packageRunOf } from '../../../electron/core/store/package-run.ts';

// Reading what a command line asks a package runner to fetch: what the store pins, and what it
// says it cannot (those run as written, and the approval says so).

describe('package runs the store pins', () => {
  it('reads npx, npm exec, pnpm dlx and bunx lines as npm packages, the server’s own arguments kept', () => {
    expect(packageRunOf('/usr/bin/npx', ['-y', '@modelcontextprotocol/server-everything', 'stdio'])).toEqual({
      run: {
        kind: 'npm',
        spec: '@modelcontextprotocol/server-everything',
        name: '@modelcontextprotocol/server-everything',
        range: 'latest',
        bin: undefined,
        args: ['stdio'],
      },
    });
    expect(packageRunOf('npx', ['pkg@1.2.3', '--flag', '-y'])).toMatchObject({
      run: { name: 'pkg', range: '1.2.3', args: ['--flag', '-y'] },
    });
    expect(packageRunOf('npx', ['--yes', '--package=@s/tools', 'tool-a', 'x'])).toMatchObject({
      run: { name: '@s/tools', range: 'latest', bin: 'tool-a', args: ['x'] },
    });
    expect(packageRunOf('C:\\nodejs\\npx.cmd', ['-y', 'pkg@^2'])).toMatchObject({
      run: { name: 'pkg', range: '^2' },
    });
    expect(packageRunOf('npm', ['exec', '--yes', '--', 'pkg', 'a'])).toMatchObject({
      run: { name: 'pkg', args: ['a'] },
    });
    expect(packageRunOf('pnpm', ['dlx', 'pkg@1.0.0'])).toMatchObject({
      run: { name: 'pkg', range: '1.0.0' },
    });
    expect(packageRunOf('bunx', ['pkg'])).toMatchObject({ run: { name: 'pkg' } });
  });

  it('says why a runner line cannot be pinned', () => {
    expect(packageRunOf('npx', ['--registry', 'https://x', 'pkg']).unsupported).toContain('--registry');
    expect(packageRunOf('npx', ['-c', 'echo hi']).unsupported).toContain('-c');
    expect(packageRunOf('npx', ['github:user/repo']).unsupported).toContain(
      'not a package from the npm registry',
    );
    expect(packageRunOf('npx', ['./local']).unsupported).toContain('not a package');
    expect(packageRunOf('npx', ['-y']).unsupported).toContain('no package');
    expect(packageRunOf('bunx', ['--bun', 'pkg']).unsupported).toContain('Bun');
    expect(packageRunOf('docker', ['run', '--pull', 'always', 'img']).unsupported).toContain('--pull always');
    // Told two packages, which one runs is the runner's guess: not pinned.
    expect(packageRunOf('npx', ['-p', 'a', '--package=b', 'x']).unsupported).toContain(
      'more than one package',
    );
    expect(packageRunOf('uvx', ['--from', 'a', '--from=b', 'x']).unsupported).toContain(
      'more than one package',
    );
  });

  it('leaves programs that are no package runner alone', () => {
    expect(packageRunOf('/usr/bin/node', ['server.js'])).toEqual({});
    expect(packageRunOf('npm', ['run', 'serve'])).toEqual({});
    expect(packageRunOf('docker', ['compose', 'up'])).toEqual({});
  });

  it('reads uvx lines as PyPI requirements and their console script', () => {
    expect(packageRunOf('uvx', ['mcp-server-fetch', '--ignore-robots-txt'])).toEqual({
      run: {
        kind: 'pypi',
        requirement: 'mcp-server-fetch',
        name: 'mcp-server-fetch',
        script: 'mcp-server-fetch',
        args: ['--ignore-robots-txt'],
      },
    });
    expect(packageRunOf('uvx', ['mcp-server-time@2025.1.1'])).toMatchObject({
      run: { requirement: 'mcp-server-time==2025.1.1', name: 'mcp-server-time', script: 'mcp-server-time' },
    });
    expect(packageRunOf('uvx', ['--from', 'serena-agent==0.1', 'serena', 'start'])).toMatchObject({
      run: { requirement: 'serena-agent==0.1', name: 'serena-agent', script: 'serena', args: ['start'] },
    });
    expect(packageRunOf('uvx', ['--from=serena-agent', 'serena'])).toMatchObject({
      run: { name: 'serena-agent', script: 'serena', args: [] },
    });
    expect(packageRunOf('uv', ['tool', 'run', 'pkg'])).toMatchObject({ run: { kind: 'pypi', name: 'pkg' } });
    expect(packageRunOf('uvx', ['--with', 'x', 'pkg']).unsupported).toContain('--with');
    expect(packageRunOf('uvx', ['git+https://github.com/a/b']).unsupported).toContain('not a package');
  });

  it('finds the image of a docker or podman run among its options', () => {
    expect(
      packageRunOf('docker', [
        'run',
        '-i',
        '--rm',
        '-e',
        'TOKEN',
        '--network=host',
        'ghcr.io/org/app:1.2',
        'serve',
        '-v',
      ]),
    ).toEqual({
      run: {
        kind: 'oci',
        runtime: 'docker',
        before: ['run', '-i', '--rm', '-e', 'TOKEN', '--network=host'],
        image: 'ghcr.io/org/app:1.2',
        after: ['serve', '-v'],
      },
    });
    expect(packageRunOf('/usr/bin/podman', ['run', '-it', '-v', '/a:/b', 'alpine'])).toMatchObject({
      run: { runtime: 'podman', image: 'alpine', after: [] },
    });
    expect(packageRunOf('docker', ['container', 'run', '--rm', 'img'])).toMatchObject({
      run: { image: 'img' },
    });
  });
});
