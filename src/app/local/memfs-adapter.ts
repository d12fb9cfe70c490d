import { Volume } from 'memfs';
import type { FsLike } from '../../core/ports.js';

/**
 * isomorphic-git wraps its `fs` argument on every call and, to tell a promise API from a
 * callback one, calls `readFile()` with no path twice per call. memfs answers that probe by
 * building a TypeError with a source-mapped stack: over the tens of thousands of object reads
 * of a 10k-file run that was seconds. The probe gets one prepared rejection instead.
 */
const PROBE_ANSWER = Object.assign(new TypeError('a path is required'), { code: 'ERR_INVALID_ARG_TYPE' });

/**
 * A fresh in-memory file system typed as core's `FsLike` (which isomorphic-git accepts as its
 * `fs` client). The one place memfs is adapted; nothing else casts it.
 */
export function createMemoryFs(): FsLike & { volume: InstanceType<typeof Volume> } {
  const volume = new Volume();
  const memfs = volume.promises as unknown as FsLike['promises'];
  const readFile = memfs.readFile.bind(memfs);
  const promises: FsLike['promises'] = Object.assign(Object.create(memfs) as FsLike['promises'], {
    readFile: ((path, options) => (path === undefined ? Promise.reject(PROBE_ANSWER) : readFile(path, options))) as FsLike['promises']['readFile'],
  });
  return { promises, volume };
}
