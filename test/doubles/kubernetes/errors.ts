/*
 * Kubernetes `Status` errors, with the reasons, codes and message formats of k8s.io/apimachinery's
 * pkg/api/errors (research notes §3.1): handlers throw an `ApiError`, the server answers its Status.
 */
import type { Status } from './types.js';

export type Cause = { reason: string; message: string; field?: string };

export class ApiError extends Error {
  constructor(readonly status: Status) {
    super(status.message);
  }
}

function failure(code: number, reason: string, message: string, details?: Status['details']): ApiError {
  // Field order as the API server writes it: details before code.
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    ...(details === undefined ? {} : { details }),
    code,
  });
}

/** `pods "x" not found` (resource is the plural, e.g. pods, secrets, namespaces). */
export const notFound = (resource: string, name: string): ApiError =>
  failure(404, 'NotFound', `${resource} "${name}" not found`, { name, kind: resource });

/** What an unknown path gets. */
export const unknownPath = (): ApiError =>
  failure(404, 'NotFound', 'the server could not find the requested resource', {});

export const alreadyExists = (resource: string, name: string): ApiError =>
  failure(409, 'AlreadyExists', `${resource} "${name}" already exists`, { name, kind: resource });

/** An optimistic-lock failure or a failed precondition. */
export const conflict = (resource: string, name: string, why: string): ApiError =>
  failure(409, 'Conflict', `Operation cannot be fulfilled on ${resource} "${name}": ${why}`, {
    name,
    kind: resource,
  });

export const STALE_OBJECT =
  'the object has been modified; please apply your changes to the latest version and try again';

export const forbidden = (resource: string, name: string, why: string): ApiError =>
  failure(403, 'Forbidden', `${resource} "${name}" is forbidden: ${why}`, { name, kind: resource });

export const badRequest = (message: string): ApiError => failure(400, 'BadRequest', message);

export const unauthorized = (): ApiError => failure(401, 'Unauthorized', 'Unauthorized');

export const methodNotAllowed = (): ApiError =>
  failure(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});

export const unsupportedMediaType = (contentType: string): ApiError =>
  failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ` +
      `application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, ` +
      `application/strategic-merge-patch+json`,
    { causes: [{ reason: 'UnexpectedServerResponse', message: contentType }] },
  );

/** The ERROR event object of a watch from a resource version the history no longer holds. */
export const expired = (message: string): Status => failure(410, 'Expired', message).status;

/** The 422 a JSON patch that does not apply gets (apiserver's generic server response). */
export const patchFailed = (why: string): ApiError =>
  failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {
    causes: [{ reason: 'UnexpectedServerResponse', message: why }],
  });

/**
 * A field error as field.Error renders it: `spec.containers[0].name: Invalid value: "X": why`. The
 * cause carries the same text without the field, as the API server's StatusCause does.
 */
export class FieldError {
  constructor(
    readonly field: string,
    readonly type: FieldErrorType,
    readonly detail: string,
    readonly value?: unknown,
  ) {}

  get causeMessage(): string {
    const label = FIELD_ERROR_LABELS[this.type];
    if (this.type === 'Required' || this.type === 'Forbidden') {
      return this.detail === '' ? label : `${label}: ${this.detail}`;
    }
    const shown =
      typeof this.value === 'string' ? JSON.stringify(this.value) : JSON.stringify(this.value ?? null);
    return this.detail === '' ? `${label}: ${shown}` : `${label}: ${shown}: ${this.detail}`;
  }

  toString(): string {
    return `${this.field}: ${this.causeMessage}`;
  }
}

export type FieldErrorType = 'Invalid' | 'Required' | 'Duplicate' | 'NotFound' | 'NotSupported' | 'Forbidden';

const FIELD_ERROR_LABELS: Record<FieldErrorType, string> = {
  Invalid: 'Invalid value',
  Required: 'Required value',
  Duplicate: 'Duplicate value',
  NotFound: 'Not found',
  NotSupported: 'Unsupported value',
  Forbidden: 'Forbidden',
};

/** `Pod "x" is invalid: <one error>` or `… is invalid: [<e1>, <e2>]`, with one cause per error. */
export function invalid(kind: string, name: string, errors: FieldError[]): ApiError {
  const texts = errors.map(String);
  const summary = texts.length === 1 ? (texts[0] ?? '') : `[${texts.join(', ')}]`;
  return failure(422, 'Invalid', `${kind} "${name}" is invalid: ${summary}`, {
    name,
    kind,
    causes: errors.map((e) => ({ reason: `FieldValue${e.type}`, message: e.causeMessage, field: e.field })),
  });
}

/** The `Status` a successful delete of a secret answers. */
export function deleted(resource: string, name: string, uid: string | undefined): Status {
  const details: NonNullable<Status['details']> = { name, kind: resource };
  if (uid !== undefined) details.uid = uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details, code: 200 };
}
