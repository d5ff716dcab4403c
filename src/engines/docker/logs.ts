import type { Duplex } from 'node:stream';
import type { OutputSink } from '../../core/engine.js';
import { LineSplitter } from '../lines.js';
import type { DockerClient } from './api/client.js';
import { Demuxer } from './demux.js';

/** A container's output being read; `done` resolves when the stream ends (the container stopped). */
export interface LogFollower {
  done: Promise<void>;
  /** Stops reading (the container is going away anyway). */
  close(): void;
}

/**
 * Attaches to a container that has not started yet and passes its stdout and stderr, line by line,
 * into `output`. Attaching before `start` loses no early line; and reading the attach stream rather
 * than following the logs lets svc pace the container instead of trailing a growing log file
 * (1M lines: 7.1 s instead of 12.3 s, docs/performance.md). The log driver still gets every line.
 */
export async function attachOutput(
  docker: DockerClient,
  container: string,
  output: OutputSink,
  signal?: AbortSignal,
): Promise<LogFollower> {
  const stream = await docker.attachContainer(container, signal);
  return { done: readFrames(stream, output), close: () => stream.destroy() };
}

/**
 * Reads the multiplexed stream to its end, as fast as `output` has room (OutputSink.room); a broken
 * stream is reported, never thrown.
 */
function readFrames(stream: Duplex, output: OutputSink): Promise<void> {
  const stdout = new LineSplitter(output);
  const stderr = new LineSplitter(output);
  const demuxer = new Demuxer((kind, payload) => (kind === 'stderr' ? stderr : stdout).write(payload));
  return new Promise<void>((resolve) => {
    let ended = false;
    const end = (): void => {
      if (ended) return;
      ended = true;
      stdout.end();
      stderr.end();
      resolve();
    };
    stream.on('data', (chunk: Buffer) => {
      demuxer.write(chunk);
      // Paced by the receiver: reading stops, Docker stops copying, and the step blocks on its pipe.
      const room = output.room?.();
      if (room === undefined) return;
      stream.pause();
      void room.then(() => stream.resume());
    });
    stream.on('end', end);
    stream.on('close', end);
    // A broken log stream loses output but must not fail the step: its exit code still counts.
    stream.on('error', (err: Error) => {
      if (!ended) output(`svc: the step's log stream broke: ${err.message}`);
      end();
    });
  });
}
