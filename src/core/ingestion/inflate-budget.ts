import { createHash } from 'node:crypto';
import { createInflate } from 'node:zlib';
import { IngestionError } from '../errors.js';
import { objectHeader } from '../objects/tree-hash.js';
import { InflateSizeError, ObjectInflater } from './object-inflater.js';

/** Caps on inflated bytes while reading a pack: one object, and all objects together. */
export interface InflateLimits {
  /** Largest object (blob, tree, delta result) that may be inflated; default `maxTotalBytes`. */
  maxObjectBytes?: number;
  /** Sum of the inflated sizes of every object in the pack. */
  maxTotalBytes?: number;
}

/** Objects declaring more than this are hashed or probed as a stream, never held whole. */
export const STREAM_OBJECT_BYTES = 4 * 1024 * 1024;

/**
 * The pack's compressed size says nothing about what it inflates to (a 1.5 MB pack can hold
 * 1.5 GB of zeros). Every object's size is declared before its data (pack header, or a delta's
 * target size), so the budget refuses from the declaration, before anything is inflated:
 * FILE_TOO_LARGE when one object is over the limit, REPO_TOO_LARGE when the running total is.
 */
export class InflateBudget {
  private total = 0;
  private readonly maxObject: number;
  private readonly maxTotal: number;

  constructor(limits: InflateLimits = {}) {
    this.maxTotal = limits.maxTotalBytes ?? Number.POSITIVE_INFINITY;
    this.maxObject = Math.min(limits.maxObjectBytes ?? this.maxTotal, this.maxTotal);
  }

  get totalBytes(): number {
    return this.total;
  }

  /**
   * One object's declared size, checked on its own (a delta's own instructions, say). `where` is
   * a pack offset (named `offset <n>` in the error) or a description.
   */
  object(size: number, where: number | string): void {
    if (size > this.maxObject) {
      throw new IngestionError('FILE_TOO_LARGE', `an object declares ${size} bytes inflated, over the ${this.maxObject} byte limit`, {
        sizeBytes: size,
        limitBytes: this.maxObject,
        at: describe(where),
      });
    }
  }

  /** One object's declared size, checked on its own and counted towards the total. */
  admit(size: number, where: number | string): void {
    this.object(size, where);
    this.total += size;
    if (this.total > this.maxTotal) {
      throw new IngestionError('REPO_TOO_LARGE', `the pack inflates to more than ${this.maxTotal} bytes`, {
        inflatedBytes: this.total,
        limitBytes: this.maxTotal,
        at: describe(where),
      });
    }
  }
}

/** Offsets are formatted only when a refusal names one: tens of thousands of objects pass. */
function describe(where: number | string): string {
  return typeof where === 'number' ? `offset ${where}` : where;
}

export { InflateSizeError, InflateTruncatedError } from './object-inflater.js';

const shared = new ObjectInflater();

/**
 * Inflate the zlib stream starting at `input[0]` to exactly `size` bytes into a new buffer:
 * output beyond the declared size stops the inflater instead of growing a buffer. `consumed`
 * is how many compressed bytes the stream took.
 */
export function inflateExact(input: Uint8Array, size: number): { data: Buffer; consumed: number } {
  return shared.inflate(input, size);
}

/**
 * Inflate as a stream, handing each chunk to `onChunk` and keeping none: for hashing a large
 * object, or probing its first bytes (`onChunk` returns false to stop early, and `consumed` is
 * then unknown). Output beyond `size` is an error.
 */
export function inflateStreaming(input: Uint8Array, size: number, onChunk: (chunk: Buffer) => boolean | void): Promise<{ consumed?: number }> {
  return new Promise((resolve, reject) => {
    const inflater = createInflate();
    let seen = 0;
    let done = false;
    const finish = (error?: Error, consumed?: number): void => {
      if (done) return;
      done = true;
      if (error) reject(error);
      else resolve({ consumed });
    };
    inflater.on('data', (chunk: Buffer) => {
      if (done) return;
      seen += chunk.byteLength;
      if (seen > size) {
        inflater.destroy();
        finish(new InflateSizeError(`object inflates past its declared ${size} bytes`));
      } else if (onChunk(chunk) === false) {
        inflater.destroy();
        finish();
      }
    });
    inflater.on('error', (error) => finish(new InflateSizeError('corrupt zlib stream', { cause: error })));
    inflater.on('end', () =>
      seen === size ? finish(undefined, inflater.bytesWritten) : finish(new InflateSizeError(`object inflates to ${seen} bytes, declared ${size}`)),
    );
    inflater.end(input);
  });
}

/**
 * The git name of an object too large to hold, and its first `headBytes` bytes (enough for the
 * binary and LFS checks), inflating `input` as a stream: memory stays bounded by the chunk size.
 */
export async function nameStreaming(
  input: Uint8Array,
  type: string,
  size: number,
  headBytes = 8000,
): Promise<{ name: Buffer; first: Buffer; consumed: number }> {
  const hash = createHash('sha1').update(objectHeader(type, size));
  const head: Buffer[] = [];
  let kept = 0;
  const { consumed } = await inflateStreaming(input, size, (chunk) => {
    hash.update(chunk);
    if (kept < headBytes) {
      head.push(chunk.subarray(0, headBytes - kept));
      kept += Math.min(chunk.byteLength, headBytes - kept);
    }
  });
  return { name: hash.digest(), first: Buffer.concat(head), consumed: consumed! };
}
