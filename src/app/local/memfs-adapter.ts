import { Volume } from 'memfs';
import type { FsLike } from '../../core/ports.js';
import { answeringProbe } from './fs-probe.js';

/**
 * A fresh in-memory file system typed as core's `FsLike` (which isomorphic-git accepts as its
 * `fs` client). The one place memfs is adapted; nothing else casts it.
 */
export function createMemoryFs(): FsLike & { volume: InstanceType<typeof Volume> } {
  const volume = new Volume();
  return { promises: answeringProbe(volume.promises as unknown as FsLike['promises']), volume };
}
