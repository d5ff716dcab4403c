import { z } from 'zod';
import { InvalidInputError } from '../../../core/errors.js';
import type { NewSecret, Secret, SecretScope } from '../../../core/secret.js';
import { SecretEnvironment } from '../environments/name.js';

/** Drone's rule for secret names: letters, digits, `_`, `-` and `.`; svc's column holds 255. */
export const SecretName = z
  .string()
  .min(1, 'a secret needs a name')
  .max(255, 'at most 255 characters')
  .regex(/^[A-Za-z0-9_.-]+$/, 'only letters, digits, `_`, `-` and `.` are allowed');

const SecretValue = z.string().min(1, 'a secret needs a value');

/**
 * Fields Drone clients send with a secret that svc has no use for (drone-go serializes its whole
 * Secret struct): accepted and ignored, so that `drone secret add` works unchanged.
 */
const droneExtras = {
  id: z.number().optional(),
  repo_id: z.number().optional(),
  namespace: z.string().optional(),
  type: z.string().optional(),
};

/** `POST …/secrets`: Drone's secret input. */
export const NewSecretBody = z
  .object({
    name: SecretName,
    data: SecretValue,
    pull_request: z.boolean().default(false),
    pull_request_push: z.boolean().default(false),
    /** svc's addition: only stages deploying to this environment, once approved, receive it. */
    environment: SecretEnvironment.default(''),
    ...droneExtras,
  })
  .strict();

/** `PATCH …/secrets/{name}`: only the fields given change; `name` may be sent but not changed. */
export const SecretPatch = z
  .object({
    name: z.string().optional(),
    data: SecretValue.optional(),
    pull_request: z.boolean().optional(),
    pull_request_push: z.boolean().optional(),
    environment: SecretEnvironment.optional(),
    ...droneExtras,
  })
  .strict();

/** The secret with the patch applied; renaming is refused (delete and add it again instead). */
/** The secret a creation body makes in `scope`. */
export function newSecretOf(scope: SecretScope, body: z.infer<typeof NewSecretBody>): NewSecret {
  return {
    scope,
    name: body.name,
    data: body.data,
    pullRequest: body.pull_request,
    pullRequestPush: body.pull_request_push,
    namespaceUid: '',
    environment: body.environment,
  };
}

export function applySecretPatch(secret: Secret, patch: z.infer<typeof SecretPatch>): Secret {
  if (patch.name !== undefined && patch.name !== secret.name)
    throw new InvalidInputError('name: a secret cannot be renamed; delete it and add it under the new name');
  return {
    ...secret,
    ...(patch.data === undefined ? {} : { data: patch.data }),
    ...(patch.pull_request === undefined ? {} : { pullRequest: patch.pull_request }),
    ...(patch.pull_request_push === undefined ? {} : { pullRequestPush: patch.pull_request_push }),
    ...(patch.environment === undefined ? {} : { environment: patch.environment }),
  };
}
