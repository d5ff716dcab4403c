import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ExecSpec, ExecStep } from '../../core/engine.js';
import { StageExecutor, type ExecuteOptions } from '../../runner/executor.js';
import { MemoryReporter } from '../../runner/memory-reporter.js';
import type { StageResult, StepResult } from '../../runner/reporter.js';
import { busyboxShell, execSpec, execStep } from '../../runner/testing/spec.js';
import { Demuxer } from './demux.js';
import { DockerEngine } from './engine.js';
import { LABEL_OWNER } from './resources.js';
import { countMatching, dockerForTests } from './testing.case.js';

const { docker, skip } = await dockerForTests(['local/busybox']);
/** Every resource these tests create carries this owner: after each test, none may be left. */
const owner = `svc-test-${randomUUID().slice(0, 8)}`;
const ownerFilter = { label: [`${LABEL_OWNER}=${owner}`] };

const sh = busyboxShell;

interface Outcome {
  result: StageResult;
  reporter: MemoryReporter;
  step: (name: string) => StepResult;
}

async function execute(
  spec: ExecSpec,
  options: ExecuteOptions = {},
  engine?: DockerEngine,
): Promise<Outcome> {
  if (!docker) throw new Error('no Docker engine');
  const reporter = new MemoryReporter();
  const executor = new StageExecutor({ engine: engine ?? new DockerEngine({ docker, owner }) });
  const result = await executor.execute(spec, { reporter, ...options });
  const step = (name: string): StepResult => {
    const found = result.steps.find((s) => s.name === name);
    if (!found) throw new Error(`no step ${name}`);
    return found;
  };
  return { result, reporter, step };
}

describe.skipIf(skip)('DockerEngine (real Docker engine)', () => {
  let hostDir = '';

  beforeAll(async () => {
    hostDir = await mkdtemp(join(tmpdir(), 'svc-docker-test-'));
  });

  afterAll(async () => {
    await rm(hostDir, { recursive: true, force: true });
  });

  afterEach(async () => {
    if (!docker) return;
    expect(await countMatching(docker, ownerFilter)).toEqual({ containers: 0, networks: 0, volumes: 0 });
  });

  it('runs a stage: a service reachable by name, parallel steps, shared workspace, secrets, PLUGIN_ settings', async () => {
    const spec = execSpec([
      sh(
        'web',
        'mkdir -p /www && echo hello-from-web > /www/index.html && echo serving && exec httpd -f -p 80 -h /www',
        { detach: true },
      ),
      sh('prepare', 'echo shared-data > shared.txt && echo prepared'),
      sh(
        'fetch',
        // The service starts in the background: try until it answers.
        'for i in $(seq 1 50); do wget -q -O - http://web/ && exit 0; sleep 0.1; done; exit 1',
        { dependsOn: ['prepare', 'web'] },
      ),
      sh('plugin', 'sleep 1; echo "message=$PLUGIN_MESSAGE"; cat shared.txt', {
        dependsOn: ['prepare'],
        envs: { PLUGIN_MESSAGE: 'hello plugin' },
      }),
      sh('secret', 'echo "token is $TOKEN"; env | grep -c TOKEN', {
        dependsOn: ['prepare'],
        secrets: [{ name: 'token', env: 'TOKEN', data: 'tok-9f8e7d6c', mask: true }],
      }),
      sh('flaky', 'echo flaky; exit 3', { dependsOn: ['fetch', 'plugin'], errPolicy: 'ignore' }),
      sh('on-failure', 'echo should not run', { dependsOn: ['flaky'], runPolicy: 'on-failure' }),
    ]);
    const { result, reporter, step } = await execute(spec);

    expect(result.status, `${result.error}: ${JSON.stringify(result.steps)}`).toBe('success');
    expect(reporter.lines('prepare')).toEqual(['prepared']);
    expect(reporter.lines('fetch')).toEqual(['hello-from-web']);
    expect(reporter.lines('plugin')).toEqual(['message=hello plugin', 'shared-data']);
    expect(reporter.lines('secret')).toEqual(['token is ********', '1']);
    expect(reporter.allLines().join('\n')).not.toContain('tok-9f8e7d6c');
    expect(step('flaky')).toMatchObject({ status: 'failure', exitCode: 3, errIgnore: true });
    expect(step('on-failure').status).toBe('skipped');
    expect(step('web').status).toBe('success');
    expect(reporter.lines('web')).toContain('serving');
    // fetch and plugin both waited for prepare only, and ran at the same time.
    expect(step('fetch').started).toBeGreaterThanOrEqual(step('prepare').stopped);
    expect(step('plugin').started).toBeGreaterThanOrEqual(step('prepare').stopped);
    expect(step('fetch').started).toBeLessThan(step('plugin').stopped);
    expect(step('plugin').started).toBeLessThan(step('fetch').stopped);
  });

  it('fails the stage on a failing step and runs the on-failure step', async () => {
    const { result, step, reporter } = await execute(
      execSpec([
        sh('test', 'echo testing; echo oops >&2; exit 2'),
        sh('deploy', 'echo deploying', { dependsOn: ['test'] }),
        sh('notify', 'echo notifying', { dependsOn: ['test'], runPolicy: 'on-failure' }),
      ]),
    );
    expect(result.status).toBe('failure');
    expect(step('test')).toMatchObject({ status: 'failure', exitCode: 2 });
    // stdout and stderr are separate pipes: their relative order is not kept.
    expect(reporter.lines('test').sort()).toEqual(['oops', 'testing']);
    expect(step('deploy').status).toBe('skipped');
    expect(step('notify').status).toBe('success');
    expect(reporter.lines('notify')).toEqual(['notifying']);
  });

  it('ends the stage early as a success on exit 78', async () => {
    const { result, step } = await execute(
      execSpec([
        sh('check', 'echo nothing to do; exit 78'),
        sh('build', 'echo build', { dependsOn: ['check'] }),
      ]),
    );
    expect(result).toMatchObject({ status: 'success', exitedEarlyBy: 'check' });
    expect(step('check')).toMatchObject({ status: 'success', exitCode: 78 });
    expect(step('build').status).toBe('skipped');
  });

  it('kills a running step when the stage is cancelled midway, and removes everything', async () => {
    const control = new AbortController();
    const reporter = new MemoryReporter();
    const cancelOnFirstLine = {
      ...reporter,
      stepStarted: reporter.stepStarted.bind(reporter),
      stepFinished: reporter.stepFinished.bind(reporter),
      stageFinished: reporter.stageFinished.bind(reporter),
      stepLine: (step: ExecStep, line: { pos: number; out: string; time: number }) => {
        reporter.stepLine(step, line);
        if (line.out === 'started') control.abort();
      },
    };
    const started = Date.now();
    const { result, step } = await execute(
      execSpec([
        sh('db', 'echo up; exec sleep 300', { detach: true }),
        sh('long', 'echo started; sleep 300; echo never'),
        sh('after', 'echo after', { dependsOn: ['long'], runPolicy: 'always' }),
      ]),
      { signal: control.signal, reporter: cancelOnFirstLine },
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBe('killed');
    expect(step('long')).toMatchObject({ status: 'killed', exitCode: 137 });
    expect(step('after').status).toBe('skipped');
    expect(reporter.lines('long')).toEqual(['started']);
  });

  it('kills a step that exceeds its timeout', async () => {
    const { result, step } = await execute(execSpec([sh('slow', 'sleep 300', { timeout: 500 })]));
    expect(result.status).toBe('failure');
    expect(step('slow')).toMatchObject({
      status: 'failure',
      error: 'step timed out after 500ms (its timeout)',
    });
  });

  it('mounts host volumes, disk and memory temp volumes, and the workspace in every step', async () => {
    const spec = execSpec(
      [
        sh(
          'write',
          [
            'echo from-step > /host/out.txt',
            'echo cached > /cache/data',
            'echo in-memory > /scratch/data',
            'grep " /scratch " /proc/mounts',
            'echo ws > /drone/src/ws.txt',
          ].join(' && '),
          {
            mounts: [
              { name: 'host', path: '/host' },
              { name: 'cache', path: '/cache' },
              { name: 'scratch', path: '/scratch' },
            ],
          },
        ),
        sh('read', 'cat /cache/data; cat ws.txt; ls /scratch 2>/dev/null | wc -l', {
          dependsOn: ['write'],
          mounts: [
            { name: 'cache', path: '/cache' },
            { name: 'scratch', path: '/scratch' },
          ],
        }),
      ],
      {
        volumes: [
          { kind: 'host', name: 'host', path: hostDir },
          { kind: 'temp', name: 'cache', medium: 'disk', sizeLimit: 0 },
          { kind: 'temp', name: 'scratch', medium: 'memory', sizeLimit: 8 * 1024 * 1024 },
        ],
      },
    );
    const { result, reporter } = await execute(spec);
    expect(result.status).toBe('success');
    expect(await readFile(join(hostDir, 'out.txt'), 'utf8')).toBe('from-step\n');
    const [tmpfs] = reporter.lines('write');
    expect(tmpfs).toMatch(/^tmpfs \/scratch tmpfs .*size=8192k/);
    // The disk volume and the workspace outlive a step; a memory volume is fresh in each.
    expect(reporter.lines('read')).toEqual(['cached', 'ws', '0']);
  });

  it('mounts a read-only host volume read-only', async () => {
    await writeFile(join(hostDir, 'config.txt'), 'from-host\n');
    const { result, reporter } = await execute(
      execSpec(
        [
          sh(
            'ro',
            'cat /host/config.txt; if touch /host/new.txt 2>/dev/null; then echo writable; else echo refused; fi',
            {
              mounts: [{ name: 'host', path: '/host', readOnly: true }],
            },
          ),
        ],
        { volumes: [{ kind: 'host', name: 'host', path: hostDir }] },
      ),
    );
    expect(result.status).toBe('success');
    expect(reporter.lines('ro')).toEqual(['from-host', 'refused']);
  });

  it('applies the container settings of a step', async () => {
    const { result, reporter } = await execute(
      execSpec([
        sh(
          'settings',
          'pwd; id -u; grep registry.test /etc/hosts; echo "$PLAIN"; cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max',
          {
            workingDir: '/drone/src/sub/dir',
            user: '65534',
            extraHosts: ['registry.test:10.1.2.3'],
            envs: { PLAIN: 'plain value' },
            memLimit: 64 * 1024 * 1024,
          },
        ),
      ]),
    );
    expect(result.status).toBe('success');
    expect(reporter.lines('settings')).toEqual([
      '/drone/src/sub/dir',
      '65534',
      '10.1.2.3\tregistry.test',
      'plain value',
      String(64 * 1024 * 1024),
    ]);
  });

  it('reports a step the kernel killed for exceeding its memory limit', async () => {
    const { result, step } = await execute(
      execSpec([
        // The hog is the container's only process (exec): the kernel has no other to kill instead,
        // which a pipeline of several processes left to chance.
        sh('hog', `exec awk 'BEGIN { s = "a"; while (1) s = s s }'`, {
          memLimit: 16 * 1024 * 1024,
          memSwapLimit: 16 * 1024 * 1024,
        }),
      ]),
    );
    expect(step('hog')).toMatchObject({ status: 'failure', exitCode: 137, oomKilled: true });
    expect(result.status).toBe('failure');
  });

  it('splits output into lines across stdout and stderr, keeping a last line without newline', async () => {
    const { reporter } = await execute(
      execSpec([sh('print', 'seq 1 2000; printf "partial-a\\npartial-b"; printf "err-line\\n" >&2')]),
    );
    const lines = reporter.lines('print');
    // Lines of one stream keep their order; stderr's line may fall anywhere between them.
    const stdout = lines.filter((l) => l !== 'err-line');
    expect(stdout).toEqual([
      ...Array.from({ length: 2000 }, (_, i) => String(i + 1)),
      'partial-a',
      'partial-b',
    ]);
    expect(lines.filter((l) => l === 'err-line')).toHaveLength(1);
    expect(reporter.logLines('print').map((l) => l.pos)).toEqual(lines.map((_, i) => i));
  });

  it('holds a step back while its output has no room, losing nothing, and lets it go on after', async () => {
    const LONG = 'x'.repeat(100);
    if (!docker) throw new Error('no Docker engine');
    const engine = new DockerEngine({ docker, owner });
    const spec = execSpec([sh('paced', `yes ${LONG} | head -n 100000; echo done`)]);
    const step = spec.steps[0]!;
    const lines: string[] = [];
    let held: { lines: number; running: boolean } | undefined;
    let release: (() => void) | undefined;
    const waited = new Promise<void>((resolve) => (release = resolve));
    const sink = Object.assign((line: string) => void lines.push(line), {
      // Room for the first chunk only, until the test has looked at the container.
      room: () => (held === undefined ? waited : undefined),
    });
    await engine.setup(spec);
    try {
      const running = engine.run(spec, step, sink);
      while (lines.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      // Reading stopped after the first chunk: a second later the step is still blocked on its pipe.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const [container] = await docker.listContainers({ label: [`io.svc.run=${spec.runId}`] });
      const state = container === undefined ? undefined : await docker.inspectContainer(container.Id);
      held = { lines: lines.length, running: state?.State.Running === true };
      release?.();
      expect(await running).toEqual({ exitCode: 0, oomKilled: false });
    } finally {
      await engine.destroy(spec);
    }
    // 10 MB: more than Docker and the sockets between hold, so the step could not have finished.
    expect(held.running).toBe(true);
    expect(held.lines).toBeLessThan(100_000);
    expect(lines).toEqual([...Array.from({ length: 100_000 }, () => LONG), 'done']);
  });

  it("streams a detached step's output until destroy, and leaves it in Docker's log too", async () => {
    if (!docker) return;
    const engine = new DockerEngine({ docker, owner });
    const spec = execSpec([
      sh('server', 'echo early; sleep 0.3; echo later >&2; exec sleep 300', { detach: true }),
    ]);
    await engine.setup(spec);
    const lines: string[] = [];
    try {
      expect(await engine.run(spec, spec.steps[0]!, (line) => lines.push(line))).toEqual({
        exitCode: 0,
        oomKilled: false,
      });
      await vi.waitFor(() => expect(lines).toEqual(['early', 'later']), { timeout: 5_000 });
      // Output is read through attach; the container's log driver still gets every line.
      const [container] = await docker.listContainers({ label: [`io.svc.run=${spec.runId}`] });
      const logged: string[] = [];
      const demuxer = new Demuxer((_, payload) => logged.push(payload.toString()));
      for await (const chunk of await docker.containerLogs(container!.Id)) demuxer.write(chunk as Buffer);
      expect(logged.join('')).toBe('early\nlater\n');
    } finally {
      await engine.destroy(spec);
    }
  });

  it('applies pull policies: never refuses a missing image, default keeps a present image when the pull fails', async () => {
    if (!docker) return;
    const { result, step, reporter } = await execute(
      execSpec([
        sh('missing', 'true', { image: 'local/not-built-anywhere:1.0', pull: 'never' }),
        sh('own', 'true', { image: 'svc/placeholder:not-built', pull: 'never' }),
        sh('default', 'echo ran', { image: 'local/busybox:latest', pull: 'default' }),
        sh('always', 'echo ran', { image: 'local/busybox:latest', pull: 'always' }),
      ]),
      {},
      new DockerEngine({ docker, owner, streamPull: true }),
    );
    // No registry is reachable here: the pull of `latest` fails, and the image present is used.
    const defaultLines = reporter.lines('default');
    expect(defaultLines[0]).toBe('svc: pulling local/busybox:latest');
    expect(defaultLines[1]).toMatch(
      /^svc: pulling image "local\/busybox:latest" failed: .*; using the image already present$/,
    );
    expect(defaultLines.at(-1)).toBe('ran');
    expect(step('missing')).toMatchObject({
      status: 'error',
      error:
        'image "local/not-built-anywhere:1.0" is not present on the Docker host and the pull policy "never" forbids pulling it',
    });
    // svc's own images are published nowhere: the error says how to make them.
    expect(step('own').error).toMatch(
      /svc's own images are published to no registry: build them .*npm run images/,
    );
    expect(step('default').status).toBe('success');
    expect(step('always').status).toBe('error');
    expect(step('always').error).toMatch(/^pulling image "local\/busybox:latest" failed: /);
    expect(result.status).toBe('error');
  });

  it('removes what a run created by id and name without listing, and lists by label when a create failed', async () => {
    if (!docker) return;
    // The real client, with its list calls counted.
    const lists: string[] = [];
    const counted = new Proxy(docker, {
      get(target, key, receiver) {
        const value: unknown = Reflect.get(target, key, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]): unknown => {
          if (String(key).startsWith('list')) lists.push(String(key));
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const engine = new DockerEngine({ docker: counted, owner });
    // A service (so a network of its own), the workspace and a disk volume, two steps after it.
    const spec = execSpec(
      [
        sh('service', 'exec sleep 60', { detach: true }),
        sh('first', 'echo one > /cache/one', { mounts: [{ name: 'cache', path: '/cache' }] }),
        sh('second', 'cat /cache/one', { dependsOn: ['first'], mounts: [{ name: 'cache', path: '/cache' }] }),
      ],
      { volumes: [{ kind: 'temp', name: 'cache', medium: 'disk', sizeLimit: 0 }] },
    );
    const { result, reporter } = await execute(spec, {}, engine);
    expect(result.status).toBe('success');
    expect(reporter.lines('second')).toEqual(['one']);
    expect(lists).toEqual([]);
    expect(await countMatching(docker, ownerFilter)).toEqual({ containers: 0, networks: 0, volumes: 0 });

    // Docker refuses the second step's container (a memory limit under its 6 MB minimum): the
    // run's destroy no longer knows for sure what exists, so it lists by label (afterEach checks).
    const refused = execSpec([
      sh('service', 'exec sleep 60', { detach: true }),
      sh('tiny', 'true', { memLimit: 1024 }),
    ]);
    const failed = await execute(refused, {}, engine);
    expect(failed.result.status).not.toBe('success');
    expect(lists).toEqual(expect.arrayContaining(['listContainers', 'listNetworks', 'listVolumes']));
  });

  it('removes the leftovers of a runner that died midway, and only runs that are not alive', async () => {
    if (!docker) return;
    // A runner process starts a run and dies before destroy: its containers keep running.
    const crashed = new DockerEngine({ docker, owner });
    const lost = execSpec([sh('server', 'exec sleep 300', { detach: true })]);
    await crashed.setup(lost);
    await crashed.run(lost, lost.steps[0] ?? execStep('none'), () => undefined);
    // Another run of the same owner is still going on.
    // A detached step (never started here) gives the run a network, as services do.
    const alive = execSpec([execStep('db', { detach: true })]);
    await crashed.setup(alive);
    // A different runner's resources are not ours to touch.
    const stranger = new DockerEngine({ docker, owner: `${owner}-other` });
    const foreign = execSpec([execStep('db', { detach: true })]);
    await stranger.setup(foreign);

    expect(await countMatching(docker, ownerFilter)).toMatchObject({
      containers: 1,
      networks: 2,
      volumes: 2,
    });
    const restarted = new DockerEngine({ docker, owner });
    const removed = await restarted.removeLeftovers((runId) => runId === alive.runId);
    expect(removed).toEqual({ runs: [lost.runId], containers: 1, networks: 1, volumes: 1 });
    expect(await countMatching(docker, { label: [`io.svc.run=${lost.runId}`] })).toEqual({
      containers: 0,
      networks: 0,
      volumes: 0,
    });

    // At start, nothing of this owner is alive: everything left goes.
    expect((await new DockerEngine({ docker, owner }).removeLeftovers()).runs).toEqual([alive.runId]);
    await stranger.destroy(foreign);
  });

  it('removes what a runner process killed midway left behind, once a runner starts again', async () => {
    if (!docker) return;
    const runId = `crash-${randomUUID().slice(0, 8)}`;
    const fixture = join(dirname(fileURLToPath(import.meta.url)), 'crash-fixture.case.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, owner, runId], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('running') && resolve());
      child.once('exit', (code) => reject(new Error(`the crash fixture exited early (${code})`)));
    });
    child.kill('SIGKILL');
    await exited;

    const runFilter = { label: [`io.svc.run=${runId}`] };
    expect(await countMatching(docker, runFilter)).toEqual({ containers: 2, networks: 1, volumes: 1 });
    const removed = await new DockerEngine({ docker, owner }).removeLeftovers();
    expect(removed).toEqual({ runs: [runId], containers: 2, networks: 1, volumes: 1 });
    expect(await countMatching(docker, runFilter)).toEqual({ containers: 0, networks: 0, volumes: 0 });
  });
});
