/*
 * A debug build's tmate connection strings let whoever reads them into the build's container; on
 * a public repository anyone may read logs. Only callers with write access see those lines
 * (issue 30, fault 9): the stored log and the live stream, as every client reads them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEBUG_SHELL_MARK } from '../../src/core/log.js';
import { MASKED_DEBUG_SHELL } from '../../src/server/api/logs/debug-shell-mask.js';
import { call, enable, loginAs, type BrowserSession } from './client.js';
import { startHarness, type Harness } from './harness.js';
import { BUILD_AND_TEST } from './pipelines.js';

const SESSION_LINE = `${DEBUG_SHELL_MARK}ssh session: ssh SECRETTOKEN@relay.example.com\n`;
const LINES = [
  { pos: 0, out: '+ exit code 3: this is a debug build, so a tmate session starts\n', time: 1 },
  { pos: 1, out: SESSION_LINE, time: 2 },
];

describe('a debug build’s session lines', () => {
  let h: Harness;
  let owner: BrowserSession;
  let reader: BrowserSession;

  beforeAll(async () => {
    h = await startHarness();
    h.github.addUser({ login: 'octocat' });
    h.github.addUser({ login: 'reader' });
    h.github.addRepo({ owner: 'octocat', name: 'pub', admins: ['octocat'], readers: ['reader'] });
    owner = await loginAs(h, 'octocat');
    reader = await loginAs(h, 'reader');
    await enable(h, owner, 'octocat/pub');
    for (let i = 1; i <= 2; i++) {
      h.github.commit('octocat/pub', 'main', { '.drone.yml': BUILD_AND_TEST, 'n.txt': String(i) });
      expect(await h.github.push('octocat/pub', 'main', `${h.url}/hook`)).toBe(200);
    }
    const repo = await h.store.repos.findSlug('octocat', 'pub');
    for (const [number, kind] of [
      [1, 'debug'],
      [2, 'plain'],
    ] as const) {
      const build = await h.store.builds.findNumber(repo?.id ?? 0, number);
      if (build === undefined) throw new Error(`no build ${number}`);
      if (kind === 'debug') await h.store.builds.update({ ...build, debug: true });
      const [stage] = await h.store.stages.list(build.id);
      const step = await h.store.steps.create({
        stageId: stage?.id ?? 0,
        number: 1,
        name: 'compile',
        status: 'failure',
        errIgnore: false,
        exitCode: 3,
        image: 'golang',
        detached: false,
        dependsOn: [],
        error: '',
        started: 1_000,
        stopped: 2_000,
      });
      await h.store.logs.create(step.id, LINES);
    }
  });
  afterAll(() => h.close());

  const log = (number: number, session?: BrowserSession) =>
    call(h, `/api/repos/octocat/pub/builds/${number}/logs/1/1`, session === undefined ? {} : { session });
  const stream = (number: number, session?: BrowserSession) =>
    call(
      h,
      `/api/repos/octocat/pub/builds/${number}/logs/1/1/stream`,
      session === undefined ? {} : { session },
    );

  it('are masked for anonymous readers and readers without write access, in the log and its stream', async () => {
    for (const who of [undefined, reader]) {
      const answer = await log(1, who);
      expect(answer.status).toBe(200);
      expect(answer.text).not.toContain('SECRETTOKEN');
      expect(answer.json).toEqual([LINES[0], { ...LINES[1], out: MASKED_DEBUG_SHELL }]);
      const live = await stream(1, who);
      expect(live.status).toBe(200);
      expect(live.text).toContain('this is a debug build');
      expect(live.text).not.toContain('SECRETTOKEN');
    }
  });

  it('are shown to users with write access', async () => {
    const answer = await log(1, owner);
    expect(answer.json).toEqual(LINES);
    expect((await stream(1, owner)).text).toContain('SECRETTOKEN');
  });

  it('are left alone in builds that are not debug builds (a step printing the mark hides nothing)', async () => {
    expect((await log(2)).json).toEqual(LINES);
  });
});
