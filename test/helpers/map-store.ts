import { createHash } from 'node:crypto';
import type { ArtifactStore, StoredObject } from '../../src/core/ports.js';

/**
 * An ArtifactStore in a Map, with the conditional writes S3 has. Etags are sha256 of the body,
 * taken once per write; `etag` replaces that (a benchmark wants a store that costs next to nothing).
 */
export class MapStore implements ArtifactStore {
  readonly objects = new Map<string, Uint8Array>();
  private readonly etags = new Map<string, string>();
  constructor(private readonly etag: (body: Uint8Array) => string = (body) => createHash('sha256').update(body).digest('hex')) {}
  async get(key: string): Promise<StoredObject | undefined> {
    const body = this.objects.get(key);
    return body && { body, etag: this.etags.get(key) ?? this.etag(body) };
  }
  async put(key: string, body: Uint8Array | string): Promise<string> {
    const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
    const etag = this.etag(bytes);
    this.objects.set(key, bytes);
    this.etags.set(key, etag);
    return etag;
  }
  async putIfAbsent(key: string, body: Uint8Array | string): Promise<boolean> {
    if (this.objects.has(key)) return false;
    await this.put(key, body);
    return true;
  }
  async putIfMatch(key: string, body: Uint8Array | string, etag: string): Promise<boolean> {
    // Checked and written in one step, as S3 does: no other call runs between the two.
    const stored = this.objects.get(key);
    if (!stored || (this.etags.get(key) ?? this.etag(stored)) !== etag) return false;
    await this.put(key, body);
    return true;
  }
  async delete(key: string): Promise<void> {
    this.objects.delete(key);
    this.etags.delete(key);
  }
  async list(prefix: string): Promise<string[]> {
    return [...this.objects.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
  text(key: string): string | undefined {
    const body = this.objects.get(key);
    return body && new TextDecoder().decode(body);
  }
}
