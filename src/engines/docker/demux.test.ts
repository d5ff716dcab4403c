import { describe, expect, it } from 'vitest';
import { Demuxer, type DockerStream } from './demux.js';

function frame(stream: number, text: string): Buffer {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
}

describe('Demuxer', () => {
  it('splits frames of stdout and stderr', () => {
    const frames: [DockerStream, string][] = [];
    const demuxer = new Demuxer((stream, payload) => frames.push([stream, payload.toString()]));
    demuxer.write(Buffer.concat([frame(1, 'out\n'), frame(2, 'err\n'), frame(1, '')]));
    expect(frames).toEqual([
      ['stdout', 'out\n'],
      ['stderr', 'err\n'],
      ['stdout', ''],
    ]);
    expect(demuxer.leftover()).toBe(0);
  });

  it('waits for the rest of a frame or header cut at any byte', () => {
    const stream = Buffer.concat([frame(1, 'first line\n'), frame(2, 'second\n')]);
    for (let cut = 1; cut < stream.length; cut++) {
      const frames: string[] = [];
      const demuxer = new Demuxer((kind, payload) => frames.push(`${kind}:${payload.toString()}`));
      demuxer.write(stream.subarray(0, cut));
      demuxer.write(stream.subarray(cut));
      expect(frames).toEqual(['stdout:first line\n', 'stderr:second\n']);
    }
  });

  it('passes on many frames of one chunk and keeps the frame it ends in for the next', () => {
    const frames: string[] = [];
    const demuxer = new Demuxer((_kind, payload) => frames.push(payload.toString()));
    const lines = Array.from({ length: 100 }, (_, i) => frame(1, `line ${i}\n`));
    const stream = Buffer.concat(lines);
    demuxer.write(stream.subarray(0, stream.length - 5));
    expect(frames).toHaveLength(99);
    expect(demuxer.leftover()).toBe(lines[99]!.length - 5);
    demuxer.write(stream.subarray(stream.length - 5));
    expect(frames.at(-1)).toBe('line 99\n');
    expect(demuxer.leftover()).toBe(0);
  });

  it('reports the bytes of a frame the stream ended in', () => {
    const demuxer = new Demuxer(() => undefined);
    demuxer.write(frame(1, 'cut short').subarray(0, 12));
    expect(demuxer.leftover()).toBe(12);
  });
});
