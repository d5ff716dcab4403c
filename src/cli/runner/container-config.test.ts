import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  registryForTests,
  startDistributionRegistry,
  type DistributionRegistry,
} from '../../../test/support/distribution-registry.js';
import { DockerEngine } from '../../engines/docker/engine.js';
import { dockerForTests } from '../../engines/docker/testing.case.js';
import { DEFAULT_RUNNER_SETTINGS } from '../../pipeline/index.js';
import { wireDetails } from '../../runner/client/wire/index.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import { StageExecutor } from '../../runner/executor.js';
import { prepareStage, type PrepareSettings } from '../../runner/remote/prepare.js';
import { withContainerConfig } from './container-config.js';

const docker = await dockerForTests(['local/busybox']);
const registry = registryForTests();

function file(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'svc-container-config-')), 'config.json');
  writeFileSync(path, content);
  return path;
}

describe('SVC_CONTAINER_CONFIG', () => {
  it('refuses a file that is no Docker config.json, naming the setting and the file', () => {
    const text = file('{"credsStore": "desktop"}');
    expect(() => withContainerConfig(text, undefined)).toThrow(
      `SVC_CONTAINER_CONFIG: ${text} has no "auths" object`,
    );
    expect(() => withContainerConfig('/nonexistent/config.json', undefined)).toThrow(
      /^SVC_CONTAINER_CONFIG: cannot read \/nonexistent\/config\.json: ENOENT/,
    );
    expect(withContainerConfig(null, undefined)).toBeUndefined();
  });

  it('adds the file’s credentials before the registry plugin’s', async () => {
    const plugin = {
      list: () => Promise.resolve([{ address: 'b.example.com', username: 'p', password: 'q' }]),
    };
    const config = file(JSON.stringify({ auths: { 'a.example.com': { username: 'u', password: 'v' } } }));
    const merged = withContainerConfig(config, plugin);
    expect(await merged?.list({ repo: {}, build: {} })).toEqual([
      { address: 'a.example.com', username: 'u', password: 'v' },
      { address: 'b.example.com', username: 'p', password: 'q' },
    ]);
  });
});

describe.skipIf(docker.skip || registry.skip)(
  'SVC_CONTAINER_CONFIG with a private registry (docker-registry)',
  () => {
    let private_: DistributionRegistry;
    beforeAll(async () => {
      private_ = await startDistributionRegistry();
    }, 120_000);
    afterAll(() => private_?.close());

    /** Prepares and runs a one-step stage of the registry's image (pulled each time) on the engine. */
    async function run(
      config: string | null,
      streamPull = true,
    ): Promise<{ status: string; error: string; lines: string[] }> {
      const pipeline = `kind: pipeline\ntype: docker\nname: build\nclone: { disable: true }\nsteps:\n- name: private\n  image: ${private_.image}\n  pull: always\n  commands: [ "echo pulled with the file credentials" ]\n`;
      const details = wireDetails.parse({
        build: { id: 1, number: 1, status: 'running', event: 'push', params: null },
        repository: {
          id: 1,
          namespace: 'acme',
          name: 'site',
          slug: 'acme/site',
          trusted: false,
          timeout: 10,
        },
        stage: { id: 1, number: 1, name: 'build', status: 'pending', machine: 'r1' },
        config: { data: Buffer.from(pipeline).toString('base64') },
        system: { proto: 'http', host: 'ci.example.com', version: '1.0.0' },
      });
      const settings: PrepareSettings = {
        machine: 'r1',
        types: ['docker'],
        runner: DEFAULT_RUNNER_SETTINGS,
        netrcCloneOnly: false,
        secrets: {},
        limits: undefined,
        labels: { 'io.svc.runner': 'container-config-test' },
        registryPlugin: withContainerConfig(config, undefined),
      };
      const prepared = await prepareStage(details, settings, Date.now());
      if (!prepared.ok) throw new Error(prepared.error);
      const engine = new DockerEngine({ docker: docker.docker!, owner: 'container-config-test', streamPull });
      const reporter = new MemoryReporter();
      const result = await new StageExecutor({ engine }).execute(prepared.spec, { reporter });
      const step = result.steps.find((s) => s.name === 'private');
      return { status: step?.status ?? '', error: step?.error ?? '', lines: reporter.lines('private') };
    }

    it('pulls the build’s private image with the file’s credentials (its progress in the log unless SVC_CONTAINER_STREAM_PULL=false), and cannot without them', async () => {
      const auth = Buffer.from(`${private_.username}:${private_.password}`).toString('base64');
      const config = file(JSON.stringify({ auths: { [private_.address]: { auth } } }));
      const pulled = await run(config);
      expect(pulled.status, `${pulled.error} ${pulled.lines.join('|')}`).toBe('success');
      expect(pulled.lines).toContain('pulled with the file credentials');
      // SVC_CONTAINER_STREAM_PULL (default true): the pull's progress is in the step's log, or not.
      expect(pulled.lines[0]).toBe(`svc: pulling ${private_.image}`);
      expect(pulled.lines.some((line) => /Digest: sha256:|Status: /.test(line))).toBe(true);
      const quiet = await run(config, false);
      expect(quiet.status).toBe('success');
      expect(quiet.lines).toEqual([
        '+ echo pulled with the file credentials',
        'pulled with the file credentials',
      ]);
      const refused = await run(null);
      expect(refused.status).toBe('error');
      expect(refused.error).toMatch(/no basic auth credentials|unauthorized|authentication required/i);
    }, 120_000);
  },
);
