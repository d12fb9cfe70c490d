import { Volume } from 'memfs';
import type { FsLike } from '../../core/ports.js';

/**
 * A fresh in-memory file system typed as core's `FsLike` (which isomorphic-git accepts as its
 * `fs` client). The one place memfs is adapted; nothing else casts it.
 */
export function createMemoryFs(): FsLike & { volume: InstanceType<typeof Volume> } {
  const volume = new Volume();
  const promises = volume.promises as unknown as FsLike['promises'];
  return { promises, volume };
}
