import type { Group } from './command.js';
import { show, table, when } from './output.js';
import { runnerTokenVerb } from './runner-token.js';
import type { WireStage } from './wire.js';

interface QueueItem extends WireStage {
  id: number;
  repo_id: number;
  build_id: number;
  os: string;
  arch: string;
}

interface WireRunner {
  name: string;
  kind: string;
  type: string;
  labels: Record<string, string>;
  os: string;
  arch: string;
  capacity: number;
  last_contact: number;
  stages_running: number;
}

const queueTable = (items: readonly QueueItem[]) =>
  items.length === 0
    ? 'the queue is empty\n'
    : table(
        ['STAGE', 'REPO', 'BUILD', 'NAME', 'STATUS', 'PLATFORM', 'MACHINE', 'WAITING BECAUSE'],
        items.map((s) => [
          String(s.id),
          String(s.repo_id),
          String(s.build_id),
          s.name,
          s.status,
          `${s.os}/${s.arch}`,
          s.machine ?? '',
          s.pending_reason?.message ?? '',
        ]),
      );

const runnerTable = (runners: readonly WireRunner[]) =>
  runners.length === 0
    ? 'no runner has polled\n'
    : table(
        ['NAME', 'KIND', 'TYPE', 'PLATFORM', 'CAPACITY', 'RUNNING', 'LAST CONTACT', 'LABELS'],
        runners.map((r) => [
          r.name,
          r.kind,
          r.type,
          `${r.os}/${r.arch}`,
          String(r.capacity),
          String(r.stages_running),
          when(r.last_contact),
          Object.entries(r.labels)
            .map(([key, value]) => `${key}=${value}`)
            .join(','),
        ]),
      );

export const queueGroup: Group = {
  name: 'queue',
  summary: 'The stage queue (administrators only).',
  verbs: {
    ls: {
      args: '',
      summary: 'Lists the pending and running stages, and why each pending one waits',
      async run(context) {
        show(context, await context.api.get<QueueItem[]>('/api/queue'), queueTable);
      },
    },
    pause: {
      args: '',
      summary: 'Pauses the queue: runners get no new stages (running ones go on)',
      async run(context) {
        await context.api.delete('/api/queue');
        if (!context.json) context.io.stdout('queue paused\n');
      },
    },
    resume: {
      args: '',
      summary: 'Resumes the queue',
      async run(context) {
        await context.api.post('/api/queue');
        if (!context.json) context.io.stdout('queue resumed\n');
      },
    },
  },
};

export const runnerGroup: Group = {
  name: 'runner',
  summary: 'The runners that polled the server (administrators only).',
  verbs: {
    ls: {
      args: '',
      summary: 'Lists the runners: kind, platform, capacity, stages running, last contact',
      async run(context) {
        show(context, await context.api.get<WireRunner[]>('/api/runners'), runnerTable);
      },
    },
    token: runnerTokenVerb,
  },
};
