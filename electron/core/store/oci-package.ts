import type { PackagePin } from '../../../shared/store.ts';
import { UserError } from '../errors.ts';
import { resolveCommand, type CommandLookup } from '../trust/resolve-command.ts';
import type { Candidate } from './candidate.ts';
import type { PackageRun } from './package-run.ts';
import { runTool } from './run-tool.ts';

type OciRun = Extract<PackageRun, { kind: 'oci' }>;

export interface OciContext {
  env: NodeJS.ProcessEnv;
  lookup: CommandLookup;
  staging: string;
}

/** An image reference taken apart: `[host/]path[:tag][@digest]`. */
export function parseImage(reference: string): {
  repository: string;
  tag: string;
  digest: string | undefined;
} {
  const at = reference.indexOf('@');
  const name = at >= 0 ? reference.slice(0, at) : reference;
  const digest = at >= 0 ? reference.slice(at + 1) : undefined;
  const slash = name.lastIndexOf('/');
  const colon = name.lastIndexOf(':');
  const tagged = colon > slash;
  return {
    repository: tagged ? name.slice(0, colon) : name,
    tag: tagged ? name.slice(colon + 1) : digest ? '' : 'latest',
    digest,
  };
}

/** Docker Hub's short names spelled out (`alpine` → `docker.io/library/alpine`), to compare repositories. */
export function fullRepository(repository: string): string {
  const first = repository.split('/')[0] ?? '';
  const hasHost = repository.includes('/') && (/[.:]/.test(first) || first === 'localhost');
  const withHost = hasHost ? repository : `docker.io/${repository}`;
  return /^docker\.io\/[^/]+$/.test(withHost)
    ? withHost.replace('docker.io/', 'docker.io/library/')
    : withHost;
}

/**
 * The digest of `repository` among an image's RepoDigests (`docker image inspect`), e.g.
 * `["ghcr.io/org/app@sha256:…"]`; undefined when the image has none for it (built locally, never pushed).
 */
export function pickRepoDigest(repository: string, repoDigests: readonly string[]): string | undefined {
  const wanted = fullRepository(repository);
  for (const entry of repoDigests) {
    const at = entry.indexOf('@');
    if (at < 0) continue;
    if (fullRepository(entry.slice(0, at)) === wanted) return entry.slice(at + 1);
  }
  return undefined;
}

/** The run's arguments with the image replaced by `repository@digest` (what is approved and runs). */
export function pinnedArgs(run: OciRun, repository: string, digest: string): string[] {
  return [...run.before.slice(0), `${repository}@${digest}`, ...run.after];
}

function engineOf(run: Pick<OciRun, 'runtime'>, ctx: Pick<OciContext, 'lookup'>): string {
  const engine = resolveCommand(run.runtime, ctx.lookup);
  if (!engine)
    throw new UserError(`${run.runtime} was not found on PATH`, {
      hint: 'install Docker Desktop or Docker Engine (or Podman): https://docs.docker.com/get-docker/',
    });
  return engine;
}

/**
 * Resolves `docker run … image[:tag]` to the image's digest: pulls it (the tag as the registry has it
 * now) and reads the digest the engine recorded. A reference that names a digest is already exact.
 */
export async function resolveOciCandidate(run: OciRun, ctx: OciContext): Promise<Candidate> {
  const engine = engineOf(run, ctx);
  const image = parseImage(run.image);
  let digest = image.digest;
  if (digest === undefined) {
    const exec = { command: engine, cwd: ctx.staging, env: ctx.env, timeoutMs: 900_000 };
    await runTool({ ...exec, args: ['pull', run.image] }, `pulling ${run.image}`);
    const { stdout } = await runTool(
      { ...exec, args: ['image', 'inspect', '--format', '{{json .RepoDigests}}', run.image] },
      `reading the digest of ${run.image}`,
    );
    const digests = JSON.parse(stdout.trim() || '[]') as unknown;
    digest = Array.isArray(digests)
      ? pickRepoDigest(
          image.repository,
          digests.filter((d): d is string => typeof d === 'string'),
        )
      : undefined;
    if (!digest)
      throw new UserError(`${run.image} has no digest from its registry (an image built on this machine?)`, {
        hint: 'run an image from a registry, or name it by digest (image@sha256:…)',
      });
  }
  const pin: PackagePin = {
    kind: 'oci',
    name: image.repository,
    version: image.tag,
    lock: digest,
    runtime: engine,
  };
  return {
    run,
    pin,
    lockText: '',
    packages: [{ name: image.repository, version: image.tag || digest, installScript: false }],
    publishedAt: null,
    latest: null,
    runs: [engine, ...pinnedArgs(run, image.repository, digest)],
    folder: undefined,
    notes: [
      `the image is pinned by its digest: ${run.runtime} runs ${image.repository}@${digest}, whatever its tag points to later`,
    ],
  };
}

/** `docker run … repository@digest …`: the engine keeps the image, verified by its digest. */
export function ociLaunch(
  pin: PackagePin,
  run: OciRun,
  ctx: Pick<OciContext, 'lookup'>,
): { command: string; args: string[] } {
  const engine = engineOf(run, ctx);
  return { command: engine, args: pinnedArgs(run, pin.name, pin.lock) };
}
