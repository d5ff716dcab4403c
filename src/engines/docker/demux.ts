/** The stream a frame of a multiplexed Docker stream belongs to. */
export type DockerStream = 'stdin' | 'stdout' | 'stderr';

const HEADER_BYTES = 8;
const STREAMS: Record<number, DockerStream> = { 0: 'stdin', 1: 'stdout', 2: 'stderr' };

/**
 * Splits Docker's multiplexed attach/logs stream (containers without a TTY) into its frames:
 * an 8-byte header — stream type, three zero bytes, payload length as big-endian uint32 — then
 * the payload. Network chunks cut frames and even headers anywhere, so partial data is kept
 * until the rest arrives.
 */
export class Demuxer {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (stream: DockerStream, payload: Buffer) => void) {}

  /** Takes the next chunk and passes on every frame it completes. */
  write(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= HEADER_BYTES) {
      const size = this.pending.readUInt32BE(4);
      if (this.pending.length < HEADER_BYTES + size) return;
      const stream = STREAMS[this.pending[0] ?? 1] ?? 'stdout';
      this.onFrame(stream, this.pending.subarray(HEADER_BYTES, HEADER_BYTES + size));
      this.pending = this.pending.subarray(HEADER_BYTES + size);
    }
  }

  /** Bytes of an unfinished frame left when the stream ended (0 for a well-formed stream). */
  leftover(): number {
    return this.pending.length;
  }
}
