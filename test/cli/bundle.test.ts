/**
 * The bundle users run (dist/bundle/main.js, `npm run build`): the files svc finds next to its
 * modules (the web UI, docs/settings.md, the Starlark worker and its WebAssembly, the Jsonnet child,
 * package.json) must still be found when ~1,500 modules are one file per subcommand.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BUILT, finished, listeningUrl, runSvc, startSvc } from '../support/svc-process.js';

const tempDir = (): string => mkdtempSync(join(tmpdir(), 'svc-bundle-'));
const running: ReturnType<typeof startSvc>[] = [];

afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run npm run build`);
});

describe('the bundled svc command', () => {
  it('prints the version of package.json', async () => {
    const result = await runSvc(['version'], { cwd: tempDir(), built: true });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it('converts Jsonnet (a child process) and Starlark (a worker with WebAssembly)', async () => {
    const cwd = tempDir();
    writeFileSync(
      join(cwd, '.drone.jsonnet'),
      "{ kind: 'pipeline', name: 'j', steps: [{ name: 'a', image: 'alpine', commands: ['echo ' + (1 + 2)] }] }\n",
    );
    writeFileSync(
      join(cwd, '.drone.star'),
      'def main(ctx):\n    return {"kind": "pipeline", "name": "s", "steps": [{"name": "a", "image": "alpine", "commands": ["echo %d" % (1 + 2)]}]}\n',
    );
    const jsonnet = await runSvc(['convert', '.drone.jsonnet'], { cwd, built: true });
    expect(jsonnet.stderr).toBe('');
    expect(jsonnet.stdout).toContain('name: j');
    expect(jsonnet.stdout).toContain('echo 3');
    const starlark = await runSvc(['convert', '.drone.star'], { cwd, built: true });
    expect(starlark.stderr).toBe('');
    expect(starlark.stdout).toContain('name: s');
    expect(starlark.stdout).toContain('echo 3');
  });

  it('serves /healthz, the web UI with its assets, and docs/settings.md', async () => {
    const child = startSvc(['server', '--local'], {
      cwd: tempDir(),
      env: { SVC_SERVER_PORT: '127.0.0.1:0' },
      built: true,
    });
    running.push(child);
    const done = finished(child);
    const url = await listeningUrl(child);

    expect(await (await fetch(`${url}/healthz`)).text()).toBe('ok\n');
    const page = await (await fetch(`${url}/octocat/hello-world`)).text();
    const script = /src="(\/assets\/index-[^"]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${url}${script}`);
    expect(asset.status).toBe(200);
    expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const doc = await fetch(`${url}/docs/settings.md`);
    expect(doc.status).toBe(200);
    expect(await doc.text()).toContain('SVC_SERVER_HOST');

    child.kill('SIGTERM');
    const exit = await done;
    expect(exit.code).toBe(0);
    expect(exit.stderr).not.toMatch(/\n\s+at /);
  });
});
