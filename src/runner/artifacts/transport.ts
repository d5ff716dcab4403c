import type { Readable } from 'node:stream';

/** What the server kept of an uploaded artifact. */
export interface ArtifactReceipt {
  files: number;
  /** Bytes of the files, uncompressed. */
  size: number;
}

/** Why the server did not keep an artifact, in words for the step's log. */
export interface ArtifactRefusal {
  refused: string;
}

/**
 * Where a stage's artifacts go and come from, as the runner core sees it (the server over the
 * runner protocol, which decides the build and the stage — never the runner).
 */
export interface ArtifactTransport {
  /**
   * Uploads `tar` (uncompressed; entries named by their path in the workspace) as the artifact
   * `name` of the step `step`, kept `expireIn` ms (0: the server's default); `junit` are the report
   * globs the server marks matching files with.
   */
  upload(
    upload: { name: string; step: string; expireIn: number; junit: readonly string[]; tar: Readable },
    signal?: AbortSignal,
  ): Promise<ArtifactReceipt | ArtifactRefusal>;
  /** A tar of every artifact of the build's stage named `stage` (entries by workspace path); undefined when it has none. */
  fetch(stage: string, signal?: AbortSignal): Promise<Readable | undefined>;
}
