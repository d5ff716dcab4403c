import type { DatabaseConnections } from '../../core/gauges.js';
import { gauge } from './exposition.js';
import type { HeldEntry } from './held-entries.js';
import type { ProcessReading } from './process-gauges.js';

/**
 * A server's or runner's own gauges in Prometheus' text format: memory, V8's heap (now and after
 * the last full collection), active handles, file descriptors, database connections (a server's),
 * and the sizes of svc's in-memory maps. Together they tell a leak (the heap after collections, a
 * map, descriptors that keep growing) from a heap V8 merely lets grow (docs/performance.md, Soak).
 */
export function processMetrics(
  reading: ProcessReading,
  held: readonly HeldEntry[],
  connections?: DatabaseConnections,
): string {
  const resources = Object.entries(reading.resources).sort(([a], [b]) => a.localeCompare(b));
  const parts = [
    gauge('svc_process_resident_memory_bytes', 'Resident set size of the process.', reading.residentBytes),
    gauge('svc_process_heap_used_bytes', 'V8 heap in use now, garbage included.', reading.heapUsedBytes),
    gauge(
      'svc_process_heap_total_bytes',
      'Memory V8 holds for its heap, used or not.',
      reading.heapTotalBytes,
    ),
    gauge(
      'svc_process_external_bytes',
      'Memory held by JavaScript objects outside the V8 heap (Buffers, ArrayBuffers).',
      reading.externalBytes,
    ),
    gauge(
      'svc_process_v8_malloced_bytes',
      'Native memory V8 itself allocated (compiler zones, tables), outside its heap.',
      reading.v8MallocedBytes,
    ),
    gauge(
      'svc_process_heap_after_gc_bytes',
      'V8 heap in use right after the last full collection (NaN before the first).',
      reading.heapAfterGcBytes ?? Number.NaN,
    ),
    gauge(
      'svc_process_heap_space_used_bytes',
      'V8 heap in use now, by space.',
      Object.entries(reading.heapSpacesUsedBytes).map(([space, value]) => ({ labels: { space }, value })),
    ),
    gauge('svc_process_full_gcs', 'Full (mark-compact) collections since start.', reading.fullCollections),
    gauge(
      'svc_process_active_resources',
      'Handles and requests keeping the event loop alive, by type.',
      resources.map(([type, value]) => ({ labels: { type }, value })),
    ),
  ];
  if (reading.openFds !== undefined) {
    parts.push(gauge('svc_process_open_fds', 'Open file descriptors.', reading.openFds));
  }
  if (connections !== undefined) parts.push(databaseGauges(connections));
  parts.push(
    gauge(
      'svc_memory_entries',
      "Entries of svc's in-memory maps, sets and queues, by holder.",
      held.map((entry) => ({ labels: { holder: entry.name }, value: entry.size })),
    ),
  );
  return parts.join('');
}

function databaseGauges(connections: DatabaseConnections): string {
  return [
    gauge('svc_database_connections', 'Database connections of the pool, by state.', [
      { labels: { state: 'open' }, value: connections.open },
      { labels: { state: 'idle' }, value: connections.idle },
    ]),
    gauge(
      'svc_database_statements',
      'SQL texts kept prepared or named by the driver.',
      connections.statements,
    ),
  ].join('');
}
