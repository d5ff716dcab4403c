import type { DockerClient } from '../../src/engines/docker/index.js';

const EMPTY = Buffer.alloc(0);
const MARK = Buffer.from(' t=');

/** What following a container's output through the Docker Engine API alone took. */
export interface FollowRun {
  /** From creating the container to its exit with the whole stream read (ms). */
  ms: number;
  /** Newlines read. */
  lines: number;
}

/**
 * Docker's own output path without svc: creates a container running `sh -c command` as svc's
 * Docker engine does (default log driver, no TTY), attaches to it before starting it, as svc does,
 * and only counts newlines (the multiplexed frames are undone in place). `onText`
 * gets the whole lines of each frame that hold a sample (` t=`), with the wall-clock time they arrived. The container is removed after.
 */
export async function followContainer(
  docker: DockerClient,
  image: string,
  command: string,
  onText: (text: string, arrived: number) => void,
  clock: () => number,
): Promise<FollowRun> {
  const started = performance.now();
  const { Id: container } = await docker.createContainer({
    Image: image,
    Cmd: ['sh', '-c', command],
    Tty: false,
    AttachStdout: true,
    AttachStderr: true,
  });
  let attached: Awaited<ReturnType<DockerClient['attachContainer']>> | undefined;
  try {
    const stream = await docker.attachContainer(container);
    attached = stream;
    await docker.startContainer(container);
    let lines = 0;
    let pending: Buffer = Buffer.alloc(0);
    // The part of a line a frame ended in: a frame is one write of the container, cut anywhere.
    let partial: Buffer = EMPTY;
    const read = new Promise<void>((resolve, reject) => {
      stream.on('data', (chunk: Buffer) => {
        const arrived = clock();
        pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
        let at = 0;
        while (pending.length - at >= 8) {
          const size = pending.readUInt32BE(at + 4);
          if (pending.length - at < 8 + size) break;
          const payload = pending.subarray(at + 8, at + 8 + size);
          let last = -1;
          for (let i = payload.indexOf(10); i >= 0; i = payload.indexOf(10, i + 1)) {
            lines++;
            last = i;
          }
          if (last < 0) {
            partial = Buffer.concat([partial, payload]);
          } else {
            // Usually a frame is whole lines: copy only when a line was cut.
            const lines = payload.subarray(0, last + 1);
            const whole = partial.length === 0 ? lines : Buffer.concat([partial, lines]);
            partial = last + 1 === payload.length ? EMPTY : Buffer.from(payload.subarray(last + 1));
            if (whole.includes(MARK)) onText(whole.toString('latin1'), arrived);
          }
          at += 8 + size;
        }
        pending = pending.subarray(at);
      });
      stream.on('end', resolve);
      stream.on('close', resolve);
      stream.on('error', reject);
    });
    await Promise.all([docker.waitContainer(container), read]);
    return { ms: performance.now() - started, lines };
  } finally {
    // Ended, the attach connection can stay half open and keep the benchmark's process alive.
    attached?.destroy();
    await docker.removeContainer(container, { force: true });
  }
}
