import { Writable } from 'node:stream';
import type { OutputSink } from '../../core/engine.js';
import { LineSplitter } from '../lines.js';
import type { KubeApi } from './api.js';

/** What a followed log delivered: its bytes, and the last line passed on. */
export interface FollowedLog {
  bytes: number;
  lastLine: string | undefined;
}

/**
 * Follows a container's log (`GET …/pods/{pod}/log?container=&follow=true`) line by line into
 * `output`; resolves when the API server ends the stream (the container instance ended).
 */
export async function followLines(
  api: KubeApi,
  namespace: string,
  pod: string,
  container: string,
  output: OutputSink,
): Promise<FollowedLog> {
  const followed: FollowedLog = { bytes: 0, lastLine: undefined };
  const splitter = new LineSplitter((line) => {
    followed.lastLine = line;
    output(line);
  });
  const { promise: finished, resolve } = Promise.withResolvers<void>();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      followed.bytes += chunk.length;
      splitter.write(chunk);
      callback();
    },
    final(callback) {
      splitter.end();
      resolve();
      callback();
    },
    destroy(error, callback) {
      splitter.end();
      resolve();
      callback(error);
    },
  });
  await api.followLog(namespace, pod, container, sink);
  await finished;
  return followed;
}

/**
 * Once the container ended: what its followed stream missed. A followed log may close before the
 * last bytes arrive (a final line without a newline, written as the container exits), so the last
 * line of the log is read again; when it is not the last one passed on, the whole log is read and
 * what follows the bytes already delivered goes out too. One small read per step in the common case.
 */
export async function catchUpLines(
  api: KubeApi,
  namespace: string,
  pod: string,
  container: string,
  followed: FollowedLog,
  output: OutputSink,
): Promise<void> {
  const tail = (await api.readLog(namespace, pod, container, 1)).replace(/\r?\n$/, '');
  if (tail === '' || tail === followed.lastLine) return;
  const whole = Buffer.from(await api.readLog(namespace, pod, container));
  if (whole.length <= followed.bytes) return;
  const splitter = new LineSplitter(output);
  splitter.write(whole.subarray(followed.bytes));
  splitter.end();
}
