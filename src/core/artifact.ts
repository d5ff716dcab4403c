/**
 * Artifacts (svc addition, docs/artifacts.md): files a step uploaded, kept with its build. Each is
 * one zip in the blob store; the zip's own central directory lists its files.
 */
export interface Artifact {
  readonly id: number;
  repoId: number;
  buildId: number;
  stageId: number;
  /** The step that uploaded it. */
  stepId: number;
  /** Unique within the stage. */
  name: string;
  /** Files (and folders) in it. */
  files: number;
  /** Bytes of the files, uncompressed. */
  size: number;
  /** Bytes of the stored zip. */
  zipSize: number;
  /** Where the zip is in the blob store (BlobStore key). */
  blob: string;
  /** JUnit XML report paths among the files (`reports: junit:`), for test reports. */
  junit: string[];
  /** Epoch milliseconds. */
  created: number;
  /** Epoch milliseconds after which it is removed; 0: kept as long as its build. */
  expires: number;
}

export type NewArtifact = Omit<Artifact, 'id'>;

/**
 * Persistence of the artifacts' index (the zips themselves are in a BlobStore).
 * - `create` adds one, or replaces the one of the same (stageId, name) — a restarted stage uploads
 *   again — atomically (the replacement has a new id), answering the replaced one, whose blob the
 *   caller deletes; when several create the same name at once, each replaced artifact is answered
 *   to exactly one of them. NotFoundError when the stage no longer exists (its build purged or its
 *   repository deleted): the caller deletes the blob it stored.
 * - `list` answers a build's artifacts, by stage then name; `find` one by id.
 * - `expiredBefore` answers those whose `expires` is set and before `now`, soonest expired first,
 *   at most `limit`; `ofPurgedBuilds` those whose build no longer exists (purged, or its repository
 *   deleted), oldest first, at most `limit`: an artifact outlives its build until its blob and then
 *   it are deleted.
 * - `delete` ignores ids it does not have.
 */
export interface ArtifactStore {
  create(artifact: NewArtifact): Promise<{ artifact: Artifact; replaced: Artifact | undefined }>;
  find(id: number): Promise<Artifact | undefined>;
  findName(stageId: number, name: string): Promise<Artifact | undefined>;
  list(buildId: number): Promise<Artifact[]>;
  expiredBefore(now: number, limit: number): Promise<Artifact[]>;
  ofPurgedBuilds(limit: number): Promise<Artifact[]>;
  delete(ids: readonly number[]): Promise<void>;
}
