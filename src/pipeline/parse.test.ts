import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseManifest } from './parse.js';
import type { ManifestDocument, Pipeline } from './types.js';

const corpus = (file: string) =>
  readFileSync(fileURLToPath(new URL(`../../test/fixtures/pipelines/${file}`, import.meta.url)), 'utf8');

function pipelines(text: string): Pipeline[] {
  return parseManifest(text).manifest.documents.filter((d): d is Pipeline => d.kind === 'pipeline');
}

function only(text: string): Pipeline {
  const [pipeline] = pipelines(text);
  if (pipeline === undefined) throw new Error('no pipeline');
  return pipeline;
}

describe('parseManifest', () => {
  it('applies Drone defaults: type docker, name default, success-only steps, default pull', () => {
    const pipeline = only(corpus('valid/minimal.yml'));
    expect(pipeline).toMatchObject({
      kind: 'pipeline',
      type: 'docker',
      name: 'default',
      platform: { os: '', arch: '', variant: '', version: '' },
      workspace: { base: '', path: '' },
      clone: { disable: false, depth: 0, retries: 0, skipVerify: false, trace: false },
      concurrency: { limit: 0 },
      services: [],
      volumes: [],
      dependsOn: [],
    });
    expect(pipeline.steps[0]).toMatchObject({
      name: 'test',
      field: 'steps[0]',
      image: 'golang:1.22',
      pull: 'default',
      commands: ['go build', 'go test ./...'],
      failure: 'fail',
      detach: false,
      privileged: false,
      when: { status: { include: [], exclude: [] } },
    });
  });

  it('reads every pipeline and step field', () => {
    const [backend, frontend] = pipelines(corpus('valid/docker-full.yml'));
    expect(backend).toMatchObject({
      name: 'backend',
      platform: { os: 'linux', arch: 'arm64', variant: 'v8', version: '22.04' },
      node: { instance: 'fast', region: 'eu' },
      workspace: { base: '/go', path: 'src/github.com/octocat/hello-world' },
      clone: { depth: 50, retries: 3, skipVerify: true },
      concurrency: { limit: 2 },
      environment: {
        GOOS: { kind: 'value', value: 'linux' },
        CGO_ENABLED: { kind: 'value', value: '0' },
        GO_TOKEN: { kind: 'secret', secret: 'token' },
      },
      imagePullSecrets: ['dockerconfig'],
      trigger: {
        branch: { include: ['main', 'release/*'], exclude: [] },
        event: { include: [], exclude: ['pull_request'] },
      },
      volumes: [
        { kind: 'temp', name: 'cache', medium: 'disk', sizeLimit: 0 },
        { kind: 'temp', name: 'scratch', medium: 'memory', sizeLimit: 1024 ** 3 },
        { kind: 'host', name: 'usb', path: '/dev/ttyUSB0' },
      ],
    });
    expect(backend?.services.map((service) => service.name)).toEqual(['database', 'cache']);
    expect(backend?.services[0]).toMatchObject({
      pull: 'if-not-exists',
      entrypoint: ['docker-entrypoint.sh'],
      command: ['postgres', '-c', 'fsync=off'],
      resources: { memLimit: 512 * 1024 ** 2 },
    });
    const build = backend?.steps[0];
    expect(build).toMatchObject({
      pull: 'always',
      user: '1000',
      workingDir: 'cmd/server',
      shell: '/bin/bash',
      privileged: true,
      volumes: [
        { name: 'cache', path: '/go/pkg/mod' },
        { name: 'scratch', path: '/scratch' },
      ],
      networkMode: 'host',
      dns: ['1.1.1.1', '8.8.8.8'],
      dnsSearch: ['example.com'],
      extraHosts: ['somehost:162.242.195.82'],
      devices: [{ name: 'usb', path: '/dev/ttyUSB0' }],
      failure: 'ignore',
      resources: {
        memLimit: 1024 ** 3,
        memSwapLimit: 2 * 1024 ** 3,
        shmSize: 64 * 1024 ** 2,
        cpuPeriod: 100000,
        cpuQuota: 150000,
        cpuShares: 512,
        cpuSet: ['0', '1'],
      },
    });
    expect(backend?.steps[1]?.resources).toMatchObject({
      limits: { cpu: 1500, memory: 2 * 1024 ** 3 },
      requests: { cpu: 500, memory: 512 * 1024 ** 2 },
    });
    expect(backend?.steps[2]?.settings).toEqual({
      repo: { kind: 'value', value: 'octocat/hello-world' },
      username: { kind: 'secret', secret: 'docker_username' },
      password: { kind: 'secret', secret: 'docker_password' },
    });
    expect(frontend).toMatchObject({ dependsOn: ['backend'], clone: { disable: true } });
  });

  it('keeps environment values as written and settings as YAML values', () => {
    const [pipeline] = pipelines(corpus('valid/drone-compat.yml'));
    expect(pipeline?.steps[0]?.environment).toEqual({
      GO_VERSION: { kind: 'value', value: '1.10' },
      VERBOSE: { kind: 'value', value: 'yes' },
    });
    expect(pipeline?.steps[0]?.detach).toBe(false);
    const plugin = only(corpus('valid/plugins.yml')).steps[0];
    expect(plugin?.settings).toEqual({
      repo: { kind: 'value', value: 'octocat/hello-world' },
      tags: { kind: 'value', value: ['latest', '1.0', 2] },
      auto_tag: { kind: 'value', value: true },
      'build-args': { kind: 'value', value: { GO_VERSION: '1.22' } },
      mirrors: { kind: 'value', value: [{ url: 'https://mirror.example.com' }] },
      password: { kind: 'secret', secret: 'docker_password' },
    });
  });

  it('reads a pipeline’s environment as variables (a map) or as the environment it deploys to (a word)', () => {
    const steps = 'steps: [{name: s, image: busybox}]';
    const vars = only(`kind: pipeline\nname: a\nenvironment: {GOOS: linux}\n${steps}\n`);
    expect([vars.environment, vars.deployment]).toEqual([{ GOOS: { kind: 'value', value: 'linux' } }, '']);
    const deploys = only(`kind: pipeline\nname: a\nenvironment: production\n${steps}\n`);
    expect([deploys.environment, deploys.deployment]).toEqual([{}, 'production']);
    const bad = parseManifest(`kind: pipeline\nname: a\nenvironment: ../prod\n${steps}\n`).diagnostics;
    expect(bad).toContainEqual(
      expect.objectContaining({
        severity: 'error',
        field: 'environment',
        line: 3,
        message: expect.stringContaining('"../prod" is not an environment name') as unknown,
      }),
    );
  });

  it('reads conditions in each of their forms', () => {
    const pipeline = only(corpus('valid/conditions.yml'));
    const [scalar, list, includeExclude] = pipeline.steps;
    expect(scalar?.when.branch).toEqual({ include: ['main'], exclude: [] });
    expect(list?.when.ref.include).toEqual(['refs/heads/main', 'refs/heads/**', 'refs/pull/*/head']);
    expect(list?.when.status).toEqual({ include: ['failure'], exclude: [] });
    expect(includeExclude?.when.branch).toEqual({ include: ['main', 'release/*'], exclude: ['release/old'] });
    expect(includeExclude?.when.status).toEqual({ include: ['success'], exclude: [] });
    expect(pipeline.trigger.ref).toEqual({
      include: ['refs/heads/**', 'refs/tags/v*'],
      exclude: ['refs/heads/wip-*'],
    });
    expect(pipeline.trigger.repo).toEqual({ include: ['octocat/hello-world'], exclude: [] });
  });

  it('reads merged and aliased steps', () => {
    const [vet, release] = only(corpus('valid/anchors.yml')).steps;
    expect(vet).toMatchObject({
      name: 'vet-and-test',
      image: 'golang:1.22',
      commands: ['go vet ./...', 'go test ./...'],
    });
    expect(release).toMatchObject({
      name: 'release',
      image: 'golang:1.22',
      when: { branch: { include: ['main'], exclude: [] } },
      environment: {
        GOPROXY: { kind: 'value', value: 'https://proxy.golang.org' },
        GOFLAGS: { kind: 'value', value: '-trimpath' },
      },
    });
  });

  it('reads kubernetes, ssh and vm fields', () => {
    const kube = only(corpus('valid/kubernetes.yml'));
    expect(kube.kubernetes).toEqual({
      metadata: {
        name: 'build-pod',
        namespace: 'ci',
        labels: { team: 'platform' },
        annotations: { 'example.com/owner': 'octocat' },
      },
      nodeSelector: { disktype: 'ssd' },
      tolerations: [
        { key: 'dedicated', operator: 'Equal', value: 'ci', effect: 'NoSchedule', tolerationSeconds: 60 },
      ],
      serviceAccountName: 'builder',
      hostAliases: [{ ip: '10.0.0.1', hostnames: ['registry.local'] }],
      dnsConfig: {
        nameservers: ['10.0.0.10'],
        searches: ['svc.cluster.local'],
        options: [{ name: 'ndots', value: '2' }],
      },
    });
    expect(only(corpus('valid/ssh.yml')).server).toEqual({
      host: { kind: 'value', value: '10.0.0.5' },
      user: { kind: 'value', value: 'deploy' },
      password: { kind: 'secret', secret: 'ssh_password' },
      sshKey: { kind: 'secret', secret: 'ssh_key' },
    });
    const types = pipelines(corpus('valid/host-types.yml'));
    expect(types.map((p) => [p.type, p.pool])).toEqual([
      ['exec', ''],
      ['macstadium', ''],
      ['vm', 'ubuntu'],
    ]);
  });

  it('reads secret, template and signature documents', () => {
    const documents: ManifestDocument[] = [
      ...parseManifest(corpus('valid/documents.yml')).manifest.documents,
    ];
    expect(documents.map((d) => [d.kind, d.name])).toEqual([
      ['pipeline', 'publish'],
      ['secret', 'docker_username'],
      ['secret', 'docker_password'],
      ['secret', 'legacy'],
      ['template', ''],
      ['signature', ''],
    ]);
    expect(documents[2]).toMatchObject({ get: { path: 'secret/docker', name: 'password', key: 'value' } });
    expect(documents[4]).toMatchObject({
      load: 'plugin.yaml',
      data: { name: 'build', commands: ['go build'] },
    });
  });

  it('returns the documents it could read next to the errors of the others', () => {
    const result = parseManifest(
      'kind: pipeline\nname: ok\nsteps: []\n---\nkind: nonsense\n---\nkind: [x]\n',
    );
    expect(result.manifest.documents.map((d) => d.name)).toEqual(['ok']);
    expect(result.diagnostics.map((d) => [d.severity, d.line, d.field])).toEqual([
      ['warning', 3, 'steps'],
      ['error', 5, 'kind'],
      ['error', 7, 'kind'],
    ]);
  });

  it('reports YAML syntax errors where they are, with the fix for tabs', () => {
    const result = parseManifest(
      'kind: pipeline\nsteps:\n- name: build\n  image: golang\n\tcommands: [go build]\n',
    );
    expect(result.manifest.documents).toEqual([]);
    expect(result.diagnostics).toEqual([
      {
        severity: 'error',
        line: 5,
        column: 1,
        field: '',
        message: 'YAML syntax: Tabs are not allowed as indentation; expected spaces for indentation',
      },
    ]);
  });

  it('warns about YAML tags it does not know and reads their values as text', () => {
    const result = parseManifest('kind: pipeline\nname: !custom build\nsteps: [{name: a, image: x}]\n');
    expect(result.manifest.documents.map((d) => d.name)).toEqual(['build']);
    expect(result.diagnostics).toEqual([
      {
        severity: 'warning',
        line: 2,
        column: 7,
        field: '',
        message: 'YAML: Unresolved tag: !custom; the value is read as plain text',
      },
    ]);
  });

  it('reads nothing from an empty file, without complaint', () => {
    expect(parseManifest('')).toEqual({ manifest: { documents: [] }, diagnostics: [] });
    expect(parseManifest('# just a comment\n')).toEqual({ manifest: { documents: [] }, diagnostics: [] });
  });
});
