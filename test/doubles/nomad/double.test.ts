/*
 * The Nomad double against Nomad's HTTP API as documented (/tmp/research/nomad.md §3), with tasks
 * really running on the test Docker engine (local/busybox): a failing and a succeeding batch job with
 * their events and separate stdout/stderr logs, blocking queries, a blocked evaluation, registration
 * errors, stop with purge, the Docker socket volume, a lost node, ACLs, unknown routes, and close()
 * leaving nothing behind.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerClient } from '../../../src/engines/docker/client.js';
import { containerOptions, type DriverOptions } from './driver.js';
import { startNomadDouble, type NomadDouble } from './index.js';

const TOKEN = 'nomad-double-test-token';
const IMAGE = 'local/busybox:latest';
let nomad: NomadDouble;
let root: string;

type Json = Record<string, unknown>;
interface TaskEventJson {
  Type: string;
  ExitCode: number;
  DriverError: string;
  DriverMessage: string;
  ValidationError: string;
  RestartReason: string;
  Details: Record<string, string>;
}
interface TaskStateJson {
  State: string;
  Failed: boolean;
  StartedAt: string;
  Events: TaskEventJson[];
}
interface AllocJson {
  ID: string;
  ClientStatus: string;
  DesiredStatus: string;
  ModifyIndex: number;
  NextAllocation: string;
  TaskStates: Record<string, TaskStateJson> | null;
}
/** The fields of Nomad's answers the tests read (each answer has only some of them). */
interface Answer extends AllocJson {
  EvalID: string;
  JobModifyIndex: number;
  BlockedEval: string;
  Status: string;
  config: Json;
  Summary: Record<string, { Queued: number }>;
}

async function call(
  path: string,
  init: { method?: string; body?: unknown; token?: string | null; raw?: string } = {},
) {
  const token = init.token === undefined ? TOKEN : init.token;
  const res = await fetch(nomad.url + path, {
    method: init.method ?? 'GET',
    headers: token === null ? {} : { 'X-Nomad-Token': token },
    ...(init.raw !== undefined
      ? { body: init.raw }
      : init.body === undefined
        ? {}
        : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  const json =
    res.headers.get('content-type') === 'application/json' && text !== ''
      ? (JSON.parse(text) as unknown)
      : undefined;
  return {
    status: res.status,
    text,
    json: json as Answer & AllocJson[],
    index: Number(res.headers.get('x-nomad-index')),
    headers: res.headers,
  };
}

/** A batch job of one busybox task, with no restarts and no reschedules (what svc registers). */
function batchJob(id: string, script: string, extra: { constraints?: Json[]; task?: Json } = {}) {
  return {
    Job: {
      ID: id,
      Type: 'batch',
      Datacenters: ['dc1'],
      Meta: { 'io.svc.stage': '1' },
      Constraints: extra.constraints ?? [{ LTarget: '${attr.kernel.name}', RTarget: 'linux', Operand: '=' }],
      TaskGroups: [
        {
          Name: 'pipeline',
          RestartPolicy: { Attempts: 0, Mode: 'fail' },
          ReschedulePolicy: { Attempts: 0, Unlimited: false },
          Tasks: [
            {
              Name: 'stage',
              Driver: 'docker',
              Config: { image: IMAGE, entrypoint: ['sh', '-c', script] },
              Resources: { CPU: 100, MemoryMB: 64 },
              KillTimeout: 1_000_000_000,
              ...extra.task,
            },
          ],
        },
      ],
    },
  };
}

/** Follows the job's allocations with blocking queries until `done` holds for the first one. */
async function waitAlloc(
  jobID: string,
  done: (alloc: AllocJson) => boolean,
  timeoutMs = 30_000,
): Promise<AllocJson> {
  const deadline = Date.now() + timeoutMs;
  let index = 0;
  while (Date.now() < deadline) {
    const res = await call(`/v1/job/${jobID}/allocations?index=${index}&wait=5s`);
    const alloc = res.json[0];
    if (alloc !== undefined && done(alloc)) return alloc;
    index = res.index;
  }
  throw new Error(`allocation of ${jobID} did not get there in time`);
}

/** The `stage` task's state of an allocation. */
function stageOf(alloc: AllocJson): TaskStateJson {
  const state = alloc.TaskStates?.stage;
  if (state === undefined) throw new Error(`allocation ${alloc.ID} has no task state for stage`);
  return state;
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'nomad-double-test-'));
  nomad = await startNomadDouble({ token: TOKEN, dataRoot: root, namespaces: ['ci'] });
});

afterAll(async () => {
  await nomad?.close();
  await rm(root, { recursive: true, force: true });
});

describe('Nomad double: the API', () => {
  it('refuses calls without the ACL token and records unknown routes', async () => {
    expect(await call('/v1/jobs', { token: null })).toMatchObject({ status: 403, text: 'Permission denied' });
    expect(await call('/v1/jobs', { token: 'wrong' })).toMatchObject({
      status: 403,
      text: 'ACL token not found',
    });
    const bearer = await fetch(`${nomad.url}/v1/jobs?prefix=svc-`, {
      headers: { Authorization: `Bearer ${TOKEN}` },
    });
    expect(bearer.status).toBe(200);
    expect(bearer.headers.get('x-nomad-knownleader')).toBe('true');
    expect(await bearer.json()).toEqual([]);
    const unknown = await call('/v1/nothing/here?x=1');
    expect(unknown).toMatchObject({ status: 404, text: '' });
    expect(nomad.unknownCalls).toContainEqual({ method: 'GET', path: '/v1/nothing/here', query: 'x=1' });
    expect((await call('/v1/status/leader', { token: null })).json).toMatch(/:4647$/);
    expect((await call('/v1/agent/self')).json.config).toMatchObject({ Datacenter: 'dc1', Region: 'global' });
  });

  it("rejects bad registrations with Nomad's status codes and texts", async () => {
    expect(await call('/v1/jobs', { method: 'PUT' })).toMatchObject({
      status: 400,
      text: 'Request body is empty',
    });
    expect(await call('/v1/jobs', { method: 'PUT', body: {} })).toMatchObject({
      status: 400,
      text: 'Job must be specified',
    });
    expect(await call('/v1/jobs', { method: 'POST', body: { Job: { Name: 'x' } } })).toMatchObject({
      status: 400,
      text: "Job ID hasn't been provided",
    });
    expect(await call('/v1/job/other', { method: 'PUT', body: batchJob('svc-a', 'true') })).toMatchObject({
      status: 400,
      text: 'Job ID does not match name',
    });
    expect(
      await call('/v1/jobs', { method: 'PUT', body: { Job: { ID: 'svc-a', Priority: 'high' } } }),
    ).toMatchObject({
      status: 400,
      text: 'json: cannot unmarshal string into Go struct field Job.Job.Priority of type int',
    });
    expect(
      await call('/v1/jobs', { method: 'PUT', body: { Job: { ID: 'svc-a', Type: 'batch' } } }),
    ).toMatchObject({
      status: 500,
      text: '1 error occurred:\n\t* Missing job task groups\n\n',
    });
    const elsewhere = { ...batchJob('svc-ns', 'true'), Namespace: 'nowhere' };
    expect(await call('/v1/jobs', { method: 'PUT', body: elsewhere })).toMatchObject({
      status: 500,
      text: '1 error occurred:\n\t* job "svc-ns" is in nonexistent namespace "nowhere"\n\n',
    });
    expect(await call('/v1/job/svc-missing')).toMatchObject({ status: 404, text: 'job not found' });
    expect(await call('/v1/allocation/00000000-0000-0000-0000-000000000000')).toMatchObject({
      status: 404,
      text: 'alloc not found',
    });
    const gone = await call('/v1/job/svc-missing?purge=true', { method: 'DELETE' });
    expect(gone).toMatchObject({ status: 200, json: { EvalID: '', JobModifyIndex: 0 } });
  });

  it('holds a blocking query until the index passes, else until the wait is over', async () => {
    const first = await call('/v1/job/svc-never?wait=1s');
    const started = Date.now();
    const held = await call(`/v1/job/svc-never?index=${first.index}&wait=1s`);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(held).toMatchObject({ status: 404, index: first.index });
    expect(await call('/v1/jobs?index=1&wait=soon')).toMatchObject({
      status: 400,
      text: 'Invalid wait time',
    });
  });

  it('blocks a job whose constraint no node meets, with FailedTGAllocs', async () => {
    const constraints = [{ LTarget: '${attr.cpu.arch}', RTarget: 'arm64', Operand: '=' }];
    const registered = await call('/v1/jobs', {
      method: 'PUT',
      body: batchJob('svc-arm', 'true', { constraints }),
    });
    expect(registered.status).toBe(200);
    let evaluation = await call(`/v1/evaluation/${registered.json.EvalID}`);
    if (evaluation.json.Status === 'pending')
      evaluation = await call(`/v1/evaluation/${registered.json.EvalID}?index=${evaluation.index}`);
    expect(evaluation.json).toMatchObject({
      Status: 'complete',
      TriggeredBy: 'job-register',
      FailedTGAllocs: {
        pipeline: {
          NodesEvaluated: 1,
          NodesFiltered: 1,
          NodesAvailable: { dc1: 1 },
          ConstraintFiltered: { '${attr.cpu.arch} = arm64': 1 },
        },
      },
    });
    const blocked = await call(`/v1/evaluation/${evaluation.json.BlockedEval}`);
    expect(blocked.json).toMatchObject({
      Status: 'blocked',
      StatusDescription: 'created to place remaining allocations',
    });
    expect((await call('/v1/job/svc-arm')).json.Status).toBe('pending');
    expect((await call('/v1/job/svc-arm/summary')).json.Summary.pipeline?.Queued).toBe(1);
    expect((await call('/v1/job/svc-arm/allocations')).json).toEqual([]);
    expect((await call('/v1/job/svc-arm?purge=true', { method: 'DELETE' })).status).toBe(200);
  });
});

describe('Nomad double: the docker driver configuration', () => {
  it('refuses privileged tasks and host volumes when the agent does not allow them', () => {
    const docker = dockerClient({ host: process.env.DOCKER_HOST });
    const strict: DriverOptions = {
      docker,
      engineSocket: '/run/engine.sock',
      allowPrivileged: false,
      volumesEnabled: false,
      pullLatest: false,
      totalCompute: 1000,
      cores: 2,
    };
    const task = {
      allocID: 'a1',
      taskName: 'stage',
      sharedDir: '/data/a1/alloc',
      taskDir: '/data/a1/stage',
      allocDir: '/data/a1',
      env: { A: 'b' },
      user: '',
      cpu: 100,
      memoryMB: 64,
      labels: {},
    };
    const attempt =
      (config: Record<string, unknown>, options = strict) =>
      () =>
        containerOptions(options, { image: IMAGE, cpu_cfs_period: 100000, ...config }, task, 'sha256:1');
    const prefix = `Failed to create container configuration for image "${IMAGE}" ("sha256:1"): `;
    expect(attempt({ privileged: true })).toThrow(
      `${prefix}Docker privileged mode is disabled on this Nomad agent`,
    );
    expect(attempt({ volumes: ['/var/run/docker.sock:/var/run/docker.sock'] })).toThrow(
      `${prefix}volumes are not enabled; cannot mount host path: "/var/run/docker.sock:/var/run/docker.sock"`,
    );
    const options = attempt(
      { volumes: ['/var/run/docker.sock:/var/run/docker.sock', 'cache:/cache:ro'] },
      { ...strict, volumesEnabled: true },
    )();
    expect(options.HostConfig?.Binds).toEqual([
      '/data/a1/alloc:/alloc',
      '/data/a1/stage/local:/local',
      '/data/a1/stage/secrets:/secrets',
      '/data/a1/alloc/logs:/alloc/logs:ro',
      '/run/engine.sock:/var/run/docker.sock',
      '/data/a1/stage/cache:/cache:ro',
    ]);
    expect(options).toMatchObject({
      name: 'stage-a1',
      Env: ['A=b'],
      HostConfig: { CpuShares: 100, Memory: 64 * 1024 * 1024 },
    });
    docker.close();
  });
});

describe('Nomad double: tasks on Docker', () => {
  it('fails a batch job whose task exits 3, with the exit code and separate stdout/stderr logs', async () => {
    const registered = await call('/v1/jobs', {
      method: 'PUT',
      body: batchJob('svc-fail', 'echo out; echo err >&2; exit 3'),
    });
    expect(registered).toMatchObject({
      status: 200,
      json: { EvalCreateIndex: registered.index, Warnings: '' },
    });
    const alloc = await waitAlloc('svc-fail', (a) => a.ClientStatus === 'failed');
    expect(alloc).toMatchObject({
      Name: 'svc-fail.pipeline[0]',
      DesiredStatus: 'run',
      ClientDescription: 'Failed tasks',
    });
    const stage = stageOf(alloc);
    expect(stage).toMatchObject({ State: 'dead', Failed: true });
    const types = stage.Events.map((e) => e.Type);
    expect(types).toEqual(['Received', 'Task Setup', 'Started', 'Terminated', 'Not Restarting']);
    expect(stage.Events[3]).toMatchObject({ ExitCode: 3, Details: { exit_code: '3' } });
    const logs = `/v1/client/fs/logs/${alloc.ID}?task=stage`;
    expect(await call(`${logs}&type=stdout&plain=true`)).toMatchObject({ status: 200, text: 'out\n' });
    expect(await call(`${logs}&type=stderr&plain=true`)).toMatchObject({ status: 200, text: 'err\n' });
    const framed = await call(`${logs}&type=stderr`);
    expect(JSON.parse(framed.text)).toEqual({
      Offset: 4,
      Data: Buffer.from('err\n').toString('base64'),
      File: 'alloc/logs/stage.stderr.0',
    });
    expect(await call(`${logs}&type=stdin`)).toMatchObject({
      status: 400,
      text: 'must provide log type (stdout/stderr)',
    });
    expect(await call(`/v1/client/fs/logs/${alloc.ID}?task=other&type=stdout`)).toMatchObject({
      status: 400,
      text: 'unknown task name "other"',
    });
    // follow=true does not end when the task is dead: data, then heartbeats, until the client leaves.
    const abort = new AbortController();
    const res = await fetch(`${nomad.url}${logs}&type=stdout&follow=true`, {
      headers: { 'X-Nomad-Token': TOKEN },
      signal: abort.signal,
    });
    let seen = '';
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    while (!seen.includes('{}')) seen += Buffer.from((await reader.read()).value ?? []).toString();
    abort.abort();
    expect(seen.startsWith('{"Offset":4,"Data":"b3V0Cg=="')).toBe(true);
    expect((await call('/v1/job/svc-fail')).json.Status).toBe('dead');
  });

  it('completes a job, binding /var/run/docker.sock to the engine and setting NOMAD_* variables', async () => {
    // ${…} in the task config is Nomad's interpolation ($${ escapes it); $NAME is left to the shell.
    const script = 'test -S /var/run/docker.sock && echo "$NOMAD_JOB_NAME $${NOMAD_TASK_NAME} ${NOMAD_DC}"';
    const task = {
      Config: {
        image: IMAGE,
        entrypoint: ['sh', '-c', script],
        volumes: ['/var/run/docker.sock:/var/run/docker.sock'],
      },
    };
    const registered = await call('/v1/jobs', { method: 'PUT', body: batchJob('svc-ok', script, { task }) });
    const before = await call('/v1/job/svc-ok/allocations');
    expect(before.index).toBeGreaterThanOrEqual(1);
    const alloc = await waitAlloc('svc-ok', (a) => a.ClientStatus === 'complete');
    expect(alloc).toMatchObject({
      ClientDescription: 'All tasks have completed',
      TaskStates: { stage: { State: 'dead', Failed: false } },
    });
    expect(stageOf(alloc).StartedAt).not.toBe('0001-01-01T00:00:00Z');
    const logs = await call(`/v1/client/fs/logs/${alloc.ID}?task=stage&type=stdout&plain=true`);
    expect(logs.text).toBe('svc-ok stage dc1\n');
    const job = await call('/v1/job/svc-ok');
    expect(job.json).toMatchObject({
      Status: 'dead',
      Type: 'batch',
      Priority: 50,
      Region: 'global',
      Namespace: 'default',
    });
    expect(job.json.JobModifyIndex).toBe(registered.json.JobModifyIndex);
    const listed = await call('/v1/jobs?prefix=svc-ok&meta=true');
    expect(listed.json).toMatchObject([
      {
        ID: 'svc-ok',
        Status: 'dead',
        Meta: { 'io.svc.stage': '1' },
        JobSummary: { Summary: { pipeline: { Complete: 1 } } },
      },
    ]);
  });

  it('stops a running job with DELETE purge: the container is killed and removed, the job is gone', async () => {
    const registered = await call('/v1/jobs', { method: 'PUT', body: batchJob('svc-stop', 'sleep 60') });
    expect(registered.status).toBe(200);
    const running = await waitAlloc('svc-stop', (a) => a.ClientStatus === 'running');
    const container = nomad.allocations().find((a) => a.ID === running.ID)?.containers.stage?.[0] ?? '';
    const docker = dockerClient({ host: process.env.DOCKER_HOST });
    expect((await docker.inspectContainer(container)).State.Running).toBe(true);
    const stopped = await call('/v1/job/svc-stop?purge=true', { method: 'DELETE' });
    expect(stopped).toMatchObject({ status: 200, json: { EvalCreateIndex: stopped.index } });
    expect(stopped.json.EvalID).not.toBe('');
    expect(await call('/v1/job/svc-stop')).toMatchObject({ status: 404, text: 'job not found' });
    let alloc: AllocJson = (await call(`/v1/allocation/${running.ID}`)).json;
    while (alloc.ClientStatus === 'running')
      alloc = (await call(`/v1/allocation/${running.ID}?index=${alloc.ModifyIndex}`)).json;
    expect(alloc).toMatchObject({
      DesiredStatus: 'stop',
      ClientStatus: 'complete',
      TaskStates: { stage: { State: 'dead', Failed: false } },
    });
    const types = stageOf(alloc).Events.map((e) => e.Type);
    expect(types.slice(-3)).toEqual(['Killing', 'Terminated', 'Killed']);
    await expect(docker.inspectContainer(container)).rejects.toMatchObject({ statusCode: 404 });
    docker.close();
  });

  it('marks running allocations lost when the node is lost, then places a replacement', async () => {
    await call('/v1/jobs', { method: 'PUT', body: batchJob('svc-lost', 'sleep 60') });
    const running = await waitAlloc('svc-lost', (a) => a.ClientStatus === 'running');
    await nomad.loseNode();
    const lost = (await call(`/v1/allocation/${running.ID}`)).json;
    expect(lost).toMatchObject({
      ClientStatus: 'lost',
      DesiredStatus: 'stop',
      DesiredDescription: 'alloc is lost since its node is down',
    });
    let next = lost.NextAllocation;
    for (let index = lost.ModifyIndex; next === '';) {
      const again = await call(`/v1/allocation/${running.ID}?index=${index}&wait=5s`);
      next = again.json.NextAllocation;
      index = again.index;
    }
    expect((await call(`/v1/allocation/${next}`)).json).toMatchObject({
      PreviousAllocation: running.ID,
      DesiredStatus: 'run',
    });
    expect((await call('/v1/job/svc-lost?purge=true', { method: 'DELETE' })).status).toBe(200);
  });

  it('reports a failed pull, an invalid config and a driver failure as task events', async () => {
    const missing = { Config: { image: 'local/missing:1' } };
    const invalid = {
      Config: { image: IMAGE, entrypoint: ['sh', '-c', 'true'], colour: 'red', args: ['${HOME}'] },
    };
    await call('/v1/jobs', { method: 'PUT', body: batchJob('svc-pull', 'true', { task: missing }) });
    await call('/v1/jobs', { method: 'PUT', body: batchJob('svc-invalid', 'true', { task: invalid }) });
    await call('/v1/jobs', { method: 'PUT', body: batchJob('svc-crash', 'sleep 60') });
    const pulled = await waitAlloc('svc-pull', (a) => a.ClientStatus === 'failed');
    const pullEvents = stageOf(pulled).Events;
    expect(pullEvents.map((e) => e.Type)).toEqual([
      'Received',
      'Task Setup',
      'Driver',
      'Driver Failure',
      'Not Restarting',
    ]);
    expect(pullEvents[2]).toMatchObject({
      DriverMessage: 'Downloading image',
      Details: { image: 'local/missing:1' },
    });
    expect(pullEvents[3]?.DriverError).toMatch(
      /^Failed to pull `local\/missing:1`: Error response from daemon: /,
    );
    expect(await call(`/v1/client/fs/logs/${pulled.ID}?task=stage&type=stdout`)).toMatchObject({
      status: 404,
      text: 'task "stage" not started yet. No logs available',
    });
    const invalidAlloc = await waitAlloc('svc-invalid', (a) => a.ClientStatus === 'failed');
    expect(stageOf(invalidAlloc).Events.find((e) => e.Type === 'Failed Validation')?.ValidationError).toBe(
      '3 errors occurred:\n\t* failed to parse config: \n\t* Invalid label: No argument or block type is named "colour".' +
        '\n\t* Unknown variable: There is no variable named "HOME".\n\n',
    );
    const running = await waitAlloc('svc-crash', (a) => a.ClientStatus === 'running');
    await nomad.failAllocation(running.ID, 'docker daemon went away');
    const crashed = await waitAlloc('svc-crash', (a) => a.ClientStatus === 'failed');
    const crashEvents = stageOf(crashed).Events.slice(-2);
    expect(crashEvents).toMatchObject([
      { Type: 'Driver Failure', DriverError: 'docker daemon went away' },
      { Type: 'Not Restarting', RestartReason: 'Policy allows no restarts', FailsTask: true },
    ]);
    expect((await call('/v1/job/svc-crash/allocations')).json).toHaveLength(1); // no reschedule: Attempts 0
  });

  it('restarts per the restart policy, then reschedules once after 5 s (the batch default)', async () => {
    const job = batchJob('svc-retry', 'echo try; exit 1');
    const group = job.Job.TaskGroups[0] as Json;
    group.RestartPolicy = { Attempts: 1, Delay: 0, Interval: 5_000_000_000, Mode: 'fail' };
    delete group.ReschedulePolicy;
    await call('/v1/jobs', { method: 'PUT', body: job });
    const first = await waitAlloc('svc-retry', (a) => a.ClientStatus === 'failed');
    const events = stageOf(first).Events;
    expect(events.map((e) => e.Type)).toEqual([
      ...['Received', 'Task Setup', 'Started', 'Terminated', 'Restarting', 'Started', 'Terminated'],
      'Not Restarting',
    ]);
    expect(events.at(-1)?.RestartReason).toBe(
      'Exceeded allowed attempts 1 in interval 5s and mode is "fail"',
    );
    expect(stageOf(first)).toMatchObject({ Restarts: 1 });
    const deadline = Date.now() + 20_000;
    let allocs: AllocJson[] = [];
    for (let index = 0; allocs.length < 2 || allocs[1]?.ClientStatus !== 'failed';) {
      if (Date.now() > deadline) throw new Error('no rescheduled allocation');
      const res = await call(`/v1/job/svc-retry/allocations?index=${index}&wait=5s`);
      [allocs, index] = [res.json, res.index];
    }
    const [previous, next] = allocs as [AllocJson, AllocJson];
    expect(previous).toMatchObject({ DesiredStatus: 'stop', NextAllocation: next.ID });
    expect((await call(`/v1/allocation/${previous.ID}`)).json).toMatchObject({
      DesiredDescription: 'alloc was rescheduled because it failed',
    });
    expect((await call(`/v1/allocation/${next.ID}`)).json).toMatchObject({
      PreviousAllocation: previous.ID,
      RescheduleTracker: { Events: [{ PrevAllocID: previous.ID, Delay: 5_000_000_000 }] },
    });
    const logs = await call(`/v1/client/fs/logs/${previous.ID}?task=stage&type=stdout&plain=true`);
    expect(logs.text).toBe('try\ntry\n');
    let status = (await call('/v1/job/svc-retry')).json;
    while (status.Status !== 'dead')
      status = (await call(`/v1/job/svc-retry?index=${status.ModifyIndex}`)).json;
    expect((await call('/v1/job/svc-retry/allocations')).json).toHaveLength(2); // the one reschedule is used up
  });

  it('close() removes every container and alloc dir it created', async () => {
    const containers = nomad.allocations().flatMap((alloc) => Object.values(alloc.containers).flat());
    expect(containers.length).toBeGreaterThan(0);
    await nomad.close();
    const docker = dockerClient({ host: process.env.DOCKER_HOST });
    for (const id of containers)
      await expect(docker.inspectContainer(id)).rejects.toMatchObject({ statusCode: 404 });
    docker.close();
    expect(await readdir(root)).toEqual([]);
  });
});
