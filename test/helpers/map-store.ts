import { createHash } from 'node:crypto';
import type { ArtifactStore, StoredObject } from '../../src/core/ports.js';

/** An ArtifactStore in a Map, with sha256 etags and the conditional writes S3 has. */
export class MapStore implements ArtifactStore {
  readonly objects = new Map<string, Uint8Array>();
  private tag(body: Uint8Array): string {
    return createHash('sha256').update(body).digest('hex');
  }
  async get(key: string): Promise<StoredObject | undefined> {
    const body = this.objects.get(key);
    return body && { body, etag: this.tag(body) };
  }
  async put(key: string, body: Uint8Array | string): Promise<string> {
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    this.objects.set(key, bytes);
    return this.tag(bytes);
  }
  async putIfAbsent(key: string, body: Uint8Array | string): Promise<boolean> {
    if (this.objects.has(key)) return false;
    await this.put(key, body);
    return true;
  }
  async putIfMatch(key: string, body: Uint8Array | string, etag: string): Promise<boolean> {
    const current = await this.get(key);
    if (!current || current.etag !== etag) return false;
    await this.put(key, body);
    return true;
  }
  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }
  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
  text(key: string): string | undefined {
    const body = this.objects.get(key);
    return body && new TextDecoder().decode(body);
  }
}
