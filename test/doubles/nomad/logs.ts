/*
 * `GET /v1/client/fs/logs/:alloc_id` as Nomad's client serves it (client/fs_endpoint.go `logs` and
 * `logsImpl`): the task's alloc/logs/<task>.<type>.0 file from `offset` (counted from the start, or
 * back from the end with `origin=end`), either raw (`plain=true`, text/plain) or as concatenated JSON
 * frames `{"Offset":…,"Data":"<base64>","File":"alloc/logs/…"}` of at most 64 KiB. With `follow=true`
 * new output keeps coming, an empty frame `{}` is sent every second while nothing does, and the stream
 * only ends when the client disconnects — also after the task died, exactly like Nomad. The files
 * are filled from the container's Docker logs, as Nomad's docker log collector does.
 */
import { createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import type { DockerClient } from '../../../src/engines/docker/client.js';
import { Demuxer } from '../../../src/engines/docker/demux.js';
import { sleep } from './util.js';

const FRAME_BYTES = 64 * 1024;
const HEARTBEAT_MS = 1000;
const POLL_MS = 100;

export interface LogRequest {
  /** The allocation's directory on the host. */
  allocDir: string;
  task: string;
  type: 'stdout' | 'stderr';
  follow: boolean;
  plain: boolean;
  offset: number;
  origin: 'start' | 'end';
}

/** Streams the log to `res` until done (no follow), or until `signal` aborts. Never rejects. */
export async function streamLog(
  res: ServerResponse,
  request: LogRequest,
  signal: AbortSignal,
): Promise<void> {
  const name = `${request.task}.${request.type}.0`;
  const path = join(request.allocDir, 'alloc', 'logs', name);
  const file = `alloc/logs/${name}`;
  res.on('error', () => undefined); // a client that went away ends the stream through `signal`
  res.writeHead(200, { 'Content-Type': request.plain ? 'text/plain' : 'application/json' });
  const write = (data: Buffer, offset: number, event?: string) => {
    if (request.plain) {
      if (data.length > 0) res.write(data);
      return;
    }
    const frame: Record<string, unknown> = {};
    if (offset !== 0) frame.Offset = offset;
    if (data.length > 0) frame.Data = data.toString('base64');
    frame.File = file;
    if (event !== undefined) frame.FileEvent = event;
    res.write(JSON.stringify(frame));
  };
  try {
    const size = await sizeOf(path);
    let position =
      request.origin === 'end' ? Math.max(0, size - request.offset) : Math.min(request.offset, size);
    let idleSince = Date.now();
    while (!signal.aborted) {
      const current = await sizeOf(path);
      if (current < position) {
        position = 0;
        write(Buffer.alloc(0), 0, 'file truncated');
      }
      if (current > position) {
        const data = await readRange(path, position, Math.min(current, position + FRAME_BYTES));
        position += data.length;
        write(data, position);
        idleSince = Date.now();
        continue;
      }
      if (!request.follow) break;
      if (!request.plain && Date.now() - idleSince >= HEARTBEAT_MS) {
        res.write('{}');
        idleSince = Date.now();
      }
      await sleep(POLL_MS);
    }
  } catch {
    // the alloc directory went away (purged at close): end the stream
  }
  res.end();
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

async function readRange(path: string, start: number, end: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(end - start);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/**
 * Appends a container's output, followed until it exits, to `<dir>/<task>.stdout.0` and `.stderr.0`
 * (demultiplexed; a TTY container's output is all stdout). Never rejects.
 */
export async function copyContainerLogs(
  docker: DockerClient,
  id: string,
  dir: string,
  task: string,
  tty: boolean,
) {
  const stdout = createWriteStream(join(dir, `${task}.stdout.0`), { flags: 'a' });
  const stderr = createWriteStream(join(dir, `${task}.stderr.0`), { flags: 'a' });
  stdout.on('error', () => undefined);
  stderr.on('error', () => undefined);
  try {
    const response = await docker.containerLogs(id, { follow: true });
    const demuxer = new Demuxer((stream, payload) => (stream === 'stderr' ? stderr : stdout).write(payload));
    for await (const chunk of response) {
      if (tty) stdout.write(chunk as Buffer);
      else demuxer.write(chunk as Buffer);
    }
  } catch {
    // the container went away: what was copied is what there is
  } finally {
    await Promise.all([stdout, stderr].map((stream) => new Promise<void>((resolve) => stream.end(resolve))));
  }
}
