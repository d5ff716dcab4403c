import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidInputError } from '../core/errors.js';

/**
 * `body`'s bytes, failing with InvalidInputError(`tooLarge`) once they are more than `max`. A source
 * that fails midway (a client gone) fails the result too, so whoever reads it stores nothing.
 */
export function byteLimited(body: Readable, max: number, tooLarge: string): Readable {
  let seen = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max) done(new InvalidInputError(tooLarge));
      else done(null, chunk);
    },
  });
  pipeline(body, counted).catch(() => undefined);
  return counted;
}
