/**
 * Turns a step's `commands` into one script. Each command is printed before it runs as `+ command`
 * (Drone's trace lines), and the script stops at the first command that fails.
 *
 * The script is handed to the shell as the argument of `-c` rather than through an environment
 * variable piped into a second shell (Drone's way): an argument reaches the shell byte for byte, so
 * quotes, backslashes, `$` and newlines in commands need no escaping beyond the trace lines, and
 * commands that read standard input do not swallow the rest of the script.
 */

/** Quotes text for a POSIX shell: one single-quoted word, with embedded quotes spliced in. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A POSIX shell script running `commands` in order, with trace lines, stopping at the first failure. */
export function posixScript(commands: readonly string[]): string {
  const lines = ['set -e', ''];
  for (const command of commands) {
    lines.push(`printf '%s\\n' ${shellQuote(`+ ${command}`)}`, command, '');
  }
  return lines.join('\n');
}

/** Quotes text for PowerShell: one single-quoted string, with embedded quotes doubled. */
export function powershellQuote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/** The PowerShell equivalent, for Windows steps and `shell: powershell` / `pwsh`. */
export function powershellScript(commands: readonly string[]): string {
  const lines = ['$ErrorActionPreference = "Stop"', ''];
  for (const command of commands) {
    lines.push(
      `Write-Output ${powershellQuote(`+ ${command}`)}`,
      command,
      'if ($LastExitCode -gt 0) { exit $LastExitCode }',
      '',
    );
  }
  return lines.join('\n');
}

/** Whether a shell is PowerShell (its scripts differ from POSIX ones). */
export function isPowershell(shell: string): boolean {
  const name =
    shell
      .split(/[\\/]/)
      .pop()
      ?.toLowerCase()
      .replace(/\.exe$/, '') ?? '';
  return name === 'powershell' || name === 'pwsh';
}

/** Entrypoint and command that run `commands` with `shell` (default `/bin/sh`, or PowerShell on Windows). */
export function scriptInvocation(
  commands: readonly string[],
  shell: string,
  os: string,
  debugScript?: (commands: readonly string[]) => string,
): { entrypoint: string[]; command: string[]; debugShell: boolean } {
  const chosen = shell !== '' ? shell : os === 'windows' ? 'powershell' : '/bin/sh';
  if (isPowershell(chosen)) {
    return {
      entrypoint: [chosen, '-NoProfile', '-NonInteractive', '-Command'],
      command: [powershellScript(commands)],
      debugShell: false,
    };
  }
  // The tmate bundle is a Linux one: other systems keep the plain script.
  if (debugScript !== undefined && os !== 'windows' && os !== 'darwin') {
    return { entrypoint: [chosen, '-c'], command: [debugScript(commands)], debugShell: true };
  }
  return { entrypoint: [chosen, '-c'], command: [posixScript(commands)], debugShell: false };
}
