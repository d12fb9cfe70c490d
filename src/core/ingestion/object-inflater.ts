import { Inflate, constants, inflateSync } from 'node:zlib';

export class InflateSizeError extends Error {}

/** A zlib stream that ran out of input before its end: the rest of the pack has not arrived yet. */
export class InflateTruncatedError extends InflateSizeError {}

/** The native handle behind a zlib stream, as Node 20 exposes it to its own `zlib.js`. */
interface NativeInflate {
  writeSync(flush: number, input: Uint8Array, inOffset: number, inLength: number, output: Uint8Array, outOffset: number, outLength: number): void;
  reset(): void;
  onerror: (message: string, errno: number, code?: string) => void;
}

/**
 * Inflates pack objects, one zlib stream at a time, each into a buffer of its declared size
 * plus one byte (a byte more than declared is an error, caught without growing anything).
 *
 * A pack holds tens of thousands of small streams. `inflateSync` builds a stream object, a
 * native context and 16 KiB output chunks for each: per object that costs more than the inflate
 * itself. Here one native context is reset and reused, which is what `git index-pack` does; when
 * the runtime does not expose the handle the same contract falls back to `inflateSync`.
 */
export class ObjectInflater {
  private readonly native?: NativeInflate;
  private readonly state?: Uint32Array;
  private failure?: { message: string; code?: string };

  constructor() {
    const stream = new Inflate() as unknown as { _handle?: NativeInflate; _writeState?: Uint32Array };
    if (
      stream._handle &&
      typeof stream._handle.writeSync === 'function' &&
      typeof stream._handle.reset === 'function' &&
      stream._writeState instanceof Uint32Array
    ) {
      this.native = stream._handle;
      this.state = stream._writeState;
      this.native.onerror = (message, _errno, code) => void (this.failure = { message, code });
    }
  }

  /**
   * Inflate the stream starting at `input[0]` to exactly `size` bytes in a new right-sized
   * buffer. `consumed` is how many compressed bytes the stream took.
   */
  inflate(input: Uint8Array, size: number): { data: Buffer; consumed: number } {
    const out = Buffer.allocUnsafe(size + 1);
    const consumed = this.inflateInto(input, 0, input.byteLength, size, out, 0);
    return { data: out.subarray(0, size), consumed };
  }

  /**
   * Inflate the stream at `source[from]` (input ends at `to`) to exactly `size` bytes written at
   * `out[at]`; `out` needs one byte of room past them. Returns how many compressed bytes the
   * stream took. No view is made of the input: a pack of small objects makes no garbage here.
   * Throws InflateTruncatedError when the input ends before the stream does, InflateSizeError
   * for any other mismatch or corruption.
   */
  inflateInto(source: Uint8Array, from: number, to: number, size: number, out: Uint8Array, at: number): number {
    const room = size + 1;
    if (out.byteLength < at + room) throw new RangeError('output buffer too small');
    let produced: number;
    let consumed: number;
    if (this.native && this.state) {
      this.failure = undefined;
      this.native.reset();
      this.native.writeSync(constants.Z_FINISH, source, from, to - from, out, at, room);
      if (this.failure) {
        const { message, code } = this.failure;
        this.native.reset();
        if (code === 'Z_BUF_ERROR') throw new InflateTruncatedError(`zlib stream truncated: ${message}`);
        throw new InflateSizeError(`corrupt zlib stream: ${message}`);
      }
      produced = room - this.state[0];
      consumed = to - from - this.state[1];
    } else {
      let result: { buffer: Buffer; engine: { bytesWritten: number } };
      try {
        result = inflateSync(source.subarray(from, to), { info: true, chunkSize: Math.max(64, room), maxOutputLength: room }) as unknown as typeof result;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'Z_BUF_ERROR') throw new InflateTruncatedError('zlib stream truncated', { cause: error });
        throw new InflateSizeError(code === 'ERR_BUFFER_TOO_LARGE' ? `object inflates past its declared ${size} bytes` : 'corrupt zlib stream', {
          cause: error,
        });
      }
      produced = result.buffer.byteLength;
      consumed = result.engine.bytesWritten;
      if (produced <= size) out.set(result.buffer, at);
    }
    if (produced > size) throw new InflateSizeError(`object inflates past its declared ${size} bytes`);
    if (produced !== size) throw new InflateSizeError(`object inflates to ${produced} bytes, declared ${size}`);
    return consumed;
  }
}
