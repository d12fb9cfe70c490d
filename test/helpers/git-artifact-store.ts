import { createHash } from 'node:crypto';
import type { ArtifactStore, StoredObject } from '../../src/core/ports.js';

/** An in-memory ArtifactStore that also records the order of writes. */
export class RecordingArtifactStore implements ArtifactStore {
  readonly objects = new Map<string, Uint8Array>();
  readonly writes: string[] = [];

  async get(key: string): Promise<StoredObject | undefined> {
    const body = this.objects.get(key);
    return body ? { body, etag: createHash('sha256').update(body).digest('hex') } : undefined;
  }
  async put(key: string, body: Uint8Array | string): Promise<string> {
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    this.objects.set(key, bytes);
    this.writes.push(key);
    return createHash('sha256').update(bytes).digest('hex');
  }
  async putIfAbsent(key: string, body: Uint8Array | string): Promise<boolean> {
    if (this.objects.has(key)) return false;
    await this.put(key, body);
    return true;
  }
  async putIfMatch(key: string, body: Uint8Array | string, etag: string): Promise<boolean> {
    if ((await this.get(key))?.etag !== etag) return false;
    await this.put(key, body);
    return true;
  }
  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }
  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
}
