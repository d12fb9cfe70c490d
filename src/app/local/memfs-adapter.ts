import { Volume } from 'memfs';
import type { FsLike } from '../../core/ports.js';
import { answeringProbe } from './fs-probe.js';

/** The parts of memfs's volume internals `keepFile` uses; checked at each call, never assumed. */
interface VolumeInternals {
  _core?: { getResolvedLinkOrThrow?(path: string): { getNode?(): { _setBuf?(buf: Buffer): void } } };
}

/**
 * A fresh in-memory file system typed as core's `FsLike` (which isomorphic-git accepts as its
 * `fs` client). The one place memfs is adapted; nothing else casts it.
 */
export function createMemoryFs(): FsLike & { volume: InstanceType<typeof Volume> } {
  const volume = new Volume();
  const promises = volume.promises as unknown as FsLike['promises'];
  return {
    promises: answeringProbe(promises),
    volume,
    /**
     * memfs copies what `writeFile` is given (and a file's buffer is otherwise private): the file is
     * created empty, then its node takes `data` as its buffer. Where memfs's internals are not as
     * expected (another version), the bytes are written, copied, as usual.
     */
    async keepFile(path: string, data: Uint8Array): Promise<void> {
      await promises.writeFile(path, new Uint8Array(0));
      const node = (volume as unknown as VolumeInternals)._core?.getResolvedLinkOrThrow?.(path)?.getNode?.();
      if (typeof node?._setBuf === 'function') node._setBuf(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      else await promises.writeFile(path, data);
    },
  };
}
