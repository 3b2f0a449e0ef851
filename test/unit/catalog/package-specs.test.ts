import { describe, expect, it } from 'vitest';
import {
  packageSpec,
  refusedRuntimeSettings,
  runtimeFlagNotes,
} from '../../../electron/core/catalog/package-specs.ts';

describe('what a registry package becomes on the command line', () => {
  it('pins npm, PyPI and OCI packages the way their runtimes take a version', () => {
    expect(packageSpec('npm', '@upstash/context7-mcp', '2.0.2', undefined)).toEqual({
      ok: true,
      spec: { runtime: 'npx', word: '@upstash/context7-mcp@2.0.2', pinned: true },
    });
    expect(packageSpec('pypi', 'weather-mcp-server', '0.5.0', 'https://pypi.org')).toEqual({
      ok: true,
      spec: { runtime: 'uvx', word: 'weather-mcp-server==0.5.0', pinned: true },
    });
    // The current form: the tag in the identifier.
    expect(
      packageSpec('oci', 'docker.io/hashicorp/terraform-mcp-server:1.2.0', undefined, undefined),
    ).toEqual({
      ok: true,
      spec: { runtime: 'docker', word: 'docker.io/hashicorp/terraform-mcp-server:1.2.0', pinned: true },
    });
    // The older form: tag as version, registry as base URL (Docker Hub needs no prefix).
    expect(packageSpec('oci', 'mcp/filesystem', '1.0.2', 'https://docker.io')).toMatchObject({
      spec: { word: 'mcp/filesystem:1.0.2', pinned: true },
    });
    expect(packageSpec('oci', 'acme/tool', '1.0', 'https://ghcr.io')).toMatchObject({
      spec: { word: 'ghcr.io/acme/tool:1.0' },
    });
    const digest = `ghcr.io/acme/tool@sha256:${'a'.repeat(64)}`;
    expect(packageSpec('oci', digest, '9.9', undefined)).toMatchObject({
      spec: { word: digest, pinned: true },
    });
  });

  it('says when nothing pins the version', () => {
    expect(packageSpec('npm', 'snyk', undefined, undefined)).toMatchObject({
      spec: { word: 'snyk', pinned: false },
    });
    expect(packageSpec('npm', 'snyk', 'latest', undefined)).toMatchObject({
      spec: { word: 'snyk', pinned: false },
    });
    expect(packageSpec('oci', 'docker.io/sonarsource/sonarqube-mcp', undefined, undefined)).toMatchObject({
      spec: { pinned: false },
    });
    expect(packageSpec('oci', 'docker.io/mcp/redis:latest', undefined, undefined)).toMatchObject({
      spec: { pinned: false },
    });
  });

  it('refuses identifiers and versions a runtime would read as something else', () => {
    const refused: [Parameters<typeof packageSpec>, string][] = [
      [['npm', '--registry=https://evil.example/', '1.0.0', undefined], 'is not an npm package name'],
      [['npm', '-y', '1.0.0', undefined], 'is not an npm package name'],
      [['npm', 'https://evil.example/evil.tgz', '1.0.0', undefined], 'is not an npm package name'],
      [['npm', 'git+https://evil.example/x.git', '1.0.0', undefined], 'is not an npm package name'],
      [['npm', '../../etc/passwd', '1.0.0', undefined], 'is not an npm package name'],
      [['npm', 'pkg name', '1.0.0', undefined], 'is not an npm package name'],
      [
        ['npm', 'harmless-mcp', '1.0.0 --registry=https://evil.example/', undefined],
        'is not a fixed npm version',
      ],
      [['npm', 'harmless-mcp', '^1.0.0', undefined], 'is not a fixed npm version'],
      [['npm', 'harmless-mcp', '1.0.0', 'https://npm.evil.example'], 'not the public npm registry'],
      [['pypi', 'harmless-mcp', '>=0', undefined], 'is not a fixed Python package version'],
      [['pypi', '--index-url=https://evil.example', '1.0', undefined], 'is not a PyPI package name'],
      [['pypi', 'harmless-mcp', '1.0', 'https://pypi.evil.example'], 'not the public Python Package Index'],
      [['oci', '--privileged', undefined, undefined], 'is not an image reference'],
      [['oci', '-v /:/host alpine', undefined, undefined], 'is not an image reference'],
      [['oci', 'Example/Tool:1.0', undefined, undefined], 'is not an image reference'],
      [['oci', 'example/tool:1.0 --rm', undefined, undefined], 'has a tag that is not one'],
      [['oci', 'example/tool', '1.0;id', undefined], 'is not an image tag'],
      [['oci', 'example/tool@sha256:xyz', undefined, undefined], 'has a digest that is not one'],
    ];
    for (const [args, words] of refused) {
      const result = packageSpec(...args);
      expect(result.ok, JSON.stringify(args)).toBe(false);
      if (!result.ok) expect(result.problem, JSON.stringify(args)).toContain(words);
    }
  });
});

describe('runtime flags worth a note before approving', () => {
  it('names the flags that change what is fetched or what a container may touch', () => {
    expect(runtimeFlagNotes('npx', ['--package=other-mcp', '-y'])).toEqual([
      'runtime argument --package other-mcp: installs another package than the one named',
    ]);
    expect(runtimeFlagNotes('uvx', ['--with', 'rich', '-p', '3.13'])).toEqual([
      'runtime argument --with rich: installs extra packages',
    ]);
    expect(runtimeFlagNotes('docker', ['-v', '/home/me/notes:/data', '--network', 'host'])).toEqual([
      'runtime argument -v /home/me/notes:/data: shares a folder of this computer with the container',
      'runtime argument --network host: changes the container’s network',
    ]);
    expect(runtimeFlagNotes('npx', ['-y'])).toEqual([]);
  });
});

describe('runtime flags and variables a registry entry may not use', () => {
  it('refuses what changes where the code comes from, each in plain words', () => {
    expect(refusedRuntimeSettings('npx', ['--registry=https://evil.example', '-y'], [])).toEqual([
      'runtime argument --registry: would fetch the package from another npm registry',
    ]);
    expect(refusedRuntimeSettings('npx', ['--@acme:registry', 'https://evil.example'], [])).toEqual([
      'runtime argument --@acme:registry https://evil.example: would fetch that scope’s packages from another npm registry',
    ]);
    expect(refusedRuntimeSettings('uvx', ['--from', 'git+https://x/y', '-p', '3.13'], [])).toEqual([
      'runtime argument --from: would install the tool from another package or source',
    ]);
    expect(refusedRuntimeSettings('npx', [], ['NPM_CONFIG_REGISTRY', 'node_options', 'GREETING'])).toEqual([
      'environment variable NPM_CONFIG_REGISTRY: would change npm’s configuration (another registry, another config file)',
      'environment variable node_options: would load other code into Node.js (--require, --import)',
    ]);
  });

  it('refuses what hands a container this computer, and lets a chosen folder or user through', () => {
    const refused = (words: string[]) => refusedRuntimeSettings('docker', words, []).length;
    for (const words of [
      ['--privileged'],
      ['-v', '/:/host'],
      ['--volume=//:/host:ro'],
      ['--mount', 'type=bind,source=/,target=/host'],
      ['-v', '/var/run/docker.sock:/var/run/docker.sock'],
      ['-u', '0'],
      ['--user=root:root'],
      ['--pid', 'host'],
      ['--cap-add', 'SYS_ADMIN'],
      ['--security-opt', 'seccomp=unconfined'],
    ])
      expect(refused(words), words.join(' ')).toBe(1);
    for (const words of [
      ['-v', '/home/me/notes:/data'],
      ['-u', '1000:1000'],
      ['--network', 'host'],
      ['-e', 'TOKEN'],
    ])
      expect(refused(words), words.join(' ')).toBe(0);
    expect(refusedRuntimeSettings('docker', [], ['DOCKER_HOST', 'API_KEY'])).toEqual([
      'environment variable DOCKER_HOST: would point the docker command at another Docker engine or configuration',
    ]);
  });
});
