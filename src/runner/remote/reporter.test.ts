import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../core/log.js';
import { RpcError } from '../client/errors.js';
import type { WireStep } from '../client/wire/index.js';
import { execStep } from '../testing/spec.js';
import { RemoteReporter } from './reporter.js';

const stored: WireStep = {
  id: 7,
  step_id: 1,
  number: 1,
  name: 'test',
  status: 'pending',
  error: '',
  errignore: false,
  exit_code: 0,
  started: 0,
  stopped: 0,
  version: 1,
  depends_on: [],
  image: 'local/busybox',
  detached: false,
};

/**
 * A client that stores batches and counts uploads; `after` answers the upload after batches, `all`
 * the upload of every line.
 */
function client(after: () => Promise<void>, all: () => Promise<void> = () => Promise.resolve()) {
  const calls: string[] = [];
  const updates: WireStep[] = [];
  return {
    calls,
    updates,
    updateStep: (step: WireStep) => {
      updates.push(step);
      return Promise.resolve({ ...step, version: step.version + 1 });
    },
    batch: (_step: number, batch: number, lines: readonly LogLine[]) => {
      calls.push(`batch ${batch}: ${lines.length}`);
      return Promise.resolve({ batch, duplicate: false });
    },
    uploadAfter: (_step: number, batches: number, lines: readonly LogLine[]) => {
      calls.push(`after ${batches}: ${lines.length}`);
      return after();
    },
    upload: (_step: number, lines: readonly LogLine[]) => {
      calls.push(`all: ${lines.length}`);
      return all();
    },
  };
}

async function runStep(fake: ReturnType<typeof client>): Promise<RemoteReporter> {
  const reporter = new RemoteReporter({
    client: fake,
    steps: new Map([['test', stored]]),
    delivery: {
      backoff: { min: 5, max: 10 },
      abandon: new AbortController().signal,
      logger: pino({ level: 'silent' }),
    },
    batching: { interval: 5, maxLines: 4, maxBytes: 1024 * 1024 },
    backoff: { min: 5, max: 10 },
    logger: pino({ level: 'silent' }),
    onLost: () => undefined,
  });
  const step = execStep('test');
  reporter.stepStarted(step, Date.now());
  for (let pos = 0; pos < 10; pos++) reporter.stepLine(step, { pos, out: `line ${pos}`, time: 0 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  reporter.stepLine(step, { pos: 10, out: 'last', time: 0 });
  const result = { name: 'test', status: 'success' as const, exitCode: 0, oomKilled: false, error: '' };
  reporter.stepFinished(step, { ...result, errIgnore: false, started: 1, stopped: 2, attempts: 1 });
  await reporter.drain();
  return reporter;
}

describe('RemoteReporter log upload', () => {
  it('uploads only the lines after the acknowledged batches', async () => {
    const fake = client(() => Promise.resolve());
    await runStep(fake);
    expect(fake.calls).toEqual(['batch 0: 4', 'batch 1: 4', 'batch 2: 2', 'after 3: 1']);
  });

  it('uploads every line when the server cannot complete the log from its batches', async () => {
    const fake = client(() => Promise.reject(new RpcError(409, 'lacks some of log batches')));
    await runStep(fake);
    expect(fake.calls.slice(-2)).toEqual(['after 3: 1', 'all: 11']);
  });

  // Issue 31: a step whose log is incomplete must never count as a success.
  it('reports the step as an error, and says why for the stage, when the server refuses its log for good', async () => {
    const fake = client(
      () => Promise.reject(new RpcError(409, 'lacks some of log batches')),
      () => Promise.reject(new RpcError(413, 'the log is too large')),
    );
    const reporter = await runStep(fake);
    expect(fake.calls.slice(-2)).toEqual(['after 3: 1', 'all: 11']);
    const end = fake.updates.at(-1);
    expect(end).toMatchObject({ status: 'error', errignore: false });
    expect(end?.error).toMatch(/^the log of step "test" could not be stored: .*too large/);
    expect(reporter.unstoredLogs).toEqual([end?.error]);
  });

  it('retries the upload after batches while the server does not answer', async () => {
    let failures = 2;
    const fake = client(() =>
      failures-- > 0 ? Promise.reject(new RpcError(0, 'no answer')) : Promise.resolve(),
    );
    await runStep(fake);
    expect(fake.calls.slice(-3)).toEqual(['after 3: 1', 'after 3: 1', 'after 3: 1']);
  });
});
