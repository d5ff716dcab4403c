import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { DeadBufferSweeper, sweptAsItFlows } from './dead-buffers.js';

function chunks(count: number, size: number): Buffer[] {
  return Array.from({ length: count }, (_, i) => Buffer.alloc(size, i % 256));
}

async function collected(stream: Readable): Promise<number> {
  let bytes = 0;
  const sink = new PassThrough();
  sink.on('data', (chunk: Buffer) => (bytes += chunk.length));
  await pipeline(stream, sink);
  return bytes;
}

describe('DeadBufferSweeper', () => {
  it('collects once every so many bytes, not per chunk', () => {
    let collections = 0;
    const sweeper = new DeadBufferSweeper(1000, () => collections++);
    for (let i = 0; i < 25; i++) sweeper.passed(100);
    expect(collections).toBe(2);
    sweeper.passed(5000);
    expect(collections).toBe(3);
  });

  it('runs V8’s young collection in this runtime without failing', () => {
    const sweeper = new DeadBufferSweeper(1);
    expect(() => {
      for (let i = 0; i < 3; i++) sweeper.passed(1);
    }).not.toThrow();
  });
});

describe('sweptAsItFlows', () => {
  it('counts a stream piped later without starting it early or losing a chunk', async () => {
    let collections = 0;
    const source = Readable.from(chunks(10, 1000));
    const swept = sweptAsItFlows(source, new DeadBufferSweeper(1000, () => collections++));
    // Nothing reads it yet: a 'data' listener added now would lose these chunks.
    await sleep(20);
    expect(source.readableFlowing).not.toBe(true);
    expect(await collected(swept)).toBe(10_000);
    // A collection per chunk of 1,000 bytes: every chunk was counted.
    expect(collections).toBe(10);
  });

  it('counts a stream that already flows', async () => {
    let collections = 0;
    const source = new PassThrough();
    const reading = collected(source);
    sweptAsItFlows(source, new DeadBufferSweeper(1000, () => collections++));
    for (const chunk of chunks(5, 1000)) source.write(chunk);
    source.end();
    expect(await reading).toBe(5000);
    expect(collections).toBe(5);
  });
});
