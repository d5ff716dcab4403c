/*
 * `svc runner nomad` end to end: `svc server` with the GitHub double, `svc runner nomad` against the
 * Nomad double, whose docker-driver tasks are real containers of the private engine. Each stage is a
 * Nomad batch job running svc's own image (`svc runner docker --stage ID` on the engine's socket): a
 * two-stage push builds green; a lost allocation ends its stage `error` with Nomad's reason; a
 * cancelled build stops its job; the jobs of a SIGKILLed runner are purged when it starts again.
 */
import { hostname } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { startNomadDouble, type NomadDouble } from '../doubles/nomad/index.js';
import { startGitServer, type GitServer } from '../support/git-server.js';
import {
  bridgeGateway,
  ensurePluginImage,
  ensureSvcImage,
  labelledContainers,
  removeLabelled,
} from '../support/images.js';
import { clusterPipeline, expectClusterBuild, SECRET_VALUE } from './cluster-pipeline.js';
import { HostE2E, REPO } from './host-e2e.js';
import { startSvcRunner, waitFor, type SvcProcess } from './system.js';
import { TASK } from '../../src/runner/nomad/job.js';

const docker = await dockerForTests(['local/busybox', 'svc/git']);
const RUNNER = hostname();

const LONG = (seconds: number) => `kind: pipeline
type: docker
name: long
clone: { disable: true }
steps:
- name: wait
  image: local/busybox
  pull: if-not-exists
  commands: [ "echo waiting", "sleep ${seconds}" ]
`;

/** A cache and an artifact through the job's `svc runner docker`: the second build finds both. */
const FILES = `kind: pipeline
type: docker
name: make
clone: { disable: true }
steps:
- name: deps
  image: local/busybox
  pull: if-not-exists
  cache: { key: nomad-deps, paths: [ deps ] }
  artifacts: { name: made, paths: [ "deps/*.txt" ] }
  commands:
  - if [ -f deps/made.txt ]; then echo "warm from build $(cat deps/made.txt)"; else mkdir -p deps && echo $DRONE_BUILD_NUMBER > deps/made.txt && echo cold; fi
---
kind: pipeline
type: docker
name: use
clone: { disable: true }
depends_on: [ make ]
artifacts: { from: [ make ] }
steps:
- name: read
  image: local/busybox
  pull: if-not-exists
  commands: [ "echo made by build $(cat deps/made.txt)" ]
`;

describe.skipIf(docker.skip)('svc runner nomad: a Nomad batch job per stage', () => {
  let nomad: NomadDouble;
  let git: GitServer;
  let e2e: HostE2E;
  let runner: SvcProcess | undefined;
  let gateway = '';
  const runnerEnv = () => ({
    NOMAD_ADDR: nomad.url,
    // The task's container reaches the server through the bridge's gateway, as this machine does.
    SVC_RPC_HOST: `${gateway}:${e2e.port}`,
    SVC_RUNNER_NETWORKS: git.network,
    SVC_JOB_DATACENTER: 'dc1',
    SVC_TASK_MEMORY: '256',
  });
  const stageJobs = () => nomad.jobs().filter((job) => String(job.ID).startsWith('svc-stage-'));

  beforeAll(async () => {
    ensureSvcImage();
    ensurePluginImage();
    gateway = bridgeGateway();
    nomad = await startNomadDouble();
    git = await startGitServer(docker.docker!, { 'io.svc.owner': `e2e-nomad-${process.pid}` });
    e2e = await HostE2E.start(
      'octocat',
      { token: SECRET_VALUE },
      {
        repository: {
          url: git.cloneUrl(REPO),
          commit: (files, message) => git.commit(REPO, 'main', files, message),
        },
        server: (port) => ({ SVC_SERVER_PORT: `:${port}` }),
      },
    );
    runner = startSvcRunner('nomad', e2e.port, RUNNER, runnerEnv());
  }, 300_000);

  // A failed test shows what each part saw: a timeout alone does not say which of them stopped.
  afterEach(async ({ task }) => {
    if (task.result?.state !== 'fail') return;
    const tail = (text: string) => text.split('\n').slice(-40).join('\n');
    const allocations = await Promise.all(
      nomad.allocations().map(async (alloc) => {
        const logs = await fetch(
          `${nomad.url}/v1/client/fs/logs/${alloc.ID}?task=${TASK}&type=stderr&plain=true`,
        ).then(
          (answer) => answer.text(),
          (error: unknown) => String(error),
        );
        const { ID, JobID, ClientStatus, DesiredStatus, TaskStates } = alloc;
        return `${JSON.stringify({ ID, JobID, ClientStatus, DesiredStatus, TaskStates })}\n${tail(logs)}`;
      }),
    );
    console.error(
      [
        `jobs: ${JSON.stringify(nomad.jobs().map((job) => [job.ID, job.Status, job.Stop]))}`,
        ...allocations,
        `server log:\n${tail(e2e.server.log())}`,
        `runner log:\n${tail(runner?.log() ?? '')}`,
      ].join('\n'),
    );
  });

  afterAll(async () => {
    await runner?.stop();
    await e2e?.stop();
    await nomad?.close();
    await git?.close();
  });

  it('builds a two-stage push green, each stage in a job of its own, then purges the jobs', async () => {
    const files = { 'README.md': 'hello from the cluster\n', '.drone.yml': clusterPipeline('docker') };
    const sha = await e2e.push(files, 'two stages on Nomad');
    const build = await e2e.build(1);
    await expectClusterBuild(e2e, build, sha);
    // The runner purges a job once its allocation ended: the task exits after reporting the stage.
    await waitFor('the jobs purged', () => Promise.resolve(stageJobs().length === 0 ? true : undefined));
    const allocations = nomad.allocations().filter((alloc) => String(alloc.JobID).startsWith('svc-stage-'));
    expect(allocations.map((alloc) => alloc.ClientStatus)).toEqual(['complete', 'complete']);
  });

  it('ends a stage whose allocation is lost as an error with Nomad’s reason', async () => {
    await e2e.push({ '.drone.yml': LONG(15) }, 'a node that goes away');
    await e2e.build(2, (b) => b.stages?.[0]?.steps?.find((s) => s.name === 'wait')?.status === 'running');
    await nomad.loseNode();
    const build = await e2e.build(2);
    const stage = build.stages?.[0] as { status: string; error?: string } | undefined;
    expect(stage?.status).toBe('error');
    expect(stage?.error).toMatch(
      /^Nomad allocation [0-9a-f]{8} on node .+ was lost: alloc is lost since its node is down$/,
    );
    await waitFor('the job purged', () => Promise.resolve(stageJobs().length === 0 ? true : undefined));
    // Its controller was killed with the node, its containers were not: gone with the node in life.
    await removeLabelled(`io.svc.runner=${RUNNER}`);
  });

  it('stops the job of a cancelled build', async () => {
    await e2e.push({ '.drone.yml': LONG(120) }, 'a build to cancel');
    await e2e.build(3, (b) => b.stages?.[0]?.steps?.find((s) => s.name === 'wait')?.status === 'running');
    await e2e.cancel(3);
    const build = await e2e.build(3);
    expect(build.status).toBe('killed');
    await waitFor(
      'the job stopped and purged',
      () => Promise.resolve(stageJobs().length === 0 ? true : undefined),
      60_000,
    );
  });

  it('purges the jobs of a runner SIGKILLed mid-stage when it starts again', async () => {
    await e2e.push({ '.drone.yml': LONG(120) }, 'a runner that dies');
    await e2e.build(4, (b) => b.stages?.[0]?.steps?.find((s) => s.name === 'wait')?.status === 'running');
    expect(stageJobs()).toHaveLength(1);
    await runner?.kill();
    expect(stageJobs()).toHaveLength(1);
    runner = startSvcRunner('nomad', e2e.port, RUNNER, runnerEnv());
    await waitFor(
      'the leftover job purged',
      () => Promise.resolve(stageJobs().length === 0 ? true : undefined),
      60_000,
    );
    // The job was stopped before it was purged: its task cancelled the stage's containers.
    expect(labelledContainers(`io.svc.runner=${RUNNER}`)).toEqual([]);
    expect(nomad.unknownCalls.filter((call) => call.note === undefined)).toEqual([]);
  });

  it('saves and restores a cache, and passes an artifact to a dependent stage, from its jobs', async () => {
    await e2e.push({ '.drone.yml': FILES }, 'caches and artifacts on Nomad');
    const first = await e2e.build(5);
    const made = await e2e.log(first, 'deps');
    expect(first.status, made.join('\n')).toBe('success');
    expect(made).toContain('cold');
    expect(made.some((line) => line.startsWith('cache: saved "nomad-deps"'))).toBe(true);
    expect(made.some((line) => line.startsWith('artifacts: uploaded "made", 1 file'))).toBe(true);
    expect(await e2e.log(first, 'read', 2)).toContain('made by build 5');

    await e2e.push({ '.drone.yml': FILES, 'README.md': 'again\n' }, 'the same, warm');
    const second = await e2e.build(6);
    const warm = await e2e.log(second, 'deps');
    expect(second.status, warm.join('\n')).toBe('success');
    expect(warm[0]).toMatch(/^cache: restored "nomad-deps", /);
    expect(warm).toContain('warm from build 5');
    expect(await e2e.log(second, 'read', 2)).toContain('made by build 5');
  });
});
