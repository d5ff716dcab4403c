import type { ExecStep, OutputSink } from '../../core/engine.js';
import { SvcError } from '../../core/errors.js';
import type { DockerClient } from './api/client.js';
import { statusOf } from './api/errors.js';

/**
 * Makes the step's image present according to its pull policy:
 * `always` pulls; `if-not-exists` pulls when missing; `never` only checks; `default` pulls when
 * missing or tagged `latest`, and when that pull fails but the image is there, goes on with it
 * (no registry reachable must not stop a build whose image is already present).
 */
export async function ensureImage(
  docker: DockerClient,
  step: ExecStep,
  output: OutputSink,
  streamProgress: boolean,
  signal: AbortSignal,
): Promise<void> {
  const present = await imagePresent(docker, step.image);
  switch (step.pull) {
    case 'never':
      if (!present) {
        const message =
          `image "${step.image}" is not present on the Docker host and the pull policy "never" forbids pulling it` +
          (SVC_OWN_IMAGE.test(step.image)
            ? "; svc's own images are published to no registry: build them on this host with `npm run images`, or set SVC_RUNNER_CLONE_IMAGE to a copy in your registry"
            : '');
        throw new SvcError('NOT_FOUND', message);
      }
      return;
    case 'if-not-exists':
      if (!present) await pull(docker, step, output, streamProgress, signal);
      return;
    case 'always':
      await pull(docker, step, output, streamProgress, signal);
      return;
    case 'default':
      if (present && !isLatest(step.image)) return;
      try {
        await pull(docker, step, output, streamProgress, signal);
      } catch (err) {
        if (!present || signal.aborted) throw err;
        output(`svc: ${(err as Error).message}; using the image already present`);
      }
      return;
  }
}

/** svc's own images (scripts/images.sh), which only a local build makes. */
const SVC_OWN_IMAGE = /^svc\/(git|placeholder|svc)(:|@|$)/;

/** True for a reference without tag or digest, or with the tag `latest`. */
export function isLatest(image: string): boolean {
  if (image.includes('@')) return false;
  const name = image.slice(image.lastIndexOf('/') + 1);
  const colon = name.indexOf(':');
  return colon < 0 || name.slice(colon + 1) === 'latest';
}

async function imagePresent(docker: DockerClient, image: string): Promise<boolean> {
  try {
    await docker.inspectImage(image);
    return true;
  } catch (err) {
    if (statusOf(err) === 404) return false;
    throw err;
  }
}

async function pull(
  docker: DockerClient,
  step: ExecStep,
  output: OutputSink,
  streamProgress: boolean,
  signal: AbortSignal,
): Promise<void> {
  const auth = step.auth && {
    username: step.auth.username,
    password: step.auth.password,
    serveraddress: step.auth.address,
  };
  if (streamProgress) output(`svc: pulling ${step.image}`);
  try {
    const lastStatus = new Map<string, string>();
    for await (const event of docker.pullImage(step.image, { auth, signal })) {
      if (!streamProgress || event.status === undefined) continue;
      // One line per layer and state, not one per progress tick.
      const key = event.id ?? '';
      if (lastStatus.get(key) === event.status) continue;
      lastStatus.set(key, event.status);
      output(key ? `${key}: ${event.status}` : event.status);
    }
  } catch (err) {
    signal.throwIfAborted();
    throw new SvcError('INTERNAL', `pulling image "${step.image}" failed: ${(err as Error).message}`, {
      cause: err,
    });
  }
}
