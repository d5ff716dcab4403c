import { InvalidInputError } from '../../core/errors.js';

const SEGMENT = /^[A-Za-z0-9._-]{1,200}$/;

/**
 * Checks a BlobStore key: `/`-separated segments of `[A-Za-z0-9._-]`, none `.` or `..`, at most
 * 1,000 characters — so that no key can name a file outside the store's folder, or an object
 * outside its prefix. Answers the segments.
 */
export function blobKeySegments(key: string): string[] {
  const segments = key.split('/');
  if (
    key.length > 1000 ||
    segments.some((segment) => !SEGMENT.test(segment) || segment === '.' || segment === '..')
  )
    throw new InvalidInputError(
      `blob key "${key.slice(0, 100)}": expected segments of letters, digits, ., - and _`,
    );
  return segments;
}

/** Checks a key prefix for `list`: a key, or a key and a trailing `/`, or empty for every blob. */
export function blobPrefixSegments(prefix: string): string[] {
  const trimmed = prefix.replace(/\/$/, '');
  return trimmed === '' ? [] : blobKeySegments(trimmed);
}

/** Checks a byte range: whole numbers, `start` ≤ `end`. */
export function checkRange(range: { start: number; end: number } | undefined): void {
  if (range === undefined) return;
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start)
    throw new InvalidInputError(`byte range ${start}-${end}: expected whole numbers, start ≤ end`);
}
