import { IngestionError } from '../errors.js';
import type { FsLike } from '../ports.js';
import type { RepoSource } from './repo-source.js';
import type { MissingObjects } from '../workspace/workspace.js';

/** The deepest history a run may ask for, whatever the model wants. */
export const MAX_HISTORY_DEPTH = 500;
/** How many times a run may deepen on demand. */
export const MAX_DEEPENS = 3;

/**
 * What a partial fetch left out, fetched when needed: the blobs of a `blob:none` fetch (for the
 * files actually read) and deeper history (for a model asking for more commits). Every transfer
 * draws on what is left of the fetch's byte cap, so on-demand reads cannot exceed it either.
 */
export function onDemandObjects(options: {
  source: RepoSource;
  fs: FsLike;
  gitdir: string;
  ref: string;
  commitSha: string;
  /** The ingestion byte cap and what the first fetch already used. */
  maxBytes: number;
  usedBytes: number;
  /** Largest blob accepted (the policy's file size limit). */
  maxObjectBytes: number;
  blobless: boolean;
  depth: number;
}): MissingObjects {
  const { source, fs, gitdir } = options;
  let left = options.maxBytes - options.usedBytes;
  let depth = options.depth;
  let deepens = 0;
  const spend = (bytes: number): void => {
    left -= bytes;
  };
  const refuseOverCap = (): void => {
    if (left <= 0)
      throw new IngestionError('REPO_TOO_LARGE', `the ${options.maxBytes} byte cap is spent; nothing more is fetched`, { maxBytes: options.maxBytes });
  };
  const fetchBlobs = source.fetchBlobs?.bind(source);
  const deepenSource = source.deepen?.bind(source);
  return {
    historyDepth: () => depth,
    ...(options.blobless && fetchBlobs
      ? {
          blobs: async (oids: string[]) => {
            refuseOverCap();
            spend((await fetchBlobs({ fs, gitdir, oids, maxBytes: left, maxObjectBytes: options.maxObjectBytes })).bytes);
          },
        }
      : {}),
    ...(deepenSource
      ? {
          deepen: async (wanted: number) => {
            const target = Math.min(Math.max(wanted, depth), MAX_HISTORY_DEPTH);
            if (target <= depth) return { depth, bytes: 0, refused: `history is already ${depth} commits deep (at most ${MAX_HISTORY_DEPTH})` };
            if (deepens >= MAX_DEEPENS) return { depth, bytes: 0, refused: `history was deepened ${MAX_DEEPENS} times already in this run` };
            refuseOverCap();
            deepens++;
            const result = await deepenSource({
              fs,
              gitdir,
              ref: options.ref,
              commitSha: options.commitSha,
              depth: target,
              maxBytes: left,
              ...(options.blobless ? { filter: 'blob:none' as const } : {}),
            });
            spend(result.bytes);
            depth = result.depth;
            return { depth, bytes: result.bytes };
          },
        }
      : {}),
  };
}
