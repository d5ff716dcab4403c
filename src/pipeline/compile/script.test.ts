import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isPowershell, posixScript, powershellScript, scriptInvocation, shellQuote } from './script.js';

// Scripts run for real in a scratch directory, as a step's shell would run them.
const cwd = mkdtempSync(join(tmpdir(), 'svc-script-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function run(commands: readonly string[], env: Record<string, string> = {}) {
  const { entrypoint, command } = scriptInvocation(commands, '', 'linux');
  const [shell = '', ...args] = entrypoint;
  const result = spawnSync(shell, [...args, ...command], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    encoding: 'utf8',
    input: 'stdin-data\n',
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('posix scripts', () => {
  it('prints each command as "+ command" before its output', () => {
    expect(run(['echo one', 'echo two'])).toEqual({
      status: 0,
      stdout: '+ echo one\none\n+ echo two\ntwo\n',
      stderr: '',
    });
  });

  it('stops at the first failing command with its exit code', () => {
    const result = run(['echo before', 'exit 3', 'echo after']);
    expect(result.status).toBe(3);
    expect(result.stdout).toBe('+ echo before\nbefore\n+ exit 3\n');
  });

  it('stops at a failing command in the middle, not only at the end', () => {
    const result = run(['false', 'echo unreachable']);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('+ false\n');
  });

  it('passes quotes, backslashes, $ and % through untouched, in the trace and in the command', () => {
    const tricky = `printf '%s|%s\\n' "it's \\"quoted\\"" 'a\\b $HOME 100%'`;
    const result = run([tricky], { HOME: '/home/x' });
    expect(result.stdout).toBe(`+ ${tricky}\nit's "quoted"|a\\b $HOME 100%\n`);
  });

  it('expands variables only in the command, not in its trace line', () => {
    const result = run(['echo "$GREETING $$"'], { GREETING: 'hello' });
    const [trace, output] = result.stdout.split('\n');
    expect(trace).toBe('+ echo "$GREETING $$"');
    expect(output).toMatch(/^hello \d+$/);
  });

  it('runs multi-line commands and here-documents as written', () => {
    const block = 'if [ -n "$A" ]; then\n  echo "A is $A"\nfi';
    const heredoc = "cat <<'EOF'\nline $1\nEOF";
    const result = run([block, heredoc, 'echo done'], { A: 'set' });
    expect(result.stdout).toBe(`+ ${block}\nA is set\n+ ${heredoc}\nline $1\n+ echo done\ndone\n`);
  });

  it('keeps state between commands: directories and variables carry over', () => {
    const result = run(['mkdir -p sub && cd sub', 'X=42', 'echo "$(basename "$PWD") $X"']);
    expect(result.stdout.split('\n').at(-2)).toBe('sub 42');
  });

  it('leaves standard input to the commands (the script is not read from it)', () => {
    const result = run(['read line', 'echo "got $line"']);
    expect(result.stdout).toBe('+ read line\n+ echo "got $line"\ngot stdin-data\n');
  });

  it('ends the step with a command\'s exit code 78 too, which the runner reads as "skip the rest"', () => {
    const result = run(['exit 78', 'echo never']);
    expect(result.status).toBe(78);
  });

  it('is a plain text with set -e first', () => {
    expect(posixScript(['make'])).toBe("set -e\n\nprintf '%s\\n' '+ make'\nmake\n");
  });
});

describe('scriptInvocation', () => {
  it('runs /bin/sh -c with the script by default', () => {
    expect(scriptInvocation(['make'], '', 'linux')).toEqual({
      entrypoint: ['/bin/sh', '-c'],
      command: [posixScript(['make'])],
      debugShell: false,
    });
  });

  it('wraps the script for a debug shell on Linux only', () => {
    const wrap = (commands: readonly string[]): string => `debug ${commands.join(';')}`;
    expect(scriptInvocation(['make'], '', 'linux', wrap)).toEqual({
      entrypoint: ['/bin/sh', '-c'],
      command: ['debug make'],
      debugShell: true,
    });
    expect(scriptInvocation(['make'], '', 'windows', wrap).debugShell).toBe(false);
  });

  it('uses the step shell when given', () => {
    expect(scriptInvocation(['make'], '/bin/bash', 'linux').entrypoint).toEqual(['/bin/bash', '-c']);
  });

  it('writes PowerShell for Windows and for shell: powershell or pwsh', () => {
    for (const [shell, os] of [
      ['', 'windows'],
      ['pwsh', 'linux'],
      ['C:\\Windows\\powershell.exe', 'windows'],
    ] as const) {
      const invocation = scriptInvocation(['dir'], shell, os);
      expect(invocation.entrypoint.slice(1)).toEqual(['-NoProfile', '-NonInteractive', '-Command']);
      expect(invocation.command).toEqual([powershellScript(['dir'])]);
    }
    expect(powershellScript(["echo 'hi'"])).toBe(
      "$ErrorActionPreference = \"Stop\"\n\nWrite-Output '+ echo ''hi'''\necho 'hi'\nif ($LastExitCode -gt 0) { exit $LastExitCode }\n",
    );
    expect(isPowershell('/usr/bin/pwsh')).toBe(true);
    expect(isPowershell('/bin/bash')).toBe(false);
  });

  it('quotes any text as one shell word', () => {
    const text = `a'b"c$d\\e\nf`;
    const result = spawnSync('/bin/sh', ['-c', `printf %s ${shellQuote(text)}`], { encoding: 'utf8' });
    expect(result.stdout).toBe(text);
  });
});
