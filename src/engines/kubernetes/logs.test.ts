import { describe, expect, it } from 'vitest';
import type { KubeApi } from './api.js';
import { catchUpLines } from './logs.js';

/** The log read API of a container whose whole log is `log`. */
function logOf(log: string): { api: KubeApi; reads: (number | undefined)[] } {
  const reads: (number | undefined)[] = [];
  const api = {
    readLog: (_ns: string, _pod: string, _container: string, tailLines?: number) => {
      reads.push(tailLines);
      const lines = log.split(/(?<=\n)/);
      return Promise.resolve(tailLines === undefined ? log : lines.slice(-tailLines).join(''));
    },
  } as unknown as KubeApi;
  return { api, reads };
}

describe('catching up on what a followed log missed', () => {
  it('reads only the last line when the followed stream got everything', async () => {
    const { api, reads } = logOf('one\ntwo\nthree');
    const lines: string[] = [];
    await catchUpLines(api, 'ns', 'pod', 'c', { bytes: 13, lastLine: 'three' }, (line) => lines.push(line));
    expect(lines).toEqual([]);
    expect(reads).toEqual([1]);
  });

  it('passes on what follows the bytes delivered when the stream closed early', async () => {
    const { api, reads } = logOf('one\ntwo\nthree');
    const lines: string[] = [];
    await catchUpLines(api, 'ns', 'pod', 'c', { bytes: 8, lastLine: 'two' }, (line) => lines.push(line));
    expect(lines).toEqual(['three']);
    expect(reads).toEqual([1, undefined]);
  });
});
