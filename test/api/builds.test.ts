import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Build } from '../../src/core/build.js';
import type { Step } from '../../src/core/step.js';
import { call, enable, loginAs, type BrowserSession } from './client.js';
import { eventually, startHarness, type Harness } from './harness.js';
import { BUILD_AND_TEST } from './pipelines.js';

const PIPELINES = BUILD_AND_TEST;

describe('builds and logs API', () => {
  let h: Harness;
  let session: BrowserSession;
  let build: Build;
  let finished: Step;
  let running: Step;
  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
    h.github.addUser({ login: 'outsider' });
    h.github.addRepo({ owner: 'octocat', name: 'app', private: true, admins: ['octocat'] });
    session = await loginAs(h, 'octocat');
    await enable(h, session, 'octocat/app');
    for (let i = 1; i <= 3; i++) {
      h.github.commit('octocat/app', 'main', { '.drone.yml': PIPELINES, 'n.txt': String(i) }, `commit ${i}`);
      expect(await h.github.push('octocat/app', 'main', `${h.url}/hook`)).toBe(200);
    }
    const repo = await h.store.repos.findSlug('octocat', 'app');
    build = (await h.store.builds.findNumber(repo?.id ?? 0, 3)) as Build;
    const [first, second] = await h.store.stages.list(build.id);
    const step = {
      errIgnore: false,
      exitCode: 0,
      image: 'golang',
      detached: false,
      dependsOn: [],
      error: '',
    };
    finished = await h.store.steps.create({
      ...step,
      stageId: first?.id ?? 0,
      number: 1,
      name: 'compile',
      status: 'success',
      started: 1_000,
      stopped: 2_000,
    });
    running = await h.store.steps.create({
      ...step,
      stageId: second?.id ?? 0,
      number: 1,
      name: 'unit',
      status: 'running',
      started: 3_000,
      stopped: 0,
    });
    await h.store.logs.create(finished.id, [
      { pos: 0, out: '+ go build\n', time: 0 },
      { pos: 1, out: 'ok\n', time: 1 },
    ]);
  });
  afterAll(() => h.close());

  it('lists builds newest first in Drone’s shape, paged', async () => {
    const answer = await call(h, '/api/repos/octocat/app/builds', { session });
    expect(answer.status).toBe(200);
    const builds = answer.json as Record<string, unknown>[];
    expect(builds.map((b) => b.number)).toEqual([3, 2, 1]);
    expect(builds[0]).toMatchObject({
      id: build.id,
      repo_id: build.repoId,
      number: 3,
      status: 'pending',
      event: 'push',
      trigger: '@hook',
      message: 'commit 3',
      after: build.after,
      ref: 'refs/heads/main',
      source: 'main',
      target: 'main',
      source_repo: 'octocat/app',
      author_login: 'octocat',
      created: Math.floor(build.created / 1000),
    });
    expect(builds[0]).not.toHaveProperty('stages');
    expect(builds[0]).not.toHaveProperty('config');
    const page = (await call(h, '/api/repos/octocat/app/builds?page=2&per_page=2', { session })).json as {
      number: number;
    }[];
    expect(page.map((b) => b.number)).toEqual([1]);
    const bad = await call(h, '/api/repos/octocat/app/builds?per_page=1000', { session });
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ code: 'INVALID_INPUT' });
  });

  it('gives one build with its stages and their steps', async () => {
    const answer = await call(h, '/api/repos/octocat/app/builds/3', { session });
    expect(answer.status).toBe(200);
    const json = answer.json as { number: number; stages: Record<string, unknown>[] };
    expect(json.number).toBe(3);
    expect(json.stages.map((s) => [s.number, s.name, s.status, s.depends_on])).toEqual([
      [1, 'build', 'pending', []],
      [2, 'test', 'waiting_on_dependencies', ['build']],
    ]);
    expect(json.stages[0]).toMatchObject({
      build_id: build.id,
      kind: 'pipeline',
      type: 'docker',
      os: 'linux',
      arch: 'amd64',
      on_success: true,
      on_failure: false,
    });
    expect(json.stages[0]?.steps).toEqual([
      {
        id: finished.id,
        step_id: finished.stageId,
        stage_id: finished.stageId,
        number: 1,
        name: 'compile',
        status: 'success',
        error: '',
        errignore: false,
        exit_code: 0,
        started: 1,
        stopped: 2,
        version: finished.version,
        depends_on: [],
        image: 'golang',
        detached: false,
        attempts: 0,
      },
    ]);
    expect((await call(h, '/api/repos/octocat/app/builds/99', { session })).status).toBe(404);
    expect((await call(h, '/api/repos/octocat/app/builds/abc', { session })).status).toBe(400);
  });

  it('hides private builds from anonymous callers and outsiders', async () => {
    expect((await call(h, '/api/repos/octocat/app/builds')).status).toBe(401);
    const outsider = await loginAs(h, 'outsider');
    expect((await call(h, '/api/repos/octocat/app/builds/3', { session: outsider })).status).toBe(404);
    expect((await call(h, '/api/repos/octocat/app/builds/3/logs/1/1', { session: outsider })).status).toBe(
      404,
    );
  });

  it('gives the stored log of a finished step, and 404 while there is none', async () => {
    const answer = await call(h, '/api/repos/octocat/app/builds/3/logs/1/1', { session });
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([
      { pos: 0, out: '+ go build\n', time: 0 },
      { pos: 1, out: 'ok\n', time: 1 },
    ]);
    const none = await call(h, '/api/repos/octocat/app/builds/3/logs/2/1', { session });
    expect(none.status).toBe(404);
    expect(none.json).toEqual({ code: 'NOT_FOUND', message: 'the log of step unit not found' });
    expect((await call(h, '/api/repos/octocat/app/builds/3/logs/1/9', { session })).status).toBe(404);
  });

  it('streams a finished step as its stored lines then an end event', async () => {
    const events = await readEvents(h, session, '/api/repos/octocat/app/builds/3/logs/1/1/stream');
    expect(events).toEqual([
      { event: 'message', data: { pos: 0, out: '+ go build\n', time: 0 } },
      { event: 'message', data: { pos: 1, out: 'ok\n', time: 1 } },
      { event: 'end', data: 'eof' },
    ]);
  });

  it('streams live lines of a running step, with the lines stored so far first, then the end', async () => {
    await h.store.logBatches.append(running.id, 1, [{ pos: 0, out: 'stored before joining\n', time: 0 }]);
    const stream = openEvents(h, session, `/api/stream/octocat/app/3/2/1`);
    await eventually(() => (h.liveLogs.watchedSteps > 0 ? true : undefined));
    await eventually(() => (stream.events.length > 0 ? true : undefined));
    h.liveLogs.publish(running.id, [
      { pos: 0, out: 'stored before joining\n', time: 0 },
      { pos: 1, out: 'live one\n', time: 1 },
    ]);
    h.liveLogs.publish(running.id, [{ pos: 2, out: 'live two\n', time: 2 }]);
    await h.store.logs.create(running.id, [
      { pos: 0, out: 'stored before joining\n', time: 0 },
      { pos: 1, out: 'live one\n', time: 1 },
      { pos: 2, out: 'live two\n', time: 2 },
      { pos: 3, out: 'only in the final log\n', time: 3 },
    ]);
    h.liveLogs.end(running.id);
    const events = await stream.done;
    expect(events.map((e) => (e.event === 'end' ? 'end' : (e.data as { out: string }).out))).toEqual([
      'stored before joining\n',
      'live one\n',
      'live two\n',
      'only in the final log\n',
      'end',
    ]);
    expect(h.liveLogs.watchedSteps).toBe(0);
  });

  it('ends a live stream without reading the stored log when the viewer has every line up to its end', async () => {
    // The stored log (from the test above) holds a line 3 that this end does not count: a viewer
    // that read the stored log would show it.
    const stream = openEvents(h, session, `/api/stream/octocat/app/3/2/1`);
    await eventually(() => (stream.events.length > 0 ? true : undefined));
    h.liveLogs.publish(running.id, [{ pos: 1, out: 'live one\n', time: 1 }]);
    h.liveLogs.publish(running.id, [{ pos: 2, out: 'live two\n', time: 2 }]);
    h.liveLogs.end(running.id, 2);
    const events = await stream.done;
    expect(events.map((e) => (e.event === 'end' ? 'end' : (e.data as { out: string }).out))).toEqual([
      'stored before joining\n',
      'live one\n',
      'live two\n',
      'end',
    ]);
  });

  it('refuses to stream a private step to anonymous callers', async () => {
    const answer = await fetch(`${h.url}/api/repos/octocat/app/builds/3/logs/1/1/stream`);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('content-type')).toContain('application/json');
  });
});

interface SseEvent {
  event: string;
  data: unknown;
}

/** Reads a whole event stream until the server closes it. */
async function readEvents(h: Harness, session: BrowserSession, path: string): Promise<SseEvent[]> {
  return openEvents(h, session, path).done;
}

/** Opens an event stream; `events` fills as they arrive, `done` resolves when the server ends it. */
function openEvents(
  h: Harness,
  session: BrowserSession,
  path: string,
): { events: SseEvent[]; done: Promise<SseEvent[]> } {
  const events: SseEvent[] = [];
  const done = (async () => {
    const response = await fetch(`${h.url}${path}`, { headers: { cookie: session.cookie } });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of response.body ?? []) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const fields = new Map(
          block
            .split('\n')
            .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()]),
        );
        const data = fields.get('data');
        if (data === undefined) continue;
        events.push({
          event: fields.get('event') ?? 'message',
          data: data.startsWith('{') ? JSON.parse(data) : data,
        });
      }
    }
    return events;
  })();
  return { events, done };
}
