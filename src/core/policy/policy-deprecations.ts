import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { formatPath, sortProblems, type DocumentProblem } from './document-problem.js';

/** A key still read so old policy files keep working, and what to write instead for the value it has. */
interface DeprecatedKey {
  path: readonly string[];
  /** The lines that replace `key: value` in the same mapping. */
  replacement(value: unknown): string;
}

/** The one list of deprecated policy keys; `policy check` warns for each one a file sets. */
export const DEPRECATED_POLICY_KEYS: readonly DeprecatedKey[] = [
  { path: ['ingestion', 'allowSubmodules'], replacement: (value) => `submodules: ${value === false ? 'block' : 'opaque'}` },
];

/**
 * Warnings for deprecated keys a valid policy sets, each at the key's line with the line to write
 * instead (as a migration would). Empty for a file that does not parse: its errors come first.
 */
export function deprecationWarnings(text: string, file: string): DocumentProblem[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, version: '1.2' });
  if (doc.errors.length > 0) return [];
  const out: DocumentProblem[] = [];
  for (const deprecated of DEPRECATED_POLICY_KEYS) {
    let node: unknown = doc.contents;
    for (const segment of deprecated.path.slice(0, -1)) node = isMap(node) ? node.get(segment, true) : undefined;
    const key = deprecated.path[deprecated.path.length - 1];
    const pair = isMap(node) ? node.items.find((p) => isScalar(p.key) && String(p.key.value) === key) : undefined;
    if (!pair || !isScalar(pair.key) || !pair.key.range) continue;
    const value = isScalar(pair.value) ? pair.value.value : undefined;
    const { line, col } = lineCounter.linePos(pair.key.range[0]);
    out.push({
      file,
      line,
      column: col,
      path: formatPath(deprecated.path),
      type: 'DEPRECATED',
      message: `deprecated, still read; write \`${deprecated.replacement(value)}\` instead`,
    });
  }
  return sortProblems(out);
}
