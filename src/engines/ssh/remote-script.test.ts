import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { scriptInvocation } from '../../pipeline/compile/script.js';
import { execStep } from '../../runner/testing/spec.js';
import { posixKill, posixRemoteScript, powershellRemoteScript } from './remote-script.js';

const paths = {
  script: '/tmp/svc-r/.svc/s1.sh',
  pidFile: '/tmp/svc-r/.svc/s1.pid',
  cancelFile: '/tmp/svc-r/.svc/s1.cancel',
  workingDir: '/tmp/svc-r/drone/src',
};

describe('remote scripts', () => {
  it('exports variables with quoting and runs the script in its folder, leaving its pid', () => {
    const step = execStep('build', { image: '', ...scriptInvocation(['make'], '', 'linux') });
    const script = posixRemoteScript(step, { NAME: "it's $x" }, paths);
    expect(script.text.split('\n')[0]).toBe(`export NAME='it'\\''s $x'`);
    expect(script.text).toContain("printf '%s\\n' '+ make'\nmake");
    expect(script.command).toBe(
      "mkdir -p '/tmp/svc-r/drone/src' && cd '/tmp/svc-r/drone/src' && echo $$ > '/tmp/svc-r/.svc/s1.pid' && [ ! -e '/tmp/svc-r/.svc/s1.cancel' ] && exec '/bin/sh' '/tmp/svc-r/.svc/s1.sh'",
    );
    expect(posixKill(paths.pidFile, paths.cancelFile)).toContain('kill -TERM "-$p"');
  });

  it('renders a Windows step as PowerShell: $env: variables, CRLF lines, the script run with -File semantics', () => {
    const step = execStep('build', { image: '', ...scriptInvocation(['go test ./...'], '', 'windows') });
    const windows = {
      script: 'C:\\\\Windows\\\\Temp\\\\svc-r\\\\.svc\\\\s1.ps1',
      pidFile: 'C:\\\\Windows\\\\Temp\\\\svc-r\\\\.svc\\\\s1.pid',
      cancelFile: 'C:\\\\Windows\\\\Temp\\\\svc-r\\\\.svc\\\\s1.cancel',
      workingDir: 'C:\\\\Windows\\\\Temp\\\\svc-r\\\\drone\\\\src',
    };
    const script = powershellRemoteScript(step, { GOFLAGS: "-mod='vendor'" }, windows);
    const lines = script.text.split('\r\n');
    expect(lines[0]).toBe("$env:GOFLAGS = '-mod=''vendor'''");
    expect(lines).toContain("Write-Output '+ go test ./...'");
    expect(lines).toContain('if ($LastExitCode -gt 0) { exit $LastExitCode }');
    expect(script.command).toMatch(
      /^powershell -NoProfile -NonInteractive -Command "New-Item -ItemType Directory -Force -Path 'C:\\\\Windows\\\\Temp\\\\svc-r\\\\drone\\\\src'/,
    );
    expect(script.command).toContain(
      "& 'C:\\\\Windows\\\\Temp\\\\svc-r\\\\.svc\\\\s1.ps1'; exit $LastExitCode",
    );
  });

  it('keeps a step from starting when the cancel came before its pid, in /bin/sh', () => {
    const root = mkdtempSync(join(tmpdir(), 'svc-remote-script-'));
    try {
      mkdirSync(join(root, '.svc'));
      const files = {
        script: join(root, '.svc', 's1.sh'),
        pidFile: join(root, '.svc', 's1.pid'),
        cancelFile: join(root, '.svc', 's1.cancel'),
        workingDir: join(root, 'src'),
      };
      const step = execStep('build', { image: '', ...scriptInvocation(['touch started'], '', 'linux') });
      const script = posixRemoteScript(step, {}, files);
      writeFileSync(files.script, script.text);
      // The cancel finds no pid (the step's channel is still opening), and says so for the step.
      execFileSync('/bin/sh', ['-c', posixKill(files.pidFile, files.cancelFile)]);
      expect(existsSync(files.cancelFile)).toBe(true);
      const started = spawnSync('/bin/sh', ['-c', script.command]);
      expect(started.status).not.toBe(0);
      expect(existsSync(join(files.workingDir, 'started'))).toBe(false);
      // Without the cancel, the same command runs the script.
      rmSync(files.cancelFile);
      expect(spawnSync('/bin/sh', ['-c', script.command]).status).toBe(0);
      expect(existsSync(join(files.workingDir, 'started'))).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
