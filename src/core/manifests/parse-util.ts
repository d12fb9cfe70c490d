import { XMLParser } from 'fast-xml-parser';
import type { ManifestRecord } from './manifest-schema.js';

/** What a parser extracts; path and evidence are added by the caller. */
export type ParsedManifest = Omit<ManifestRecord, 'path' | 'evidenceRef' | 'kind'>;

/** One parser per manifest kind: the file's text and its repository path (for `versionAt`). */
export type ManifestParser = (text: string, path: string) => ParsedManifest;

export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined);
export const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined || v === null ? [] : Array.isArray(v) ? v : [v]);
export const record = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** The XML reader for poms and project files: attributes as `@name`, text never coerced. */
export const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@', parseTagValue: false, trimValues: true });

/** 1-based line numbers of offsets in one text, each found by binary search over the line starts. */
export function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}
