/*
 * ValidatePodUpdate: on an existing pod only `spec.containers[*].image`, `spec.initContainers[*].image`,
 * `spec.activeDeadlineSeconds` (set, or lowered), `spec.tolerations` (additions) and
 * `spec.terminationGracePeriodSeconds` (only from a negative value to 1, as the real rule says) may change;
 * metadata labels and annotations are free. Anything else is the 422 whose message names those fields;
 * the diff after it is a plain path list, not go-cmp's rendering.
 */
import { FieldError } from './errors.js';
import { validateLabelsAndAnnotations } from './names.js';
import { deepEqual } from './patch.js';
import type { Pod, PodSpec } from './types.js';

export const FORBIDDEN_POD_UPDATE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,' +
  '`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),' +
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

export function validatePodUpdate(next: Pod, old: Pod): FieldError[] {
  const errors = validateLabelsAndAnnotations(next.metadata);
  if (next.metadata.uid !== old.metadata.uid) {
    errors.push(new FieldError('metadata.uid', 'Invalid', 'field is immutable', next.metadata.uid));
  }
  const lists = ['initContainers', 'containers'] as const;
  for (const list of lists) {
    (next.spec[list] ?? []).forEach((c, i) => {
      if (typeof c.image !== 'string' || c.image.trim() === '') {
        errors.push(new FieldError(`spec.${list}[${i}].image`, 'Required', ''));
      }
    });
  }
  const munged: PodSpec = structuredClone(next.spec);
  for (const list of lists) {
    const before = old.spec[list] ?? [];
    const after = munged[list] ?? [];
    if (before.length === after.length) {
      after.forEach((c, i) => {
        const image = before[i]?.image;
        if (image === undefined) delete c.image;
        else c.image = image;
      });
    }
  }
  const oldDeadline = old.spec.activeDeadlineSeconds;
  const newDeadline = munged.activeDeadlineSeconds;
  if (
    newDeadline !== undefined &&
    newDeadline > 0 &&
    (oldDeadline === undefined || newDeadline <= oldDeadline)
  ) {
    if (oldDeadline === undefined) delete munged.activeDeadlineSeconds;
    else munged.activeDeadlineSeconds = oldDeadline;
  }
  const oldTolerations = old.spec.tolerations ?? [];
  const newTolerations = munged.tolerations ?? [];
  if (oldTolerations.every((t) => newTolerations.some((n) => deepEqual(n, t)))) {
    if (old.spec.tolerations === undefined) delete munged.tolerations;
    else munged.tolerations = old.spec.tolerations;
  } else {
    const why = 'existing toleration can not be modified except its tolerationSeconds';
    errors.push(new FieldError('spec.tolerations', 'Forbidden', why));
    munged.tolerations = old.spec.tolerations;
  }
  const oldGrace = old.spec.terminationGracePeriodSeconds;
  if (oldGrace !== undefined && oldGrace < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = oldGrace;
  }
  if (!deepEqual(munged, old.spec)) {
    const diff = differences(old.spec, munged, 'spec').slice(0, 20);
    const detail = `${FORBIDDEN_POD_UPDATE}\n${diff.join('\n')}`;
    errors.push(new FieldError('spec', 'Forbidden', detail));
  }
  return errors;
}

/** `- path: old` / `+ path: new` lines for every leaf that differs. */
function differences(before: unknown, after: unknown, path: string): string[] {
  if (deepEqual(before, after)) return [];
  const bothObjects =
    typeof before === 'object' &&
    before !== null &&
    typeof after === 'object' &&
    after !== null &&
    Array.isArray(before) === Array.isArray(after);
  if (!bothObjects) {
    const show = (value: unknown) => (value === undefined ? '<unset>' : JSON.stringify(value));
    return [`- ${path}: ${show(before)}`, `+ ${path}: ${show(after)}`];
  }
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.flatMap((key) =>
    differences(a[key], b[key], Array.isArray(before) ? `${path}[${key}]` : `${path}.${key}`),
  );
}
