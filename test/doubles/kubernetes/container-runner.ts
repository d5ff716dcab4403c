/*
 * Starting and stopping one container instance, as the kubelet's startContainer does: image reference
 * check (InvalidImageName), environment (CreateContainerConfigError), the image (image-puller.ts),
 * create (CreateContainerError), start (a failure is the terminated StartError with exit code 128),
 * then an exit watch that records the terminated state from Docker's inspect.
 */
import { statusOf } from '../../../src/engines/docker/api/errors.js';
import { containerBody } from './container-config.js';
import { kubeTime, now, type ContainerDetails } from './docker.js';
import { ConfigError, containerEnv, type FieldValues } from './env.js';
import { ensureImage, nextBackOff, type PullAttempt } from './image-puller.js';
import { imageId, invalidImageMessage, parseImage } from './images.js';
import { newInstance, type ContainerSlot, type Instance, type PodRuntime } from './pod-runtime.js';
import type { SandboxContext } from './sandbox.js';
import type { Container, ContainerStateTerminated, Pod } from './types.js';

export interface RunnerContext extends SandboxContext {
  pullBackOff: { initialMs: number; maxMs: number };
  recordPull(attempt: PullAttempt): void;
  /** Aborted when the double starts closing: cancels pulls. */
  shutdown: AbortSignal;
  /** Aborted when the double's pods are gone: ends exit watches. */
  closing: AbortSignal;
  /** Records an error of background work (a bug of the double; tests expect none). */
  onInternalError: (error: unknown) => void;
  labels(pod: Pod, role: 'sandbox' | 'container' | 'volume', container?: string): Record<string, string>;
}

export interface SlotHost {
  readonly runtime: PodRuntime;
  fields(): FieldValues;
  publish(): void;
  request(): void;
  after(ms: number, action: () => void): void;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/**
 * Starts a new instance of `container`; on failure leaves the reason in `slot.waiting` and the time of
 * the next attempt in `slot.retryAt`. Returns whether a container now runs (or ran and exited).
 */
export async function startInstance(
  ctx: RunnerContext,
  host: SlotHost,
  pod: Pod,
  slot: ContainerSlot,
  container: Container,
): Promise<boolean> {
  const specImage = container.image ?? '';
  const fail = (reason: string, message: string, retryInMs: number) => {
    slot.waiting = { reason, message };
    slot.failedImage = specImage;
    slot.retryAt = Date.now() + retryInMs;
    return false;
  };
  const parsed = parseImage(specImage);
  if (!parsed.ok) {
    return fail('InvalidImageName', invalidImageMessage(specImage, parsed.reason), ctx.pullBackOff.maxMs);
  }
  const namespace = host.runtime.namespace;
  let env: Map<string, string>;
  try {
    env = containerEnv(pod, container, (name) => ctx.secret(namespace, name), host.fields());
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail('CreateContainerConfigError', error.message, nextBackOff(ctx, slot));
  }
  const image = await ensureImage(ctx, host, pod, slot, container);
  const sandbox = host.runtime.sandbox;
  if (image === undefined || host.runtime.terminating || sandbox === undefined) return false;
  const attempt = slot.discarded + slot.instances.length;
  let body;
  try {
    body = containerBody({
      pod,
      container,
      image: image.Id,
      env,
      sandboxId: sandbox.id,
      volumes: host.runtime.volumes,
      labels: ctx.labels(pod, 'container', container.name),
      attempt,
    });
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return fail('CreateContainerConfigError', error.message, nextBackOff(ctx, slot));
  }
  let id: string;
  try {
    id = await ctx.engine.create(body);
  } catch (error) {
    return fail('CreateContainerError', messageOf(error), nextBackOff(ctx, slot));
  }
  const instance = newInstance({
    dockerId: id,
    specImage,
    imageRef: parsed.normalized,
    imageID: imageId(image, parsed),
  });
  slot.instances.push(instance);
  slot.waiting = undefined;
  await collectGarbage(ctx, slot);
  if (host.runtime.terminating) {
    instance.markExited(
      terminated(instance, { exitCode: 0, reason: 'ContainerCannotRun', message: 'pod is terminating' }),
    );
    return false;
  }
  try {
    await ctx.engine.start(id);
  } catch (error) {
    instance.markExited(
      terminated(instance, { exitCode: 128, reason: 'StartError', message: messageOf(error) }),
    );
    return true;
  }
  instance.startedAt =
    kubeTime((await ctx.engine.inspect(id).catch(() => undefined))?.State.StartedAt) ?? now();
  slot.failedImage = undefined;
  slot.backOffMs = 0;
  watchExit(ctx, host, instance).catch(ctx.onInternalError);
  return true;
}

/** The kubelet keeps the current and the previous container of a slot; older ones are removed. */
async function collectGarbage(ctx: RunnerContext, slot: ContainerSlot): Promise<void> {
  while (slot.instances.length > 2) {
    const old = slot.instances[0];
    if (old === undefined || old.terminated === undefined) break;
    slot.discarded += 1;
    slot.instances.shift();
    await ctx.engine.remove(old.dockerId);
  }
}

function terminated(
  instance: Instance,
  fields: { exitCode: number; reason: string; message?: string },
): ContainerStateTerminated {
  return {
    exitCode: fields.exitCode,
    reason: fields.reason,
    ...(fields.message === undefined || fields.message === '' ? {} : { message: fields.message }),
    startedAt: instance.startedAt ?? null,
    finishedAt: now(),
    containerID: `docker://${instance.dockerId}`,
  };
}

/** The terminated state from Docker's view of an exited container. */
export function terminatedFrom(details: ContainerDetails, dockerId: string): ContainerStateTerminated {
  const { ExitCode, OOMKilled, Error: error, StartedAt, FinishedAt } = details.State;
  const reason = OOMKilled ? 'OOMKilled' : ExitCode === 0 ? 'Completed' : 'Error';
  return {
    exitCode: ExitCode,
    reason,
    ...(error === '' ? {} : { message: error }),
    startedAt: kubeTime(StartedAt),
    finishedAt: kubeTime(FinishedAt),
    containerID: `docker://${dockerId}`,
  };
}

async function watchExit(ctx: RunnerContext, host: SlotHost, instance: Instance): Promise<void> {
  try {
    await ctx.engine.wait(instance.dockerId, ctx.closing);
  } catch {
    if (ctx.closing.aborted) return;
  }
  let state: ContainerStateTerminated;
  try {
    state = terminatedFrom(await ctx.engine.inspect(instance.dockerId), instance.dockerId);
  } catch (error) {
    if (ctx.closing.aborted) return;
    const gone = statusOf(error) === 404 ? 'the container was removed' : messageOf(error);
    state = terminated(instance, { exitCode: 137, reason: 'Error', message: gone });
  }
  instance.markExited(state);
  host.publish();
  host.request();
}

/** Stops an instance (SIGTERM, SIGKILL after the grace period) and waits until its exit is recorded. */
export async function stopInstance(
  ctx: RunnerContext,
  instance: Instance,
  graceSeconds: number,
): Promise<void> {
  if (instance.terminated !== undefined) return;
  await ctx.engine.stop(instance.dockerId, graceSeconds);
  const recorded = await Promise.race([
    instance.exited.then(() => true),
    new Promise<false>((resolve) => setTimeout(() => resolve(false), 10_000).unref()),
  ]);
  if (!recorded) {
    const details = await ctx.engine.inspect(instance.dockerId).catch(() => undefined);
    instance.markExited(
      details === undefined
        ? terminated(instance, { exitCode: 137, reason: 'Error', message: 'the container was removed' })
        : terminatedFrom(details, instance.dockerId),
    );
  }
}
