import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loginAs, tokenOf } from '../../api/client.js';
import { startHarness, type Harness } from '../../api/harness.js';
import { clientFor, jsonOf, type Svc } from './run.js';

const PLUGIN = 'kind: pipeline\nname: {{ .input.name }}\nsteps:\n- name: s\n  image: alpine\n';

describe('svc template against a real server, with drone template’s flags and positionals', () => {
  let h: Harness;
  let svc: Svc;
  let member: Svc;
  let cwd: string;

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat', orgAdmin: ['acme'] });
    h.github.addUser({ login: 'hubot', orgs: ['acme'] });
    cwd = mkdtempSync(join(tmpdir(), 'svc-client-templates-'));
    svc = clientFor(h, await tokenOf(h, await loginAs(h, 'octocat')), cwd);
    member = clientFor(h, await tokenOf(h, await loginAs(h, 'hubot')), cwd);
  });
  afterAll(() => h.close());

  it('adds from a file with --namespace --name --data @file, as drone template add does', async () => {
    writeFileSync(join(cwd, 'plugin.yaml'), PLUGIN);
    const added = await svc(
      'template',
      'add',
      '--namespace',
      'acme',
      '--name',
      'plugin.yaml',
      '--data',
      '@plugin.yaml',
    );
    expect(added, added.stderr).toMatchObject({ code: 0, stdout: 'template acme/plugin.yaml added\n' });
    expect((await h.store.templates.findName('acme', 'plugin.yaml'))?.data).toBe(PLUGIN);
  });

  it('takes Drone’s positionals [namespace] [name] [data], and text given as it is', async () => {
    const added = await svc('template', 'add', 'acme', 'inline.star', 'def main(ctx):\n  return {}\n');
    expect(added.code, added.stderr).toBe(0);
    expect((await h.store.templates.findName('acme', 'inline.star'))?.data).toBe(
      'def main(ctx):\n  return {}\n',
    );
  });

  it('lists, shows, updates and deletes', async () => {
    const listed = await member('template', 'ls', 'acme');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/^NAMESPACE\s+NAME\s+SIZE\s+UPDATED$/m);
    expect(listed.stdout).toMatch(/^acme\s+inline\.star\s+27 B\s+\d{4}-/m);
    expect(listed.stdout).toMatch(/^acme\s+plugin\.yaml\s+/m);
    expect(
      jsonOf<{ name: string }[]>(
        await member('template', 'ls', '--namespace', 'acme', '--format', 'json'),
      ).map((t) => t.name),
    ).toEqual(['inline.star', 'plugin.yaml']);

    const info = await member('template', 'info', '--namespace', 'acme', '--name', 'plugin.yaml');
    expect(info.stdout).toMatch(/^Name:\s+plugin\.yaml$/m);
    expect(info.stdout).toMatch(/^Namespace:\s+acme$/m);
    expect(info.stdout).toContain(`Data:\n${PLUGIN}`);

    writeFileSync(join(cwd, 'v2.yaml'), `${PLUGIN}# v2\n`);
    const updated = await svc('template', 'update', 'acme', 'plugin.yaml', '@v2.yaml', '--format', 'json');
    expect(jsonOf(updated)).toMatchObject({ name: 'plugin.yaml', data: `${PLUGIN}# v2\n` });

    expect((await svc('template', 'rm', '--namespace', 'acme', '--name', 'inline.star')).stdout).toBe(
      'template acme/inline.star deleted\n',
    );
    expect(await h.store.templates.findName('acme', 'inline.star')).toBeUndefined();
  });

  it('says what is wrong: the server’s refusals, and missing or unreadable input', async () => {
    const refused = await member('template', 'add', 'acme', 'mine.yaml', 'x');
    expect(refused).toMatchObject({ code: 1, stderr: 'svc: administering the namespace acme is needed\n' });
    const bad = await svc('template', 'add', 'acme', 'plugin.txt', 'x');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^svc: name: "plugin\.txt" has no template extension/);
    expect((await svc('template', 'add', 'acme', 'plugin.yaml', 'again')).stderr).toMatch(/already exists/);
    const noData = await svc('template', 'add', '--namespace', 'acme', '--name', 'x.yaml');
    expect(noData).toMatchObject({ code: 2 });
    expect(noData.stderr).toMatch(/^svc: missing the template’s text \(--data @FILE\)/);
    expect((await svc('template', 'info', 'acme')).stderr).toMatch(
      /^svc: missing the template’s name \(--name\)/,
    );
    const unreadable = await svc('template', 'add', 'acme', 'y.yaml', '@no-such-file.yaml');
    expect(unreadable.code).toBe(2);
    expect(unreadable.stderr).toMatch(
      /^svc: --data @no-such-file\.yaml: cannot read .*no-such-file\.yaml: ENOENT/,
    );
    // Without a namespace, ls asks for every namespace's, which only administrators may.
    expect(await member('template', 'ls')).toMatchObject({
      code: 1,
      stderr: 'svc: only svc administrators may do this\n',
    });
  });
});
