import { residentMiB, residentParts } from './memory.js';

const MiB = 1024 * 1024;

/** A runner's gauges after a full collection (its /metrics?gc=full, behind the dashboard's password). */
export interface RunnerReading {
  /** RSS after the collection, and as found before it. */
  readonly rssMiB: number;
  readonly rssFoundMiB: number;
  readonly anonMiB: number;
  readonly heapAfterGcMiB: number;
  readonly heapTotalMiB: number;
  readonly externalMiB: number;
  readonly v8MallocedMiB: number;
  readonly handles: number;
  readonly fds: number;
  readonly held: Readonly<Record<string, number>>;
}

/** Where a soak reads one runner: its process, and its /metrics with the dashboard's credentials. */
export interface RunnerProbe {
  readonly pid: number;
  readonly metricsUrl: string;
  readonly authorization: string;
}

/** What a soak round ends with: the server's gauges after a full collection, and its runners'. */
export interface SoakReading {
  readonly server: {
    /** RSS after the collection: what the process keeps. */
    readonly rssMiB: number;
    /** RSS as found before the collection, V8's freed pages still resident (an operator's view). */
    readonly rssFoundMiB: number;
    /** The process's own resident pages (/proc RssAnon): heap, malloc, stacks; the rest is mapped files. */
    readonly anonMiB: number;
    readonly heapAfterGcMiB: number;
    /** What V8 holds for its heap, and what Buffers hold outside it. */
    readonly heapTotalMiB: number;
    /** Of the heap after GC, V8's compiled code (it grows while code warms up) and old objects. */
    readonly codeMiB: number;
    readonly oldMiB: number;
    /** SQL texts the driver keeps prepared. */
    readonly statements: number;
    readonly externalMiB: number;
    /** Active handles and requests, all types together. */
    readonly handles: number;
    readonly fds: number;
    readonly dbConnections: number;
    /** Every in-memory map's size, by holder. */
    readonly held: Readonly<Record<string, number>>;
  };
  readonly runners: readonly RunnerReading[];
}

/** The samples of a Prometheus text answer, by `name{labels}`. */
export function parseSamples(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const space = line.lastIndexOf(' ');
    samples.set(line.slice(0, space), Number(line.slice(space + 1)));
  }
  return samples;
}

/** GET `metricsUrl`?gc=full: the process collects all garbage, then shows its gauges. */
async function collectedGauges(metricsUrl: string, authorization: string) {
  const answer = await fetch(`${metricsUrl}?gc=full`, { headers: { authorization } });
  if (answer.status !== 200) throw new Error(`GET ${metricsUrl}?gc=full answered ${answer.status}`);
  const samples = parseSamples(await answer.text());
  const value = (name: string): number => {
    const found = samples.get(name);
    if (found === undefined) throw new Error(`${metricsUrl} has no ${name}`);
    return found;
  };
  let handles = 0;
  const held: Record<string, number> = {};
  for (const [name, size] of samples) {
    if (name.startsWith('svc_process_active_resources{')) handles += size;
    const holder = /^svc_memory_entries\{holder="(.+)"\}$/.exec(name)?.[1];
    if (holder !== undefined) held[holder] = size;
  }
  return { value, handles, held };
}

async function readRunner(probe: RunnerProbe): Promise<RunnerReading> {
  const rssFoundMiB = residentMiB(probe.pid);
  const { value, handles, held } = await collectedGauges(probe.metricsUrl, probe.authorization);
  return {
    rssMiB: value('svc_process_resident_memory_bytes') / MiB,
    rssFoundMiB,
    anonMiB: residentParts(probe.pid).anon,
    heapAfterGcMiB: value('svc_process_heap_after_gc_bytes') / MiB,
    heapTotalMiB: value('svc_process_heap_total_bytes') / MiB,
    externalMiB: value('svc_process_external_bytes') / MiB,
    v8MallocedMiB: value('svc_process_v8_malloced_bytes') / MiB,
    handles,
    fds: value('svc_process_open_fds'),
    held,
  };
}

/**
 * Makes the server and each runner collect all garbage (GET /metrics?gc=full: an administrator's
 * token for the server, the dashboard's password for a runner) and reads their gauges.
 */
export async function readSoakGauges(
  url: string,
  adminToken: string,
  serverPid: number,
  runners: readonly RunnerProbe[],
): Promise<SoakReading> {
  const rssFoundMiB = residentMiB(serverPid);
  const { value, handles, held } = await collectedGauges(`${url}/metrics`, `Bearer ${adminToken}`);
  const runnerReadings: RunnerReading[] = [];
  for (const probe of runners) runnerReadings.push(await readRunner(probe));
  return {
    server: {
      rssMiB: value('svc_process_resident_memory_bytes') / MiB,
      rssFoundMiB,
      anonMiB: residentParts(serverPid).anon,
      heapAfterGcMiB: value('svc_process_heap_after_gc_bytes') / MiB,
      heapTotalMiB: value('svc_process_heap_total_bytes') / MiB,
      codeMiB: value('svc_process_heap_space_used_bytes{space="code_space"}') / MiB,
      oldMiB: value('svc_process_heap_space_used_bytes{space="old_space"}') / MiB,
      statements: value('svc_database_statements'),
      externalMiB: value('svc_process_external_bytes') / MiB,
      handles,
      fds: value('svc_process_open_fds'),
      dbConnections: value('svc_database_connections{state="open"}'),
      held,
    },
    runners: runnerReadings,
  };
}

/** Whether the server has builds still pending or running (the metrics' own gauges). */
export async function buildsUnderWay(url: string, adminToken: string): Promise<number> {
  const answer = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${adminToken}` } });
  if (answer.status !== 200) throw new Error(`GET /metrics answered ${answer.status}`);
  const samples = parseSamples(await answer.text());
  return (samples.get('svc_pending_builds') ?? 0) + (samples.get('svc_running_builds') ?? 0);
}
