/**
 * The exit code of a command run through `exec`, from what the API server sent on the error channel
 * (3) before it closed the connection: with the v4 and v5 protocols a metav1.Status — `Success`, or
 * `Failure` with reason `NonZeroExitCode` and the code as the message of the `ExitCode` cause. Any
 * other Failure (the container is gone, the command cannot start) is an error naming its message;
 * nothing at all means the connection was cut before the command ended.
 */
export function exitOf(status: string, where: string): number {
  if (status.trim() === '')
    throw new Error(`exec in ${where}: the connection closed before the command's exit status came`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(status);
  } catch {
    throw new Error(`exec in ${where}: ${status.trim()}`);
  }
  const fields = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as {
    status?: unknown;
    reason?: unknown;
    message?: unknown;
    details?: { causes?: { reason?: unknown; message?: unknown }[] };
  };
  if (fields.status === 'Success') return 0;
  if (fields.reason === 'NonZeroExitCode') {
    const cause = fields.details?.causes?.find((c) => c.reason === 'ExitCode');
    const code = Number(cause?.message);
    if (Number.isInteger(code)) return code;
  }
  const message = typeof fields.message === 'string' ? fields.message : status.trim();
  throw new Error(`exec in ${where}: ${message}`);
}
