import { diffArrays } from 'diff';

/** One run of lines: kept (neither flag), removed from the old side, or added on the new side. */
export interface LineRun {
  value: string[];
  added?: boolean;
  removed?: boolean;
}

/**
 * Most edits one Myers search may spend before giving up: its cost grows with the square of
 * the edit count, so an unbounded search on a 1 MB file with every line changed takes minutes.
 */
export const MAX_EDIT_LENGTH = 200;
/** Total squared edit length all searches of one diff may spend (a few hundred ms at most). */
const SEARCH_BUDGET = 4 * MAX_EDIT_LENGTH * MAX_EDIT_LENGTH;

/**
 * Line diff of two files in near-linear time. The common head and tail are kept; the middle is
 * diffed exactly while the edit script stays within `MAX_EDIT_LENGTH`; otherwise it is split at
 * lines that occur once on each side (in order) and each gap is diffed the same way, and a gap
 * still too costly is replaced whole. The result is always a valid edit script, so the patch
 * applies; it is minimal for small edits and coarser only where the files really diverge.
 */
export function diffLineArrays(a: readonly string[], b: readonly string[]): LineRun[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const runs: LineRun[] = [];
  const push = (value: string[], kind: 'same' | 'removed' | 'added') => {
    if (value.length === 0) return;
    const last = runs[runs.length - 1];
    const same = (r: LineRun) => (kind === 'removed' ? r.removed === true : kind === 'added' ? r.added === true : !r.added && !r.removed);
    if (last && same(last)) last.value.push(...value);
    else runs.push(kind === 'same' ? { value } : kind === 'removed' ? { value, removed: true } : { value, added: true });
  };
  push(a.slice(0, head), 'same');
  const budget = { left: SEARCH_BUDGET };
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const exact = search(midA, midB, budget);
  if (exact) for (const r of exact) push(r.value, r.removed ? 'removed' : r.added ? 'added' : 'same');
  else {
    let ai = 0;
    let bi = 0;
    for (const [x, y] of uniqueAnchors(midA, midB)) {
      gap(midA.slice(ai, x), midB.slice(bi, y), budget, push);
      push([midA[x]], 'same');
      ai = x + 1;
      bi = y + 1;
    }
    gap(midA.slice(ai), midB.slice(bi), budget, push);
  }
  push(a.slice(a.length - tail), 'same');
  return reorder(runs);
}

/** A bounded Myers search; undefined when it would exceed the edit bound or the remaining budget. */
function search(a: string[], b: string[], budget: { left: number }): LineRun[] | undefined {
  if (a.length === 0 || b.length === 0) return [...(a.length ? [{ value: a, removed: true }] : []), ...(b.length ? [{ value: b, added: true }] : [])];
  const bound = Math.min(MAX_EDIT_LENGTH, a.length + b.length, Math.floor(Math.sqrt(Math.max(0, budget.left))));
  if (bound < Math.abs(a.length - b.length)) return undefined;
  const result = diffArrays(a, b, { maxEditLength: bound });
  budget.left -= bound * bound;
  return result;
}

function gap(a: string[], b: string[], budget: { left: number }, push: (value: string[], kind: 'same' | 'removed' | 'added') => void): void {
  const found = search(a, b, budget);
  if (found) for (const r of found) push(r.value, r.removed ? 'removed' : r.added ? 'added' : 'same');
  else {
    push(a, 'removed');
    push(b, 'added');
  }
}

/** Pairs of positions of lines that occur exactly once on each side, longest increasing chain (patience diff anchors). */
function uniqueAnchors(a: string[], b: string[]): [number, number][] {
  const count = new Map<string, { a: number; b: number; ai: number; bi: number }>();
  a.forEach((line, i) => {
    const c = count.get(line);
    if (c) c.a++;
    else count.set(line, { a: 1, b: 0, ai: i, bi: -1 });
  });
  b.forEach((line, i) => {
    const c = count.get(line);
    if (c) {
      c.b++;
      c.bi = i;
    }
  });
  const pairs: [number, number][] = [];
  for (const c of count.values()) if (c.a === 1 && c.b === 1) pairs.push([c.ai, c.bi]);
  pairs.sort((p, q) => p[0] - q[0]);
  // Longest increasing subsequence of the b positions (patience sorting), O(k log k).
  const tails: number[] = [];
  const prev = new Int32Array(pairs.length).fill(-1);
  pairs.forEach(([, y], i) => {
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (pairs[tails[mid]][1] < y) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
  });
  const chain: [number, number][] = [];
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) chain.push(pairs[i]);
  return chain.reverse();
}

/** Within each changed block, removals before additions (as diff tools print them). */
function reorder(runs: LineRun[]): LineRun[] {
  const out: LineRun[] = [];
  for (let i = 0; i < runs.length; i++) {
    const r = runs[i];
    const next = runs[i + 1];
    if (r.added && next?.removed) {
      out.push(next, r);
      i++;
    } else out.push(r);
  }
  return out;
}
