/* Test support for artifacts: a tar as a runner uploads it, and an upload to a stage of a pushed build. */
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';
import type { Artifact } from '../../src/core/artifact.js';
import type { ArtifactSource } from '../../src/server/artifacts/service.js';
import type { Harness } from './harness.js';

/** One tar entry: a file (its content), a folder, or a symbolic link (its target). */
export type TarEntry =
  | { path: string; content: string | Buffer; mode?: number }
  | { path: string; folder: true }
  | { path: string; link: string };

/** A tar of `entries`, streamed, named by their paths in the workspace as the runner names them. */
export function tarOf(entries: readonly TarEntry[]): Readable {
  const pack = tar.pack();
  for (const entry of entries) {
    if ('folder' in entry) pack.entry({ name: entry.path, type: 'directory', mode: 0o755 });
    else if ('link' in entry) pack.entry({ name: entry.path, type: 'symlink', linkname: entry.link });
    else pack.entry({ name: entry.path, mode: entry.mode ?? 0o644 }, entry.content);
  }
  pack.finalize();
  return Readable.from(pack);
}

/**
 * Where an upload to stage `stage` of build `number` of `slug` comes from: the stage's step
 * `step` (the builds tests' way: a runner would have created it), created when it is not there.
 */
export async function stageSource(
  h: Pick<Harness, 'store'>,
  slug: string,
  number: number,
  stage: number,
  step = { number: 1, name: 'compile' },
): Promise<ArtifactSource> {
  const [owner = '', name = ''] = slug.split('/');
  const repo = await h.store.repos.findSlug(owner, name);
  if (repo === undefined) throw new Error(`${slug} is not enabled`);
  const build = await h.store.builds.findNumber(repo.id, number);
  if (build === undefined) throw new Error(`${slug} has no build ${number}`);
  const found = await h.store.stages.findNumber(build.id, stage);
  if (found === undefined) throw new Error(`build ${number} has no stage ${stage}`);
  const existing = await h.store.steps.findNumber(found.id, step.number);
  const created =
    existing ??
    (await h.store.steps.create({
      stageId: found.id,
      number: step.number,
      name: step.name,
      status: 'success',
      error: '',
      errIgnore: false,
      exitCode: 0,
      image: 'golang',
      detached: false,
      dependsOn: [],
      started: 1_000,
      stopped: 2_000,
    }));
  // A finished step has its log, as a runner leaves it.
  if (existing === undefined)
    await h.store.logs.create(created.id, [{ pos: 0, out: `+ ${step.name}\n`, time: 0 }]);
  return { repoId: repo.id, buildId: build.id, stageId: found.id, stepId: created.id };
}

/** Uploads `entries` as artifact `name` from `source`, as the runner protocol's route does. */
export function upload(
  h: Pick<Harness, 'artifacts'>,
  source: ArtifactSource,
  name: string,
  entries: readonly TarEntry[],
  options: { junit?: string[]; expireIn?: number } = {},
): Promise<Artifact> {
  return h.artifacts.upload(
    source,
    { name, expireIn: options.expireIn ?? 0, junit: options.junit ?? [] },
    tarOf(entries),
  );
}
