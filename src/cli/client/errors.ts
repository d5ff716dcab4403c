/** Wrong usage of the client: unknown verb or flag, a missing argument or setting (exit code 2). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The server refused or could not be reached (exit code 1); the message is the server's own. */
export class RequestError extends Error {
  override readonly name = 'RequestError';
  constructor(
    message: string,
    /** The HTTP status; 0 when the server could not be reached. */
    readonly status: number,
  ) {
    super(message);
  }
}
