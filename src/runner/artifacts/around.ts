import type { ExecArtifacts, StepExit, StepFiles } from '../../core/engine.js';
import { decompressed, restoreCache } from '../cache/archive.js';
import { selectFiles } from './select.js';
import { testLines } from './test-lines.js';
import type { ArtifactTransport, TestReceipt } from './transport.js';

/** What a step's artifacts need from the stage it runs in. */
export interface StepArtifactsContext {
  step: string;
  /** The step's attempt (`retry:`), from 1. */
  attempt: number;
  artifacts: ExecArtifacts;
  workspacePath: string;
  transport: ArtifactTransport;
  say: (line: string) => void;
  signal?: AbortSignal | undefined;
  now?: () => number;
}

/** Uploads a step's artifacts after an attempt; `retried`: the step runs again. Answers the reports' receipt. */
export type ArtifactsAfter = (
  files: StepFiles,
  exit: StepExit,
  retried: boolean,
) => Promise<TestReceipt | undefined>;

/**
 * A step's `artifacts:` after its run: the workspace's files its globs select are uploaded as one
 * artifact — after success, or whatever the exit with `when: always`. Its test reports
 * (`reports: junit:`) are uploaded whatever the exit, alone when the rest is not: a failed attempt
 * is when they matter most, and an attempt run again still tells which tests failed in it (the
 * flaky rule). An upload that fails or selects nothing is said in the step's log; it never changes
 * the step's outcome by itself (the receipt may: see StageRun).
 */
export function artifactsAfter(context: StepArtifactsContext): ArtifactsAfter {
  const { artifacts, say } = context;
  const now = context.now ?? Date.now;
  const reports = artifacts.reports.junit;
  return async (files, exit, retried) => {
    const everything = !retried && (exit.exitCode === 0 || artifacts.always);
    if (!everything && reports.length === 0) {
      if (!retried)
        say(`artifacts: "${artifacts.name}" not uploaded: the step failed (when: always uploads anyway)`);
      return undefined;
    }
    const started = now();
    const found: string[] = [];
    try {
      const globs = everything ? [...artifacts.paths, ...reports] : reports;
      const tar = selectFiles(
        files,
        context.workspacePath,
        globs,
        (path) => found.push(path),
        context.signal,
      );
      const answer = await context.transport.upload(
        {
          name: artifacts.name,
          step: context.step,
          attempt: context.attempt,
          expireIn: artifacts.expireIn,
          junit: reports,
          reportsOnly: !everything,
          tar,
        },
        context.signal,
      );
      if ('refused' in answer) {
        say(`artifacts: "${artifacts.name}" not uploaded: ${answer.refused}`);
        return undefined;
      }
      if (found.length === 0) {
        if (everything) say(`artifacts: "${artifacts.name}": no file matches ${globs.join(', ')}`);
        else
          say(
            `artifacts: "${artifacts.name}" not uploaded: the step ${retried ? 'runs again' : 'failed (when: always uploads anyway)'}, ` +
              `and no file matches its test reports (${globs.join(', ')})`,
          );
        return answer.tests;
      }
      const what = everything
        ? `"${artifacts.name}"`
        : `the test reports of "${artifacts.name}" (${retried ? 'the step runs again' : 'the step failed; when: always uploads every file'})`;
      say(
        `artifacts: uploaded ${what}, ${answer.files} file${answer.files === 1 ? '' : 's'}, ` +
          `${(answer.size / 1_000_000).toFixed(1)} MB in ${((now() - started) / 1000).toFixed(1)} s`,
      );
      if (answer.tests !== undefined) for (const line of testLines(answer.tests)) say(line);
      return answer.tests;
    } catch (error) {
      say(
        `artifacts: uploading "${artifacts.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return undefined;
    }
  };
}

/**
 * `artifacts: from:` before the stage's first step after the clone: each named stage's artifacts
 * (a tar, zstd-compressed on the wire, entries named `w/<workspace path>`) put into the workspace at
 * their paths, refused as a cache would be when an entry would land outside it. Without a
 * transport (a runner that keeps none) it fails: the steps would run without the files they need. Runs once, whichever
 * step gets there first; the others wait for it. A failure is said in the log of the step that ran
 * it, and fails that step's start (its files would be missing).
 */
export function artifactsFetch(
  from: readonly string[],
  transport: ArtifactTransport | undefined,
  workspacePath: string,
  signal?: AbortSignal,
): (files: StepFiles, say: (line: string) => void) => Promise<void> {
  let fetching: Promise<void> | undefined;
  return (files, say) => {
    fetching ??= (async () => {
      if (transport === undefined)
        throw new Error(
          `artifacts: cannot fetch those of ${from.join(', ')}: this runner keeps no artifacts`,
        );
      for (const stage of from) {
        const archive = await transport.fetch(stage, signal);
        if (archive === undefined) {
          say(`artifacts: stage "${stage}" has none to fetch`);
          continue;
        }
        // The server names the entries as a cache's workspace entries (w/<path>): the same checks apply.
        const workspace = { written: 'the workspace', inArchive: 'w', absolute: workspacePath };
        try {
          await files.put(restoreCache(decompressed(archive), [workspace]), signal);
        } finally {
          archive.destroy();
        }
        say(`artifacts: fetched those of stage "${stage}" into the workspace`);
      }
    })();
    return fetching;
  };
}
