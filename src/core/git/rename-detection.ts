import type { SideFile, TreeSide } from './tree-side.js';

/** Git's MAX_SCORE and default minimum rename score (50%). */
const MAX_SCORE = 60000;
const MIN_SCORE = 30000;
const EMPTY_BLOB = 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391';

export interface RenamePair {
  from: string;
  to: string;
  /** 0..100, as git's R<score>. */
  similarity: number;
}

const kind = (mode: string) => (mode === '120000' ? 'link' : mode === '160000' ? 'gitlink' : 'file');

/**
 * Pair deleted and added paths into renames the way `git status` and `git diff -M` do:
 * exact matches first (same blob, preferring the same basename), then files at least 50%
 * similar by git's chunk-hash estimate (diffcore-delta). Empty files are never paired.
 */
export async function detectRenames(
  deleted: string[],
  added: string[],
  from: { files: Map<string, SideFile>; read: TreeSide['read'] },
  to: { files: Map<string, SideFile>; read: TreeSide['read'] },
): Promise<RenamePair[]> {
  const pairs: RenamePair[] = [];
  const usedSrc = new Set<string>();
  const usedDst = new Set<string>();
  const base = (p: string) => p.slice(p.lastIndexOf('/') + 1);

  for (const dst of added) {
    const d = to.files.get(dst)!;
    if (d.oid === EMPTY_BLOB) continue;
    const candidates = deleted.filter((s) => !usedSrc.has(s) && from.files.get(s)!.oid === d.oid && kind(from.files.get(s)!.mode) === kind(d.mode));
    if (candidates.length === 0) continue;
    const src = candidates.find((s) => base(s) === base(dst)) ?? candidates[0];
    usedSrc.add(src);
    usedDst.add(dst);
    pairs.push({ from: src, to: dst, similarity: 100 });
  }

  const srcs = deleted.filter((s) => !usedSrc.has(s) && from.files.get(s)!.mode.startsWith('100') && from.files.get(s)!.oid !== EMPTY_BLOB);
  const dsts = added.filter((d) => !usedDst.has(d) && to.files.get(d)!.mode.startsWith('100') && to.files.get(d)!.oid !== EMPTY_BLOB);
  if (srcs.length > 0 && dsts.length > 0 && srcs.length * dsts.length <= 250_000) {
    const srcBytes = new Map<string, Uint8Array>();
    for (const s of srcs) srcBytes.set(s, await from.read(s));
    const scored: { src: string; dst: string; score: number }[] = [];
    for (const dst of dsts) {
      const dBytes = await to.read(dst);
      for (const src of srcs) {
        const score = similarityScore(srcBytes.get(src)!, dBytes);
        if (score >= MIN_SCORE) scored.push({ src, dst, score });
      }
    }
    scored.sort((a, b) => b.score - a.score);
    for (const s of scored) {
      if (usedSrc.has(s.src) || usedDst.has(s.dst)) continue;
      usedSrc.add(s.src);
      usedDst.add(s.dst);
      pairs.push({ from: s.src, to: s.dst, similarity: Math.floor((s.score * 100) / MAX_SCORE) });
    }
  }
  return pairs;
}

/** Git's estimate_similarity: bytes of source chunks found in the destination over the larger size. */
export function similarityScore(src: Uint8Array, dst: Uint8Array): number {
  const maxSize = Math.max(src.length, dst.length);
  const baseSize = Math.min(src.length, dst.length);
  if (maxSize === 0) return MAX_SCORE;
  if (baseSize * (MAX_SCORE - MIN_SCORE) < (maxSize - baseSize) * MAX_SCORE) return 0;
  const a = chunkCounts(src);
  const b = chunkCounts(dst);
  let copied = 0;
  for (const [key, count] of a) copied += Math.min(count, b.get(key) ?? 0);
  return Math.floor((copied * MAX_SCORE) / maxSize);
}

/** Chunks end at a newline or after 64 bytes; a CR before LF is ignored in text. */
function chunkCounts(bytes: Uint8Array): Map<string, number> {
  const counts = new Map<string, number>();
  const text = !bytes.subarray(0, 8000).includes(0);
  let chunk: number[] = [];
  const flush = () => {
    if (chunk.length === 0) return;
    const key = String.fromCharCode(...chunk);
    counts.set(key, (counts.get(key) ?? 0) + chunk.length);
    chunk = [];
  };
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i];
    if (text && c === 13 && bytes[i + 1] === 10) continue;
    chunk.push(c);
    if (c === 10 || chunk.length >= 64) flush();
  }
  flush();
  return counts;
}
