/** The stream a frame of a multiplexed Docker stream belongs to. */
export type DockerStream = 'stdin' | 'stdout' | 'stderr';

const HEADER_BYTES = 8;
const EMPTY = Buffer.alloc(0);
const STREAMS: Record<number, DockerStream> = { 0: 'stdin', 1: 'stdout', 2: 'stderr' };

/**
 * Splits Docker's multiplexed attach/logs stream (containers without a TTY) into its frames:
 * an 8-byte header — stream type, three zero bytes, payload length as big-endian uint32 — then
 * the payload. Network chunks cut frames and even headers anywhere, so partial data is kept
 * until the rest arrives.
 */
export class Demuxer {
  private pending: Buffer = EMPTY;

  constructor(private readonly onFrame: (stream: DockerStream, payload: Buffer) => void) {}

  /** Takes the next chunk and passes on every frame it completes. */
  write(chunk: Buffer): void {
    const data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    // Frames are read in place, by offset: a followed log brings one frame per line printed.
    let at = 0;
    while (data.length - at >= HEADER_BYTES) {
      const size = data.readUInt32BE(at + 4);
      const end = at + HEADER_BYTES + size;
      if (data.length < end) break;
      const stream = STREAMS[data[at] ?? 1] ?? 'stdout';
      this.onFrame(stream, data.subarray(at + HEADER_BYTES, end));
      at = end;
    }
    this.pending = at === data.length ? EMPTY : data.subarray(at);
  }

  /** Bytes of an unfinished frame left when the stream ended (0 for a well-formed stream). */
  leftover(): number {
    return this.pending.length;
  }
}
