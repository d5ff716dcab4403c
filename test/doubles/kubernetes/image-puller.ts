/*
 * Getting a container's image as the kubelet's image manager does: by pull policy (IfNotPresent uses a
 * present image; Never fails with ErrImageNeverPull when it is missing; Always pulls), pulls with the
 * credentials of the pod's imagePullSecrets for the image's registry (each attempt recorded), and the
 * back-off after a failure: ErrImagePull, then ImagePullBackOff until the next attempt is due.
 */
import type { RunnerContext, SlotHost } from './container-runner.js';
import { now, type ImageDetails } from './docker.js';
import { credentialsFor, parseImage } from './images.js';
import type { ContainerSlot } from './pod-runtime.js';
import { defaultPullPolicy } from './pod-spec.js';
import type { Container, Pod, Secret } from './types.js';

export interface PullAttempt {
  /** `namespace/name` of the pod. */
  pod: string;
  container: string;
  /** The reference pulled, normalised (`docker.io/library/alpine:3`). */
  image: string;
  /** The pod's imagePullSecrets, as given. */
  imagePullSecrets: string[];
  /** The secret whose credentials this attempt used; undefined for an anonymous pull. */
  credentialsFrom: string | undefined;
  ok: boolean;
  error?: string;
  at: string;
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** The next back-off delay of a slot (initial, then doubled up to the maximum). */
export function nextBackOff(ctx: RunnerContext, slot: ContainerSlot): number {
  const { initialMs, maxMs } = ctx.pullBackOff;
  slot.backOffMs = slot.backOffMs === 0 ? initialMs : Math.min(maxMs, slot.backOffMs * 2);
  return slot.backOffMs;
}

/** The image to run, or undefined with the reason left in `slot.waiting` and the next attempt in `slot.retryAt`. */
export async function ensureImage(
  ctx: RunnerContext,
  host: SlotHost,
  pod: Pod,
  slot: ContainerSlot,
  container: Container,
): Promise<ImageDetails | undefined> {
  const specImage = container.image ?? '';
  const parsed = parseImage(specImage);
  if (!parsed.ok) return undefined;
  const policy = container.imagePullPolicy ?? defaultPullPolicy(specImage);
  const local = await ctx.engine.image(parsed.normalized);
  if (policy === 'Never' || (policy === 'IfNotPresent' && local !== undefined)) {
    if (local !== undefined) return local;
    slot.waiting = {
      reason: 'ErrImageNeverPull',
      message: `Container image "${specImage}" is not present with pull policy of Never`,
    };
    slot.failedImage = specImage;
    slot.retryAt = Date.now() + ctx.pullBackOff.maxMs;
    return undefined;
  }
  const failure = await pull(ctx, pod, container, parsed.domain, parsed.normalized);
  if (failure === undefined) return ctx.engine.image(parsed.normalized);
  // Always, and the pull failed: the double has no registry to refresh from, so a local copy is used.
  if (local !== undefined) return local;
  const delay = nextBackOff(ctx, slot);
  slot.waiting = {
    reason: 'ErrImagePull',
    message: `rpc error: code = Unknown desc = Error response from daemon: ${failure}`,
  };
  slot.failedImage = specImage;
  slot.retryAt = Date.now() + delay;
  const failedAt = slot.retryAt;
  host.after(delay / 2, () => {
    if (slot.waiting?.reason === 'ErrImagePull' && slot.retryAt === failedAt) {
      slot.waiting = { reason: 'ImagePullBackOff', message: `Back-off pulling image "${specImage}"` };
      host.publish();
    }
  });
  return undefined;
}

/** Pulls with each matching credential in turn (anonymously when none matches); the last error, if all fail. */
async function pull(
  ctx: RunnerContext,
  pod: Pod,
  container: Container,
  domain: string,
  reference: string,
): Promise<string | undefined> {
  const namespace = pod.metadata.namespace ?? '';
  const given = (pod.spec.imagePullSecrets ?? []).map((s) => s.name ?? '');
  const secrets = given
    .map((name) => ctx.secret(namespace, name))
    .filter((s): s is Secret => s !== undefined);
  const credentials = credentialsFor(domain, secrets);
  let failure: string | undefined;
  for (const credential of credentials.length > 0 ? credentials : [undefined]) {
    const attempt = {
      pod: `${namespace}/${pod.metadata.name ?? ''}`,
      container: container.name,
      image: reference,
      imagePullSecrets: given,
      credentialsFrom: credential?.secret,
      at: now(),
    };
    try {
      await ctx.engine.pull(reference, credential?.auth, ctx.shutdown);
      ctx.recordPull({ ...attempt, ok: true });
      return undefined;
    } catch (error) {
      failure = messageOf(error);
      ctx.recordPull({ ...attempt, ok: false, error: failure });
    }
  }
  return failure;
}
