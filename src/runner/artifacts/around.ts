import type { AroundStep, ExecArtifacts, StepFiles } from '../../core/engine.js';
import { decompressed, restoreCache } from '../cache/archive.js';
import { selectFiles } from './select.js';
import type { ArtifactTransport } from './transport.js';

/** What a step's artifacts need from the stage it runs in. */
export interface StepArtifactsContext {
  step: string;
  artifacts: ExecArtifacts;
  workspacePath: string;
  transport: ArtifactTransport;
  say: (line: string) => void;
  signal?: AbortSignal | undefined;
  now?: () => number;
}

/**
 * A step's `artifacts:` after its run: the workspace's files its globs select are uploaded as one
 * artifact — after success, or whatever the exit with `when: always`. An upload that fails or
 * selects nothing is said in the step's log; it never changes the step's outcome.
 */
export function artifactsAfter(context: StepArtifactsContext): AroundStep['after'] {
  const { artifacts, say } = context;
  const now = context.now ?? Date.now;
  return async (files, exit) => {
    if (exit.exitCode !== 0 && !artifacts.always)
      return say(
        `artifacts: "${artifacts.name}" not uploaded: the step failed (when: always uploads anyway)`,
      );
    const started = now();
    const found: string[] = [];
    try {
      const globs = [...artifacts.paths, ...artifacts.reports.junit];
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
          expireIn: artifacts.expireIn,
          junit: artifacts.reports.junit,
          tar,
        },
        context.signal,
      );
      if ('refused' in answer) return say(`artifacts: "${artifacts.name}" not uploaded: ${answer.refused}`);
      if (found.length === 0)
        return say(`artifacts: "${artifacts.name}": no file matches ${globs.join(', ')}`);
      say(
        `artifacts: uploaded "${artifacts.name}", ${answer.files} file${answer.files === 1 ? '' : 's'}, ` +
          `${(answer.size / 1_000_000).toFixed(1)} MB in ${((now() - started) / 1000).toFixed(1)} s`,
      );
    } catch (error) {
      say(
        `artifacts: uploading "${artifacts.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
      );
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
