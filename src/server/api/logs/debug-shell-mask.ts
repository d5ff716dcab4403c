import type { Build } from '../../../core/build.js';
import { DEBUG_SHELL_MARK, type LogLine } from '../../../core/log.js';
import type { Repo } from '../../../core/repo.js';
import type { Principal } from '../../auth/authenticator.js';

/** Whether the caller may write to the repository (RepoAccess.rights). */
export type WriteAccess = (repo: Repo, principal: Principal | undefined) => Promise<boolean>;

/** What a masked line of a debug session says instead. */
export const MASKED_DEBUG_SHELL = `${DEBUG_SHELL_MARK}(the debug session's connection details are shown to users with write access)\n`;

/**
 * True when the caller must not see the debug session's lines: a debug build, and no write access.
 * Other builds have no such lines to hide (a step printing the mark only hides its own output).
 */
export async function masksDebugShell(
  build: Pick<Build, 'debug'>,
  repo: Repo,
  principal: Principal | undefined,
  canWrite: WriteAccess | undefined,
): Promise<boolean> {
  if (!build.debug) return false;
  return canWrite === undefined || !(await canWrite(repo, principal));
}

/** The lines with every line of a tmate session replaced by a note (same positions and times). */
export function maskDebugShell(lines: readonly LogLine[]): LogLine[] {
  return lines.map((line) =>
    line.out.startsWith(DEBUG_SHELL_MARK) ? { ...line, out: MASKED_DEBUG_SHELL } : line,
  );
}
