import type { FsLike } from '../../core/ports.js';

/**
 * isomorphic-git wraps its `fs` argument on every call and, to tell a promise API from a
 * callback one, calls `readFile()` with no path twice per call. memfs and node both answer that
 * probe by building a TypeError with a (source-mapped) stack: over the tens of thousands of
 * object reads of a 10k-file run that was seconds. The probe gets one prepared rejection.
 */
const PROBE_ANSWER = Object.assign(new TypeError('a path is required'), { code: 'ERR_INVALID_ARG_TYPE' });

/** `promises` with the path-less probe answered here; every other call goes to `promises` as it is. */
export function answeringProbe(promises: FsLike['promises']): FsLike['promises'] {
  const readFile = promises.readFile.bind(promises);
  return Object.assign(Object.create(promises) as FsLike['promises'], {
    readFile: ((path, options) => (path === undefined ? Promise.reject(PROBE_ANSWER) : readFile(path, options))) as FsLike['promises']['readFile'],
  });
}
