import type { OutputSink } from '../../core/engine.js';
import { LineSplitter } from '../lines.js';
import type { DockerClient } from './api/client.js';
import { Demuxer } from './demux.js';

/** A container's output being followed; `done` resolves when the stream ends (the container stopped). */
export interface LogFollower {
  done: Promise<void>;
  /** Stops following (the container is going away anyway). */
  close(): void;
}

/**
 * Follows a container's stdout and stderr from its start, line by line into `output`. The logs
 * endpoint (rather than attach) replays what was printed before the call, so no early line is
 * lost however late the stream is opened.
 */
export async function followLogs(
  docker: DockerClient,
  container: string,
  output: OutputSink,
): Promise<LogFollower> {
  const stream = await docker.containerLogs(container, { follow: true });
  const stdout = new LineSplitter(output);
  const stderr = new LineSplitter(output);
  const demuxer = new Demuxer((kind, payload) => (kind === 'stderr' ? stderr : stdout).write(payload));
  const done = new Promise<void>((resolve) => {
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      stdout.end();
      stderr.end();
      resolve();
    };
    stream.on('data', (chunk: Buffer) => demuxer.write(chunk));
    stream.on('end', end);
    stream.on('close', end);
    // A broken log stream loses output but must not fail the step: its exit code still counts.
    stream.on('error', (err: Error) => {
      if (!ended) output(`svc: the step's log stream broke: ${err.message}`);
      end();
    });
  });
  return { done, close: () => stream.destroy() };
}
