import { describe, expect, it } from 'vitest';
import { droneContext } from './context.js';

describe('droneContext', () => {
  it('gives every field, with Drone’s zero values for facts that are absent', () => {
    const ctx = droneContext({ build: {}, repo: {}, params: {} });
    expect(ctx.build).toMatchObject({ event: '', cron: '', commit: '', debug: false, params: {} });
    expect(Object.keys(ctx.build)).toHaveLength(22);
    expect(ctx.repo).toMatchObject({ uid: '', private: false, ignore_pull_requests: false });
    expect(Object.keys(ctx.repo)).toHaveLength(16);
    expect(ctx.input).toEqual({});
  });

  it('reads flags given as text, and numbers as text', () => {
    const ctx = droneContext({
      build: { debug: 'true' },
      repo: { uid: 42, trusted: 'false', ignore_pull_requests: true },
      params: { A: '1' },
    });
    expect(ctx.build).toMatchObject({ debug: true, params: { A: '1' } });
    expect(ctx.repo).toMatchObject({ uid: '42', trusted: false, ignore_pull_requests: true });
    expect(ctx.input).toEqual({});
  });
});
