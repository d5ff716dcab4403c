/**
 * Several servers on one database (issue 15, docs/ha.md): two `svc server` processes on the same
 * PostgreSQL or MariaDB database behind Debian's haproxy, and a Docker runner.
 *  - Live logs cross servers: a viewer on server A sees, while the step runs, the lines that the
 *    runner sends to server B (PostgreSQL: LISTEN/NOTIFY; MariaDB: A reads the stored batches).
 *  - Build events cross servers: A's event stream hears of the build running, which only B was told.
 *  - Cancellation crosses servers: a build cancelled on A stops the runner that watches it on B.
 *  - Kill one: with the runner talking to the balancer, server A is SIGKILLed mid-build; the runner
 *    carries on through the balancer to B, the build completes, and its log has every line once.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { call, enable, loginAs, tokenOf } from '../api/client.js';
import type { GitHubDouble } from '../doubles/github/index.js';
import { freePort, serverEnv, startRunner, startServer, waitFor, type SvcProcess } from '../e2e/system.js';
import { datasourceSetting, testDialects, type TestDatabase } from '../support/databases.js';
import { startHaproxy, type Haproxy } from '../support/haproxy.js';
import { appDouble, workPipeline } from './pipelines.js';

const docker = await dockerForTests(['local/busybox']);
const REPO = 'octocat/app';

interface Step {
  number: number;
  name: string;
  status: string;
}
interface Build {
  number: number;
  status: string;
  stages?: { number: number; status: string; steps?: Step[] }[];
}

const pipeline = (command: string): string => workPipeline([command]);

for (const dialect of testDialects().filter((d) => d.name !== 'SQLite')) {
  describe.skipIf(dialect.skip || docker.skip)(`several servers on ${dialect.name}`, () => {
    let database: TestDatabase;
    let github: GitHubDouble;
    let balancer: Haproxy;
    const servers: Record<'a' | 'b', { port: number; process?: SvcProcess }> = {
      a: { port: 0 },
      b: { port: 0 },
    };
    const runners: SvcProcess[] = [];
    let token = '';
    let hookUrl = '';
    let env: (port: number) => Record<string, string>;
    const url = (port: number, path = ''): string => `http://127.0.0.1:${port}${path}`;

    const build = (port: number, number: number, done: (b: Build) => boolean): Promise<Build> =>
      waitFor(`build ${number}`, async () => {
        const answer = await call({ url: url(port) }, `/api/repos/${REPO}/builds/${number}`, { token });
        const found = answer.status === 200 ? (answer.json as Build) : undefined;
        return found !== undefined && done(found) ? found : undefined;
      });
    const step = (b: Build): Step | undefined => b.stages?.[0]?.steps?.find((s) => s.name === 'work');
    let pushed = 0;
    /** Pushes a commit whose pipeline runs `command`; the number of the build it makes. */
    const push = async (command: string, message: string): Promise<number> => {
      const files = { '.drone.yml': pipeline(command) };
      github.commit(REPO, 'main', files, message, 'octocat', randomBytes(20).toString('hex'));
      expect(await github.push(REPO, 'main', hookUrl)).toBe(200);
      return ++pushed;
    };

    beforeAll(async () => {
      database = await dialect.create();
      github = await appDouble();
      const [lb, a, b] = [await freePort(), await freePort(), await freePort()];
      servers.a.port = a;
      servers.b.port = b;
      const data = mkdtempSync(join(tmpdir(), 'svc-ha-'));
      env = (port) => ({
        ...serverEnv(port, data, github),
        // Both servers are one service at the balancer's address (links, webhooks, OAuth).
        SVC_SERVER_HOST: `127.0.0.1:${lb}`,
        SVC_DATABASE_DRIVER: database.datasource.driver,
        SVC_DATABASE_DATASOURCE: datasourceSetting(database.datasource),
      });
      servers.a.process = await startServer(env(a));
      servers.b.process = await startServer(env(b));
      balancer = await startHaproxy(lb, { a, b });
      const front = { url: url(lb) };
      const session = await loginAs(front, 'octocat');
      token = await tokenOf(front, session);
      await enable(front, session, REPO);
      hookUrl = github.hooks(REPO)[0]?.url ?? '';
    }, 120_000);

    afterAll(async () => {
      for (const runner of runners) await runner.kill();
      await balancer?.stop();
      for (const server of Object.values(servers)) await server.process?.stop();
      await github?.close();
      await database?.drop();
    });

    it('shows a viewer on A the lines the runner sends to B while the step runs, and cancels across servers', async () => {
      const runner = startRunner(servers.b.port, 'ha-on-b', [], { SVC_RUNNER_CAPACITY: '1' });
      runners.push(runner);
      // Build events on A: the runner's reports reach B only, so A hears of them from B.
      const events = new AbortController();
      let eventText = '';
      const eventStream = fetch(url(servers.a.port, '/api/stream'), {
        headers: { authorization: `Bearer ${token}` },
        signal: events.signal,
      })
        .then(async (answer) => {
          const decoder = new TextDecoder();
          for await (const chunk of answer.body ?? []) eventText += decoder.decode(chunk as Uint8Array);
        })
        .catch(() => undefined);
      // The viewer joins while the step sleeps, before it prints: no line is stored when it joins.
      const first = await push('sleep 6; seq 1 50; echo printed; sleep 120', 'lines to B');
      const running = await build(servers.a.port, first, (b) => step(b)?.status === 'running');
      const path = `/api/repos/${REPO}/builds/${first}/logs/1/${step(running)?.number}/stream`;
      const viewer = await fetch(url(servers.a.port, path), {
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(60_000),
      });
      const lines: string[] = [];
      let buffer = '';
      const decoder = new TextDecoder();
      for await (const chunk of viewer.body ?? []) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const data = /^data: (\{.*)$/m.exec(buffer.slice(0, end))?.[1];
          buffer = buffer.slice(end + 2);
          if (data !== undefined) lines.push((JSON.parse(data) as { out: string }).out.trim());
        }
        if (lines.includes('printed')) break;
      }
      await viewer.body?.cancel();
      events.abort();
      await eventStream;
      const heard = eventText
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice(6)) as { build?: Build });
      expect(heard.some((e) => e.build?.number === first && e.build.status === 'running')).toBe(true);
      // Every line, in order, and the step still runs: they came live, not from the finished log.
      const printed = lines.filter((line) => /^(\d+|printed)$/.test(line));
      expect(printed).toEqual([...Array.from({ length: 50 }, (_, i) => String(i + 1)), 'printed']);
      const still = await call({ url: url(servers.a.port) }, `/api/repos/${REPO}/builds/${first}`, { token });
      expect(step(still.json as Build)?.status).toBe('running');

      // Cancelled on A, the build's runner (watching on B) stops the step and takes the next build.
      const cancelled = await call({ url: url(servers.a.port) }, `/api/repos/${REPO}/builds/${first}`, {
        method: 'DELETE',
        token,
      });
      expect(cancelled.status).toBe(200);
      const cancelledAt = Date.now();
      const second = await push('echo next', 'after the cancel');
      const next = await build(servers.a.port, second, (b) => !['pending', 'running'].includes(b.status));
      expect(next.status).toBe('success');
      const freedIn = Date.now() - cancelledAt;
      console.info(
        `several servers on ${dialect.name}: the runner on B was free ${freedIn} ms after a cancel on A`,
      );
      expect(freedIn).toBeLessThan(20_000);
      await runner.stop();
    }, 150_000);

    it('completes a build whose server was killed, through the balancer, with every line once', async () => {
      const runner = startRunner(balancer.port, 'ha-balanced', [], { SVC_RUNNER_CAPACITY: '1' });
      runners.push(runner);
      const number = await push(
        'for i in $(seq 1 400); do echo "n $i"; sleep 0.025; done',
        'survive a server',
      );
      await build(balancer.port, number, (b) => step(b)?.status === 'running');
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const killedAt = Date.now();
      await servers.a.process?.kill();
      const done = await build(servers.b.port, number, (b) => !['pending', 'running'].includes(b.status));
      console.info(
        `several servers on ${dialect.name}: build done ${Date.now() - killedAt} ms after server A was killed`,
      );
      expect(done.status, JSON.stringify(done)).toBe('success');
      const log = await call(
        { url: url(servers.b.port) },
        `/api/repos/${REPO}/builds/${number}/logs/1/${step(done)?.number}`,
        { token },
      );
      const out = (log.json as { out: string }[])
        .map((line) => line.out.trim())
        .filter((line) => line.startsWith('n '));
      expect(out).toEqual(Array.from({ length: 400 }, (_, i) => `n ${i + 1}`));
      await runner.stop();
    }, 150_000);
  });
}
