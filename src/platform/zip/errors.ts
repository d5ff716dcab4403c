import { SvcError } from '../../core/errors.js';

/**
 * A tar entry refused while making a zip: it could write outside the folder the zip is extracted
 * in (a `..` segment, an absolute name, a name under a symbolic link of the archive), it is a
 * device or a FIFO, or its name is too long. INVALID_INPUT: the tar came from a client.
 */
export class UnsafeEntryError extends SvcError {
  /** The entry's name as the tar gave it (cut at 200 characters). */
  readonly entry: string;

  constructor(entry: string, why: string) {
    const shown = entry.length > 200 ? `${entry.slice(0, 200)}…` : entry;
    super('INVALID_INPUT', `the tar entry "${shown}" ${why}: the archive is refused`);
    this.entry = shown;
  }
}

/**
 * A stored zip that cannot be read: not a zip, truncated, inconsistent, over the reader's limits,
 * or an entry whose data does not match its CRC or size. INTERNAL: svc stores only zips it wrote,
 * so a broken one is the server's problem, not the client's.
 */
export class CorruptZipError extends SvcError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INTERNAL', `corrupt zip: ${message}`, options);
  }
}
