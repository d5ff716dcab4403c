import { posix } from 'node:path';
import { PassThrough, type Readable } from 'node:stream';
import type { StepFiles } from '../../core/engine.js';
import { retar } from '../retar.js';
import type { PodExec } from './exec.js';
import { FILES_CONTAINER, reachOf, type Reach } from './pod-files.js';

/**
 * Extracts at `/` of the files container as root: owners and modes as the archive has them (a
 * cache's files come back as the step's user made them), as Docker's archive endpoint does.
 */
const EXTRACT = ['tar', '-x', '-p', '-f', '-', '-C', '/'];

/** The exit of the get script when nothing is at the path (tar's own failures are 1 and 2). */
const NOTHING_THERE = 3;
/**
 * Packs "$2" in folder "$1"; exits NOTHING_THERE, before any output, when it does not exist — or,
 * with "$3" set (a cache volume's own folder), when it is an empty folder.
 */
const PACK = [
  'sh',
  '-c',
  [
    `cd -- "$1" 2>/dev/null && { [ -e "$2" ] || [ -L "$2" ]; } || exit ${NOTHING_THERE}`,
    `if [ -n "$3" ] && [ -d "$2" ] && [ -z "$(ls -A -- "$2")" ]; then exit ${NOTHING_THERE}; fi`,
    'exec tar -c -f - -- "$2"',
  ].join('; '),
  'sh',
];

/** Where a step's files are: its pod, and the folders of the step the files container reaches. */
export interface StepPlace {
  namespace: string;
  pod: string;
  /** The step's name, for messages. */
  step: string;
  reach: readonly Reach[];
  /** Resolves once the files container runs; rejects when it cannot. */
  ready: (signal?: AbortSignal) => Promise<void>;
}

/**
 * A Kubernetes step's files (StepFiles): tar streams through `exec` into the pod's files container
 * (pod-files.ts), with paths moved between the step's view and that container's. Only folders that
 * are volumes of the pod can be reached; anything else of the step's image is its container's own.
 */
export function podFiles(exec: PodExec, place: StepPlace): StepFiles {
  const unreachable = (path: string) =>
    new Error(
      `${path} is in none of the volumes the step "${place.step}" shares with its pod's files container (the workspace, the pipeline's volumes, its cache paths): Kubernetes steps cannot move it`,
    );
  const where = { namespace: place.namespace, pod: place.pod, container: FILES_CONTAINER };

  return {
    async put(archive, signal) {
      try {
        await place.ready(signal);
      } catch (error) {
        archive.destroy();
        throw error;
      }
      const moved = retar(archive, (header) => {
        const to = (name: string) => {
          const found = reachOf(place.reach, `/${name}`);
          if (found === undefined) throw unreachable(`/${name.replace(/\/+$/, '')}`);
          if (found.readOnly) throw new Error(`/${name} is mounted read-only in the step "${place.step}"`);
          return found.path.slice(1) + (name.endsWith('/') ? '/' : '');
        };
        return {
          ...header,
          name: to(header.name),
          ...(header.type === 'link' && header.linkname ? { linkname: to(header.linkname) } : {}),
        };
      });
      try {
        const exit = await exec.run({ ...where, command: EXTRACT, stdin: moved, signal });
        if (exit.exitCode !== 0)
          throw new Error(
            `tar in the pod ${place.pod} could not put the files of step "${place.step}": ${said(exit)}`,
          );
      } finally {
        // A tar that stopped early (or never started) leaves the archive unread: let it go.
        if (!moved.readableEnded) moved.destroy();
        if (!archive.readableEnded) archive.destroy();
      }
    },

    async get(path, signal) {
      const found = reachOf(place.reach, path);
      if (found === undefined) throw unreachable(path);
      await place.ready(signal);
      // Room for a few of the API server's messages: the connection is not paused for each one.
      const output = new PassThrough({ highWaterMark: 1024 * 1024 });
      // Read no further (the reader gave up): the connection is closed, and the container's tar ends.
      const dropped = new AbortController();
      output.once('close', () => {
        if (!output.readableEnded) dropped.abort();
      });
      const { promise: first, resolve: started } = Promise.withResolvers<'output'>();
      const exit = exec.run({
        ...where,
        command: [
          ...PACK,
          posix.dirname(found.path),
          posix.basename(found.path),
          // Only the volume's own folder: an empty folder inside it is something the step made.
          found.emptyIsNothing === true && found.path === found.files ? 'empty-is-nothing' : '',
        ],
        stdout: output,
        onOutput: () => started('output'),
        signal: signal === undefined ? dropped.signal : AbortSignal.any([signal, dropped.signal]),
      });
      const failed = (code: { exitCode: number; stderr: string }) =>
        new Error(`tar of ${path} in the pod ${place.pod} (step "${place.step}") failed: ${said(code)}`);
      const outcome = await Promise.race([first, exit]);
      if (outcome !== 'output') {
        // Ended before any output: nothing there, or tar could not even start.
        if (outcome.exitCode === NOTHING_THERE) return undefined;
        throw failed(outcome);
      }
      exit.then(
        (ended) => (ended.exitCode === 0 ? output.end() : output.destroy(failed(ended))),
        (error: unknown) => output.destroy(error as Error),
      );
      return named(output, posix.basename(found.path), posix.basename(path));
    },
  };
}

/** The archive with its top name `from` (the files container's) renamed `to` (the step's). */
function named(archive: Readable, from: string, to: string): Readable {
  if (from === to) return archive;
  const rename = (name: string) =>
    name === from || name.startsWith(`${from}/`) ? to + name.slice(from.length) : name;
  return retar(archive, (header) => ({
    ...header,
    name: rename(header.name),
    ...(header.type === 'link' && header.linkname ? { linkname: rename(header.linkname) } : {}),
  }));
}

/** What tar said, on one line; its exit when it said nothing. */
function said(exit: { exitCode: number; stderr: string }): string {
  const lines = exit.stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.length > 0 ? lines.join('; ') : `exit ${exit.exitCode}`;
}
