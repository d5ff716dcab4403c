import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isDone } from '../core/status.js';
import type { Store } from '../core/store.js';
import { countMatching, dockerForTests } from '../engines/docker/testing.case.js';
import { newSecret } from '../store/cases/fixtures.case.js';
import { testDialects } from '../../test/support/databases.js';
import {
  freshStore,
  queueBuild,
  SECRET,
  startServer,
  type TestServer,
} from '../../test/rpc/support/harness.js';
import { eventually } from '../../test/rpc/support/runner.js';
import type { CommandIO } from './io.js';
import { runnerCommand } from './runner.js';

/** Captures what a command prints. */
function captured(): CommandIO & { out: string; err: string } {
  const io = {
    out: '',
    err: '',
    cwd: process.cwd(),
    stdout: (text: string) => void (io.out += text),
    stderr: (text: string) => void (io.err += text),
  };
  return io;
}

describe('svc runner: arguments and settings', () => {
  it('asks for a kind, and prints its usage with --help', async () => {
    const none = captured();
    expect(await runnerCommand([], {}, none)).toBe(2);
    expect(none.err).toContain('which runner?');
    const help = captured();
    expect(await runnerCommand(['--help'], {}, help)).toBe(0);
    expect(help.out).toContain('Usage: svc runner <kind>');
  });

  it('checks each kind’s own settings, and refuses unknown kinds', async () => {
    const vm = captured();
    expect(
      await runnerCommand(['vm'], { SVC_RPC_PROTO: 'http', SVC_RPC_HOST: 'x', SVC_RPC_SECRET: 's' }, vm),
    ).toBe(2);
    for (const setting of ['SVC_VMHOST_ENDPOINT', 'SVC_VMHOST_TOKEN', 'SVC_VM_IMAGE'])
      expect(vm.err).toMatch(new RegExp(`^${setting}: `, 'm'));
    const ssh = captured();
    expect(await runnerCommand(['ssh'], { SVC_RPC_PROTO: 'ftp' }, ssh)).toBe(2);
    expect(ssh.err).toMatch(/^SVC_RPC_PROTO: /m);
    const io = captured();
    expect(await runnerCommand(['podman'], {}, io)).toBe(2);
    expect(io.err).toContain('unknown kind "podman"');
  });

  it('takes --stage ID for the docker runner only, and a Nomad variable that cannot work is named', async () => {
    const rpc = { SVC_RPC_PROTO: 'http', SVC_RPC_HOST: 'x', SVC_RPC_SECRET: 's' };
    const ssh = captured();
    expect(await runnerCommand(['ssh', '--stage', '3'], rpc, ssh)).toBe(2);
    expect(ssh.err).toBe('svc runner: --stage is an option of svc runner docker only\n');
    for (const args of [['--stage', 'x'], ['--stage'], ['--stage=0']]) {
      const io = captured();
      expect(await runnerCommand(['docker', ...args], rpc, io)).toBe(2);
      expect(io.err).toBe('svc runner: --stage needs a stage id (a positive integer)\n');
    }
    const nomad = captured();
    expect(await runnerCommand(['nomad'], { ...rpc, NOMAD_CACERT: '/nonexistent/ca.pem' }, nomad)).toBe(2);
    expect(nomad.err).toMatch(/^NOMAD_CACERT: cannot read \/nonexistent\/ca\.pem/);
    const unreachable = captured();
    expect(await runnerCommand(['nomad'], { ...rpc, NOMAD_ADDR: 'http://127.0.0.1:9' }, unreachable)).toBe(1);
    expect(unreachable.err).toMatch(
      /^svc runner nomad: cannot use Nomad at http:\/\/127\.0\.0\.1:9 \(NOMAD_ADDR\): cannot reach Nomad/,
    );
  });

  it('reports every settings problem and exits 2', async () => {
    const io = captured();
    const code = await runnerCommand(['docker'], { SVC_RPC_PROTO: 'ftp', SVC_RUNNER_CAPACITY: '0' }, io);
    expect(code).toBe(2);
    for (const setting of ['SVC_RPC_HOST', 'SVC_RPC_SECRET', 'SVC_RPC_PROTO', 'SVC_RUNNER_CAPACITY']) {
      expect(io.err).toMatch(new RegExp(`^${setting}: `, 'm'));
    }
  });
});

const docker = await dockerForTests(['local/busybox']);

const PIPELINE = `kind: pipeline
type: docker
name: build
clone:
  disable: true
steps:
- name: greet
  image: local/busybox
  pull: if-not-exists
  environment:
    TOKEN: { from_secret: token }
  commands:
  - echo "hello from $DRONE_STAGE_MACHINE"
  - echo "the token is $TOKEN"
`;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof address === 'object' && address !== null ? address.port : 0;
}

describe.skipIf(docker.skip)('svc runner docker on the real Docker engine', () => {
  let store: Store;
  let dispose: () => Promise<void>;
  let server: TestServer;

  beforeAll(async () => {
    const sqlite = testDialects()[0];
    if (sqlite === undefined) throw new Error('no SQLite');
    ({ store, dispose } = await freshStore(sqlite));
    server = await startServer(store);
  });

  afterAll(async () => {
    await server.close();
    await dispose();
  });

  it('takes a stage from the server, runs it, stores its log, and stops on SIGTERM', async () => {
    const name = `runner-it-${process.pid}`;
    const { repo, build, stages } = await queueBuild(store, [{ name: 'build' }], {
      build: { config: PIPELINE },
    });
    await store.secrets.create(
      newSecret({ kind: 'repo', repoId: repo.id }, { name: 'token', data: 's3cr3t-value' }),
    );
    const port = await freePort();
    const io = captured();
    const exit = runnerCommand(
      ['docker'],
      {
        DOCKER_HOST: process.env.DOCKER_HOST,
        SVC_RPC_HOST: `127.0.0.1:${server.port}`,
        SVC_RPC_PROTO: 'http',
        SVC_RPC_SECRET: SECRET,
        SVC_RUNNER_NAME: name,
        SVC_RUNNER_CAPACITY: '1',
        SVC_HTTP_BIND: `127.0.0.1:${port}`,
        SVC_UI_USERNAME: 'admin',
        SVC_UI_PASSWORD: 'dashboard-pa55',
      },
      io,
    );
    const done = await eventually(
      async () => {
        const found = await store.builds.find(build.id);
        return found !== undefined && isDone(found.status) ? found : undefined;
      },
      60_000,
      'the build to finish',
    );
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.text()).toMatch(/^ok\n/);
    // The dashboard lists the stage as finished once the runner is done reporting it.
    const finishedRow = `<td>${repo.slug}</td><td>#${build.number}</td><td>build</td><td class="success">success</td>`;
    await eventually(
      async () => {
        const page = await fetch(`http://127.0.0.1:${port}/`, {
          headers: { authorization: `Basic ${Buffer.from('admin:dashboard-pa55').toString('base64')}` },
        });
        return (await page.text()).includes(finishedRow) ? true : undefined;
      },
      10_000,
      'the dashboard to list the finished stage',
    );

    // Ours must be the only SIGTERM listener: emitting the event must not stop anything else.
    expect(process.listenerCount('SIGTERM')).toBe(1);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await exit).toBe(0);
    expect(io.err).toBe('');

    expect(done.status).toBe('success');
    const stage = await store.stages.find(stages[0]!.id);
    expect(stage).toMatchObject({ status: 'success', machine: name });
    const [step] = await store.steps.list(stage!.id);
    expect(step).toMatchObject({ name: 'greet', status: 'success', exitCode: 0 });
    const log = (await store.logs.find(step!.id))?.map((line) => line.out) ?? [];
    expect(log).toContain(`hello from ${name}`);
    expect(log).toContain('the token is ********');
    expect(log.join('\n')).not.toContain('s3cr3t-value');
    expect(await countMatching(docker.docker!, { label: [`io.svc.owner=${name}`] })).toEqual({
      containers: 0,
      networks: 0,
      volumes: 0,
    });
  });
});
