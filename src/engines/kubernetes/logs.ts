import { Writable } from 'node:stream';
import type { OutputSink } from '../../core/engine.js';
import { LineSplitter } from '../lines.js';
import type { KubeApi } from './api.js';

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
): Promise<void> {
  const splitter = new LineSplitter(output);
  const { promise: finished, resolve } = Promise.withResolvers<void>();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
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
}
