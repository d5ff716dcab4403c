import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import type { Readable } from 'node:stream';
import type { Artifact, ArtifactStore } from '../../core/artifact.js';
import type { BlobStore } from '../../core/blob.js';
import { InvalidInputError, NotFoundError } from '../../core/errors.js';
import { readCentralDirectory, type ZipEntry } from '../../platform/zip/central-directory.js';
import { byteLimited } from '../../platform/byte-limit.js';
import { entryStream } from '../../platform/zip/entry-stream.js';
import { tarToZip } from '../../platform/zip/tar-to-zip.js';
import { artifactZip } from './zip-blob.js';
import { idSegment, removeOrphanBlobs } from '../orphan-blobs.js';
import { artifactsTarZst } from './tar-zst.js';

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Report files an artifact's index names at most. */
const MAX_REPORTS = 1000;

/**
 * A report glob the server matches: brace alternatives expand exponentially in `matchesGlob`, so at
 * most 4 groups (16 alternatives), and a short one.
 */
export function boundedGlob(glob: string): boolean {
  return glob.length <= 200 && (glob.match(/\{/g)?.length ?? 0) <= 4;
}

/** SVC_ARTIFACT_MAX_SIZE and SVC_ARTIFACT_MAX_AGE. */
export interface ArtifactLimits {
  /** Bytes one artifact's files may have, uncompressed. */
  maxSize: number;
  /** Milliseconds an artifact is kept when its step says nothing (`expire_in`); 0: as long as its build. */
  maxAge: number;
}

export interface ArtifactServiceDeps {
  store: ArtifactStore;
  blobs: BlobStore;
  limits: ArtifactLimits;
  now?: () => number;
  warn?: (message: string, error: unknown) => void;
}

/** Where an upload comes from: the build, stage and step the server found for the runner's stage. */
export interface ArtifactSource {
  repoId: number;
  buildId: number;
  stageId: number;
  stepId: number;
}

/**
 * The server's artifacts (docs/artifacts.md). An upload (a tar of workspace paths) becomes one zip
 * in the blob store — the zip's central directory is the file index — written under a new name
 * before the index points at it; a stage's same name uploaded again replaces it. Files open by
 * ranges of the zip; a whole artifact downloads as the zip, or as tar.zst made from it.
 */
export class ArtifactService {
  readonly #now: () => number;

  constructor(private readonly deps: ArtifactServiceDeps) {
    this.#now = deps.now ?? Date.now;
  }

  async upload(
    source: ArtifactSource,
    meta: { name: string; expireIn: number; junit: readonly string[] },
    body: Readable,
  ): Promise<Artifact> {
    const artifact = await this.#upload(source, meta, body, false);
    if (artifact === undefined) throw new Error('an upload that keeps empty artifacts kept none');
    return artifact;
  }

  /**
   * The test reports of a failed step, uploaded alone: as `upload`, except that an upload without
   * a file is not kept (a step that failed before writing its reports leaves no empty artifact).
   */
  uploadReports(
    source: ArtifactSource,
    meta: { name: string; expireIn: number; junit: readonly string[] },
    body: Readable,
  ): Promise<Artifact | undefined> {
    return this.#upload(source, meta, body, true);
  }

  async #upload(
    source: ArtifactSource,
    meta: { name: string; expireIn: number; junit: readonly string[] },
    body: Readable,
    dropEmpty: boolean,
  ): Promise<Artifact | undefined> {
    if (!NAME.test(meta.name))
      throw new InvalidInputError('name: expected letters, digits, ., - and _ (up to 100), e.g. binaries');
    if (!Number.isSafeInteger(meta.expireIn) || meta.expireIn < 0)
      throw new InvalidInputError('expire_in: expected milliseconds, 0 or more');
    if (meta.junit.length > 20 || !meta.junit.every(boundedGlob))
      throw new InvalidInputError(
        'junit: expected at most 20 globs of 200 characters, each with at most 4 {…} groups',
      );
    const blob = `artifacts/${source.repoId}/${source.buildId}/${randomBytes(16).toString('hex')}`;
    const { maxSize } = this.deps.limits;
    const { zip, done } = tarToZip(
      byteLimited(body, maxSize, `the artifact is larger than SVC_ARTIFACT_MAX_SIZE (${maxSize} bytes)`),
    );
    let summary;
    try {
      await this.deps.blobs.put(blob, zip);
      summary = await done;
    } catch (error) {
      await this.#deleteBlob(blob);
      throw error;
    }
    if (dropEmpty && summary.entries === 0) {
      await this.#deleteBlob(blob);
      return undefined;
    }
    const now = this.#now();
    const keep = meta.expireIn > 0 ? meta.expireIn : this.deps.limits.maxAge;
    const stored = { blob, zipSize: summary.zipBytes, name: meta.name };
    const junit = meta.junit.length === 0 ? [] : await this.#reports(stored, meta.junit);
    const { artifact, replaced } = await this.deps.store.create({
      ...source,
      name: meta.name,
      files: summary.entries,
      size: summary.bytes,
      zipSize: summary.zipBytes,
      blob,
      junit,
      created: now,
      expires: keep > 0 ? now + keep : 0,
    });
    if (replaced !== undefined) await this.#deleteBlob(replaced.blob);
    return artifact;
  }

  /**
   * The zip's files `globs` select, as its test reports (JUnit XML, `go test -json` or TAP: the
   * reader tells them apart), at most MAX_REPORTS. Each glob is a bounded matcher (checked on
   * upload), so a pipeline cannot make this slow.
   */
  async #reports(
    stored: Pick<Artifact, 'blob' | 'zipSize' | 'name'>,
    globs: readonly string[],
  ): Promise<string[]> {
    const found: string[] = [];
    for (const entry of await readCentralDirectory(artifactZip(this.deps.blobs, stored))) {
      if (entry.isDirectory || entry.isSymlink) continue;
      if (globs.some((glob) => posix.matchesGlob(entry.name, glob))) found.push(entry.name);
      if (found.length >= MAX_REPORTS) break;
    }
    return found;
  }

  list(buildId: number): Promise<Artifact[]> {
    return this.deps.store.list(buildId);
  }

  /** The artifact `id` of build `buildId`; NotFoundError otherwise (an id of another build is not found). */
  async find(buildId: number, id: number): Promise<Artifact> {
    const artifact = await this.deps.store.find(id);
    if (artifact === undefined || artifact.buildId !== buildId) throw new NotFoundError(`artifact ${id}`);
    return artifact;
  }

  /** The files (and folders, links) of an artifact, from its zip's central directory. */
  entries(artifact: Artifact): Promise<ZipEntry[]> {
    return readCentralDirectory(artifactZip(this.deps.blobs, artifact));
  }

  /** One file of an artifact, and its bytes; NotFoundError for a path it does not have (or a folder). */
  async open(artifact: Artifact, path: string): Promise<{ entry: ZipEntry; body: Readable }> {
    const entry = (await this.entries(artifact)).find((e) => e.name === path && !e.isDirectory);
    if (entry === undefined) throw new NotFoundError(`file ${path} in artifact "${artifact.name}"`);
    return { entry, body: await entryStream(artifactZip(this.deps.blobs, artifact), entry) };
  }

  /** The artifact's zip as stored. */
  async zip(artifact: Artifact): Promise<Readable> {
    const body = await this.deps.blobs.get(artifact.blob);
    if (body === undefined) throw new NotFoundError(`the stored files of artifact "${artifact.name}"`);
    return body;
  }

  /** The artifact as a tar compressed with zstd, entries named as in the zip (`prefix` before each). */
  tarZst(artifacts: readonly Artifact[], prefix = ''): Readable {
    return artifactsTarZst(this.deps.blobs, artifacts, prefix);
  }

  /** Removes expired artifacts and those of purged builds, a batch at a time; answers how many. */
  async sweep(batch = 200): Promise<number> {
    const gone = [
      ...(await this.deps.store.expiredBefore(this.#now(), batch)),
      ...(await this.deps.store.ofPurgedBuilds(batch)),
    ];
    if (gone.length === 0) return 0;
    for (const artifact of gone) await this.#deleteBlob(artifact.blob);
    await this.deps.store.delete([...new Set(gone.map((a) => a.id))]);
    return gone.length;
  }

  /**
   * Removes zips no artifact names (a server died between storing and indexing one), once a day
   * old; answers how many. `at`: now.
   */
  removeOrphans(at = this.#now()): Promise<number> {
    return removeOrphanBlobs({
      blobs: this.deps.blobs,
      prefix: 'artifacts/',
      groupOf: (key) => idSegment(key, 2),
      knownIn: async (buildId) => (await this.deps.store.list(buildId)).map((artifact) => artifact.blob),
      now: () => at,
    });
  }

  async #deleteBlob(blob: string): Promise<void> {
    try {
      await this.deps.blobs.delete(blob);
    } catch (error) {
      this.deps.warn?.(`artifact ${blob} could not be deleted`, error);
    }
  }
}
