import { sha256Hex } from '../util/digest.js';
import type { EvidenceRecord } from './repo-map-schema.js';

/**
 * Collects evidence records with stable ids: the id is a digest of the record itself, so the
 * same fact on the same commit always gets the same id, whatever the order of discovery.
 */
export class EvidenceCollector {
  private readonly records = new Map<string, EvidenceRecord>();

  /** Evidence for content that was read: `oid` is the blob SHA. */
  fromBlob(path: string, type: EvidenceRecord['type'], extractor: string, oid: string | undefined): string {
    return this.add(path, type, extractor, oid ? `git:${oid}` : `sha256:${sha256Hex(`${path}\u0000${extractor}`)}`);
  }

  /** Evidence for a path-only rule: the digest covers the path and the rule. */
  fromPattern(path: string, extractor: string, rule: string): string {
    return this.add(path, 'file_pattern', extractor, `sha256:${sha256Hex(`${path}\u0000${rule}`)}`);
  }

  add(path: string, type: EvidenceRecord['type'], extractor: string, digest: string): string {
    const id = `ev-${sha256Hex(`${type}\u0000${path}\u0000${extractor}\u0000${digest}`).slice(0, 12)}`;
    if (!this.records.has(id)) this.records.set(id, { id, path, type, extractor, digest });
    return id;
  }

  list(): EvidenceRecord[] {
    return [...this.records.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }
}
