import type { ExecStep } from '../../core/engine.js';
import { powershellQuote, shellQuote } from '../../pipeline/compile/script.js';

/** What a step becomes on a host: the script file's text, and the command that runs it. */
export interface RemoteScript {
  /** The file's content: the step's variables, then its commands. */
  text: string;
  /** Runs the file in the working directory, leaving the process group's id in `pidFile`. */
  command: string;
}

/** Where a step's files go on the host. */
export interface ScriptPaths {
  script: string;
  pidFile: string;
  /** Left by a cancel that found no pid yet: the step, when its command comes, does not start. */
  cancelFile: string;
  workingDir: string;
}

/** The script body of a host step: the `-c` / `-Command` argument the compiler made, or the command line. */
function bodyOf(step: ExecStep): { shell: string[]; body: string } {
  const [shell, ...flags] = step.entrypoint;
  const last = flags.at(-1)?.toLowerCase();
  if (shell !== undefined && (last === '-c' || last === '-command') && step.command.length === 1) {
    return { shell: [shell, ...flags.slice(0, -1)], body: step.command[0] ?? '' };
  }
  return { shell: [], body: [...step.entrypoint, ...step.command].map(shellQuote).join(' ') };
}

/**
 * A POSIX step: variables exported at the top of the file (SSH servers refuse most environment
 * requests, and a file readable by the build user only keeps secrets out of `ps`). The command is
 * run by sshd in a new session, so the shell's pid is the process group's id: written to `pidFile`,
 * it lets a cancel kill the whole group, children included.
 */
export function posixRemoteScript(
  step: ExecStep,
  env: Record<string, string>,
  paths: ScriptPaths,
): RemoteScript {
  const { shell, body } = bodyOf(step);
  const exports = Object.entries(env).map(([name, value]) => `export ${name}=${shellQuote(value)}`);
  const interpreter = shell.length > 0 ? shell.map(shellQuote).join(' ') : '/bin/sh';
  const dir = shellQuote(paths.workingDir);
  return {
    text: [...exports, '', body, ''].join('\n'),
    command: `mkdir -p ${dir} && cd ${dir} && echo $$ > ${shellQuote(paths.pidFile)} && [ ! -e ${shellQuote(paths.cancelFile)} ] && exec ${interpreter} ${shellQuote(paths.script)}`,
  };
}

/** A Windows step (`platform.os: windows`): the same as PowerShell, variables set through `$env:`. */
export function powershellRemoteScript(
  step: ExecStep,
  env: Record<string, string>,
  paths: ScriptPaths,
): RemoteScript {
  const { body } = bodyOf(step);
  const assignments = Object.entries(env).map(([name, value]) => `$env:${name} = ${powershellQuote(value)}`);
  const dir = powershellQuote(paths.workingDir);
  const script = powershellQuote(paths.script);
  return {
    text: [...assignments, '', ...body.split(/\r?\n/), ''].join('\r\n'),
    command: `powershell -NoProfile -NonInteractive -Command "New-Item -ItemType Directory -Force -Path ${dir} | Out-Null; Set-Location ${dir}; $PID | Out-File -Encoding ascii ${powershellQuote(paths.pidFile)}; & ${script}; exit $LastExitCode"`,
  };
}

/**
 * The kill of a POSIX step's process group: TERM, then KILL for what is left after two seconds. No
 * `--` before the negative id: dash's `kill` (Debian's /bin/sh) takes it for a process id.
 * A cancel can come before the step's command has written its pid (its channel still opening): it
 * then leaves `cancelFile`, which the command checks after writing its pid, and reads the pid again.
 * Either the step sees the file and never starts, or its pid is there to be read the second time.
 */
export function posixKill(pidFile: string, cancelFile: string): string {
  const pid = `"$(cat ${shellQuote(pidFile)} 2>/dev/null)"`;
  return [
    `p=${pid}`,
    `if [ -z "$p" ]; then : > ${shellQuote(cancelFile)} 2>/dev/null; p=${pid}; fi`,
    '[ -n "$p" ] || exit 0',
    'kill -TERM "-$p" 2>/dev/null',
    'for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "-$p" 2>/dev/null || exit 0; sleep 0.2; done',
    'kill -KILL "-$p" 2>/dev/null',
    'exit 0',
  ].join('; ');
}
