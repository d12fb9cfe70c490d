import type { ArtifactStore, PutOptions, StoredObject } from '../../core/ports.js';

/**
 * An ArtifactStore that tells `onCreated` about every object it wrote, after the write
 * succeeded: the in-process stand-in for the bucket's ObjectCreated notifications. A
 * conditional write that wrote nothing notifies nobody, as on S3.
 */
export class NotifyingStore implements ArtifactStore {
  constructor(
    private readonly inner: ArtifactStore,
    private readonly onCreated: (key: string) => void,
  ) {}

  get(key: string): Promise<StoredObject | undefined> {
    return this.inner.get(key);
  }

  async put(key: string, body: Uint8Array | string, options?: PutOptions): Promise<string> {
    const etag = await this.inner.put(key, body, options);
    this.onCreated(key);
    return etag;
  }

  async putIfAbsent(key: string, body: Uint8Array | string, options?: PutOptions): Promise<boolean> {
    const written = await this.inner.putIfAbsent(key, body, options);
    if (written) this.onCreated(key);
    return written;
  }

  async putIfMatch(key: string, body: Uint8Array | string, etag: string, options?: PutOptions): Promise<boolean> {
    const written = await this.inner.putIfMatch(key, body, etag, options);
    if (written) this.onCreated(key);
    return written;
  }

  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }

  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
}
