import type { Readable } from 'node:stream';

/** What the server read of an upload's test reports (docs/test-reports.md). */
export interface TestReceipt {
  reports: number;
  passed: number;
  /** Failed and errored tests, the quarantined ones included. */
  failed: number;
  skipped: number;
  /** Failures of quarantined tests: shown, counted, but they do not fail the step. */
  quarantined: number;
  new: number;
  flaky: number;
  /** Report files not read, or read in part, and why. */
  problems: string[];
}

/** What the server kept of an uploaded artifact. */
export interface ArtifactReceipt {
  files: number;
  /** Bytes of the files, uncompressed. */
  size: number;
  /** When the artifact named test reports. */
  tests?: TestReceipt | undefined;
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
   * `name` of the step `step`'s attempt `attempt`, kept `expireIn` ms (0: the server's default);
   * `junit` are the report globs the server reads the matching files of as test reports.
   */
  upload(
    upload: {
      name: string;
      step: string;
      attempt: number;
      expireIn: number;
      junit: readonly string[];
      /** The files are a failed attempt's test reports alone: the server keeps nothing when there are none. */
      reportsOnly: boolean;
      tar: Readable;
    },
    signal?: AbortSignal,
  ): Promise<ArtifactReceipt | ArtifactRefusal>;
  /** A tar of every artifact of the build's stage named `stage` (entries by workspace path); undefined when it has none. */
  fetch(stage: string, signal?: AbortSignal): Promise<Readable | undefined>;
}
