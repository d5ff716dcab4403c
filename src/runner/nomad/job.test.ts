import { describe, expect, it } from 'vitest';
import { wireDetails } from '../client/wire/index.js';
import { JOB_PREFIX, stageJob, stageJobId, type StageJobSettings } from './job.js';

const DETAILS = wireDetails.parse({
  build: { id: 7, number: 12, status: 'running', event: 'push', params: null },
  repository: { id: 2, namespace: 'acme', name: 'site', slug: 'acme/site' },
  stage: {
    id: 31,
    number: 2,
    name: 'test',
    os: 'linux',
    arch: 'arm64',
    labels: { gpu: 'yes' },
    status: 'pending',
  },
  config: { data: '' },
  system: { proto: 'http', host: 'ci.example.com', link: 'http://ci.example.com', version: '0.1.0' },
});

const SETTINGS: StageJobSettings = {
  runner: 'nomad-1',
  image: 'svc/svc:0.1.0',
  datacenters: ['dc1', 'dc2'],
  namespace: 'ci',
  region: 'europe',
  compute: 500,
  memory: 1024,
  env: { SVC_RPC_HOST: 'ci.example.com', SVC_RPC_PROTO: 'https', SVC_RPC_SECRET: 's3cret' },
};

describe('the Nomad job of a stage', () => {
  it('is named by the prefix, the stage id and random letters, fresh each time', () => {
    const first = stageJobId(31);
    expect(first).toMatch(new RegExp(`^${JOB_PREFIX}31-[0-9a-f]{8}$`));
    expect(stageJobId(31)).not.toBe(first);
  });

  it('is one batch group with one docker task running svc runner docker --stage ID on the host’s Docker', () => {
    const job = stageJob('svc-stage-31-abcd', DETAILS, SETTINGS);
    expect(job).toMatchObject({
      ID: 'svc-stage-31-abcd',
      Name: 'svc-stage-31-abcd',
      Type: 'batch',
      Datacenters: ['dc1', 'dc2'],
      Namespace: 'ci',
      Region: 'europe',
      Meta: {
        'io.svc.runner': 'nomad-1',
        'io.svc.repo': 'acme/site',
        'io.svc.build.number': '12',
        'io.svc.stage.id': '31',
        'io.svc.stage.name': 'test',
      },
    });
    const group = (job.TaskGroups as Record<string, unknown>[])[0];
    expect(group).toMatchObject({
      Count: 1,
      RestartPolicy: { Attempts: 0, Mode: 'fail' },
      ReschedulePolicy: { Attempts: 0, Unlimited: false },
    });
    const task = (group?.Tasks as Record<string, unknown>[])[0];
    expect(task).toMatchObject({
      Name: 'stage',
      Driver: 'docker',
      User: 'root',
      Config: {
        image: 'svc/svc:0.1.0',
        args: ['runner', 'docker', '--stage', '31'],
        volumes: ['/var/run/docker.sock:/var/run/docker.sock'],
      },
      Env: {
        SVC_RPC_HOST: 'ci.example.com',
        SVC_RPC_SECRET: 's3cret',
        SVC_RUNNER_NAME: 'nomad-1',
        DOCKER_HOST: 'unix:///var/run/docker.sock',
      },
      Resources: { CPU: 500, MemoryMB: 1024 },
    });
  });

  it('is constrained to the pipeline’s platform and node labels', () => {
    expect(stageJob('j', DETAILS, SETTINGS).Constraints).toEqual([
      { LTarget: '${attr.kernel.name}', RTarget: 'linux', Operand: '=' },
      { LTarget: '${attr.cpu.arch}', RTarget: 'arm64', Operand: '=' },
      { LTarget: '${meta.gpu}', RTarget: 'yes', Operand: '=' },
    ]);
  });

  it('leaves out what is not set: namespace, region, resources, platform', () => {
    const bare = wireDetails.parse({ ...DETAILS, stage: { ...DETAILS.stage, os: '', arch: '', labels: {} } });
    const job = stageJob('j', bare, { ...SETTINGS, namespace: '', region: '', compute: null, memory: null });
    expect(job).not.toHaveProperty('Namespace');
    expect(job).not.toHaveProperty('Region');
    expect(job.Constraints).toEqual([]);
    const task = ((job.TaskGroups as Record<string, unknown>[])[0]?.Tasks as Record<string, unknown>[])[0];
    expect(task).not.toHaveProperty('Resources');
  });
});
