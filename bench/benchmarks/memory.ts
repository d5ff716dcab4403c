import http from 'node:http';
import type { Benchmark } from '../lib/benchmark.js';
import type { BenchResult } from '../lib/result.js';
import { residentParts, settledMiB, startBareNode } from '../lib/memory.js';
import { round } from '../lib/stats.js';
import { startSvcSystem } from '../lib/svc-system.js';
import { RPC_SECRET } from '../../test/e2e/system.js';

const POLLERS = 1_000;

function mib(metric: string, svc: number, baseline: number, notes: string): BenchResult {
  return {
    name: 'memory',
    metric,
    svc: round(svc, 1),
    baseline: round(baseline, 1),
    ratio: round(svc / baseline),
    unit: 'MiB',
    runs: 1,
    p50: round(svc, 1),
    p99: round(svc, 1),
    notes,
  };
}

/**
 * Opens `count` long-polls (POST /rpc/v2/stage, a filter no stage matches) at once, each on its own
 * connection as separate runners would; resolves once the server has had time to park them all.
 */
async function longPolls(url: string, count: number, headers: Record<string, string>): Promise<() => void> {
  const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
  const body = JSON.stringify({ kind: 'pipeline', type: 'nomatch', os: 'linux', arch: 'amd64', labels: {} });
  const requests = Array.from({ length: count }, () => {
    const request = http.request(`${url}/rpc/v2/stage`, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
    });
    request.on('error', () => undefined);
    request.end(body);
    return request;
  });
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  return () => {
    for (const request of requests) request.destroy();
    agent.destroy();
  };
}

/** Resident memory of an idle server and runner, and of a server holding 1,000 long-polling runners. */
export const memory: Benchmark = {
  name: 'memory',
  needs: ['docker'],
  async run() {
    const bare = await startBareNode(false);
    const holder = await startBareNode(true);
    const system = await startSvcSystem();
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_000)); // the runner connects and settles
      const serverPid = system.server.child.pid ?? 0;
      const runnerPid = system.runner.child.pid ?? 0;
      const barePid = bare.child.pid ?? 0;
      const idle = {
        server: await settledMiB(serverPid),
        runner: await settledMiB(runnerPid),
        node: await settledMiB(barePid),
        serverOwn: await settledMiB(serverPid, 'RssAnon'),
        runnerOwn: await settledMiB(runnerPid, 'RssAnon'),
        nodeOwn: await settledMiB(barePid, 'RssAnon'),
      };
      const parts = (pid: number): string => {
        const { anon, file } = residentParts(pid);
        return `anonymous ${round(anon, 1)} MiB, file-backed ${round(file, 1)} MiB`;
      };
      const split = { server: parts(serverPid), runner: parts(runnerPid), node: parts(barePid) };

      const holderPid = holder.child.pid ?? 0;
      const holderIdle = await settledMiB(holderPid);
      const releaseHeld = await longPolls(`http://127.0.0.1:${holder.port}`, POLLERS, {});
      const holderLoaded = await settledMiB(holderPid);
      releaseHeld();

      const releasePolls = await longPolls(system.url, POLLERS, { 'x-svc-token': RPC_SECRET });
      const loadedServer = await settledMiB(serverPid);
      releasePolls();
      const server = 'svc server (SQLite, GitHub login configured, one runner connected)';
      const runner = 'svc runner docker, connected and long-polling';
      return [
        mib(
          'idle server, anonymous resident memory',
          idle.serverOwn,
          idle.nodeOwn,
          `${server}: its own pages (RssAnon: heap, stacks, malloc) vs a bare Node 24 process's; the node binary's file-backed pages are shared by every Node process`,
        ),
        mib(
          'idle runner, anonymous resident memory',
          idle.runnerOwn,
          idle.nodeOwn,
          `${runner}: RssAnon vs a bare Node 24 process's`,
        ),
        mib(
          'idle server RSS',
          idle.server,
          idle.node,
          `${server} vs a bare Node 24 process; svc: ${split.server}, bare: ${split.node}`,
        ),
        mib(
          'idle runner RSS',
          idle.runner,
          idle.node,
          `${runner} vs a bare Node 24 process; svc: ${split.runner}, bare: ${split.node}`,
        ),
        mib(
          `RSS added by ${POLLERS} long-polling runners`,
          loadedServer - idle.server,
          holderLoaded - holderIdle,
          `server RSS with ${POLLERS} POST /rpc/v2/stage long-polls parked, minus idle; baseline: a bare node:http server holding ${POLLERS} requests open`,
        ),
      ];
    } finally {
      await system.close();
      bare.child.kill();
      holder.child.kill();
    }
  },
};
