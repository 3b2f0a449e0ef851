import { describe, expect, it } from 'vitest';
import { packageSpec, runtimeFlagNotes } from '../../../electron/core/catalog/package-specs.ts';

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
    expect(runtimeFlagNotes('npx', ['--registry=https://evil.example', '-y'])).toEqual([
      'runtime argument --registry https://evil.example: fetches from another npm registry',
    ]);
    expect(runtimeFlagNotes('uvx', ['--from', 'git+https://x/y', '-p', '3.13'])).toEqual([
      'runtime argument --from git+https://x/y: installs the tool from another package or source',
    ]);
    expect(runtimeFlagNotes('docker', ['--privileged', '-v', '/:/host', '--network', 'host'])).toEqual([
      'runtime argument --privileged: gives the container full access to this computer',
      'runtime argument -v /:/host: shares a folder of this computer with the container',
      'runtime argument --network host: changes the container’s network',
    ]);
    expect(runtimeFlagNotes('npx', ['-y'])).toEqual([]);
  });
});
