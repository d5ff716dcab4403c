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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerForTests } from '../../src/engines/docker/testing.case.js';
import { startRunner, type SvcProcess } from '../e2e/system.js';
import { testDialects, type TestDatabase } from '../support/databases.js';
import { cronRecord, failoverRound } from './failover-round.js';
import { HaCluster, isOver, REPO, workStep as step, type HaBuild as Build } from './ha-cluster.js';

const docker = await dockerForTests(['local/busybox']);

for (const dialect of testDialects().filter((d) => d.name !== 'SQLite')) {
  describe.skipIf(dialect.skip || docker.skip)(`several servers on ${dialect.name}`, () => {
    let database: TestDatabase;
    let cluster: HaCluster;
    const runners: SvcProcess[] = [];

    beforeAll(async () => {
      database = await dialect.create();
      cluster = await HaCluster.start(database, { SVC_CRON_INTERVAL: '2s' });
    }, 120_000);

    afterAll(async () => {
      for (const runner of runners) await runner.kill();
      await cluster?.close();
      await database?.drop();
    });

    it('shows a viewer on A the lines the runner sends to B while the step runs, and cancels across servers', async () => {
      const runner = startRunner(cluster.servers.b.port, 'ha-on-b', [], { SVC_RUNNER_CAPACITY: '1' });
      runners.push(runner);
      // Build events on A: the runner's reports reach B only, so A hears of them from B.
      const events = new AbortController();
      let eventText = '';
      const eventStream = fetch(cluster.url(cluster.servers.a.port, '/api/stream'), {
        headers: { authorization: `Bearer ${cluster.token}` },
        signal: events.signal,
      })
        .then(async (answer) => {
          const decoder = new TextDecoder();
          for await (const chunk of answer.body ?? []) eventText += decoder.decode(chunk as Uint8Array);
        })
        .catch(() => undefined);
      // The viewer joins while the step sleeps, before it prints: no line is stored when it joins.
      const first = await cluster.push('sleep 6; seq 1 50; echo printed; sleep 120', 'lines to B');
      const running = await cluster.build(
        cluster.servers.a.port,
        first,
        (b) => step(b)?.status === 'running',
      );
      const path = `/api/repos/${REPO}/builds/${first}/logs/1/${step(running)?.number}/stream`;
      const viewer = await fetch(cluster.url(cluster.servers.a.port, path), {
        headers: { authorization: `Bearer ${cluster.token}` },
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
      const still = await cluster.api(cluster.servers.a.port, `/api/repos/${REPO}/builds/${first}`);
      expect(step(still.json as Build)?.status).toBe('running');

      // Cancelled on A, the build's runner (watching on B) stops the step and takes the next build.
      const cancelled = await cluster.api(cluster.servers.a.port, `/api/repos/${REPO}/builds/${first}`, {
        method: 'DELETE',
      });
      expect(cancelled.status).toBe(200);
      const cancelledAt = Date.now();
      const second = await cluster.push('echo next', 'after the cancel');
      const next = await cluster.build(cluster.servers.a.port, second, isOver);
      expect(next.status).toBe('success');
      const freedIn = Date.now() - cancelledAt;
      console.info(
        `several servers on ${dialect.name}: the runner on B was free ${freedIn} ms after a cancel on A`,
      );
      expect(freedIn).toBeLessThan(20_000);
      await runner.stop();
    }, 150_000);

    // Issue 31: with several builds streaming at once, a kill lost lines at the end of a step, and
    // cron built one slot twice. The long version: `npm run bench -- failover` (docs/reliability.md).
    it('keeps every line of four builds streaming while a server is killed, and builds each cron slot once', async () => {
      const runner = startRunner(cluster.balancer.port, 'ha-four', [], { SVC_RUNNER_CAPACITY: '4' });
      runners.push(runner);
      const job = await cluster.api(cluster.balancer.port, `/api/repos/${REPO}/cron`, {
        method: 'POST',
        body: { name: 'tick', expr: '*/10 * * * * *', branch: 'main' },
      });
      expect(job.status).toBe(200);
      const rounds = [
        { server: 'a', how: 'kill', after: 2_500 },
        { server: 'b', how: 'kill', after: 8_500 },
        { server: 'a', how: 'stop', after: 5_000 },
      ] as const;
      for (const [i, disturbance] of rounds.entries()) {
        const round = await failoverRound(cluster, disturbance, { count: 4, label: `round ${i}` });
        console.info(`several servers on ${dialect.name}: ${JSON.stringify(round)}`);
        for (const built of round.builds)
          expect(built, JSON.stringify(round)).toMatchObject({ status: 'success', lost: 0, duplicated: 0 });
      }
      await cluster.api(cluster.balancer.port, `/api/repos/${REPO}/cron/tick`, { method: 'DELETE' });
      const cron = cronRecord(cluster);
      console.info(
        `several servers on ${dialect.name}: cron ${JSON.stringify({ ...cron, slots: [...cron.slots] })}`,
      );
      // A killed lease holder's jobs stop until another server takes the lease (up to 40 s), so
      // slots may pass without a build; none is ever built twice.
      expect(cron.slots.size).toBeGreaterThan(0);
      expect(cron.failed).toBe(0);
      for (const [slot, builds] of cron.slots)
        expect({ slot, builds: builds.length }).toEqual({ slot, builds: 1 });
      await runner.stop();
    }, 600_000);
  });
}
