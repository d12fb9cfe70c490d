import { createTwoFilesPatch } from 'diff';
import { lockfileKindOf } from '../src/core/policy/lockfiles.js';

/** How one case's published change compares with the human commit. */
export interface CaseComparison {
  /** Files the human changed (added, edited or deleted), lockfiles included. */
  humanChanged: string[];
  /** Files our published commit changed. */
  ourChanged: string[];
  /** Human-changed non-lockfile files we also changed, over all human-changed non-lockfile files. */
  recall: { hit: number; of: number };
  /** Our changed files the human also changed, over all our changed files. */
  precision: { hit: number; of: number };
  /** Files we changed that the human left alone. */
  wrongExtra: string[];
  /** Human-changed non-lockfile files we did not change. */
  missed: string[];
  /** Files both changed: byte-identical ones, and the others with the first lines of a diff ours → human's. */
  identical: string[];
  different: { path: string; diff: string }[];
}

const isLockfile = (path: string) => lockfileKindOf(path.slice(path.lastIndexOf('/') + 1)) !== undefined;
const same = (a: Buffer | undefined, b: Buffer | undefined) => (a === undefined ? b === undefined : b !== undefined && a.equals(b));

/** The paths whose content differs between two trees (a path absent on one side counts). */
export function changedPaths(from: ReadonlyMap<string, Buffer>, to: ReadonlyMap<string, Buffer>): string[] {
  const paths = new Set([...from.keys(), ...to.keys()]);
  return [...paths].filter((p) => !same(from.get(p), to.get(p))).sort();
}

/** A unified diff of ours against the human's, cut to `maxLines` lines. */
export function shortDiff(path: string, ours: Buffer | undefined, human: Buffer | undefined, maxLines = 12): string {
  const patch = createTwoFilesPatch(`ours/${path}`, `human/${path}`, ours?.toString('utf8') ?? '', human?.toString('utf8') ?? '', '', '', { context: 1 });
  const lines = patch.split('\n').filter((l) => !l.startsWith('====') && l !== '\\ No newline at end of file' && l !== '');
  const body = lines.slice(2);
  return [...lines.slice(0, 2), ...body.slice(0, maxLines), ...(body.length > maxLines ? [`… ${body.length - maxLines} more lines`] : [])].join('\n');
}

/**
 * Compares the published tree with the human commit. `ours` holds our content of every path we
 * changed (undefined: deleted); lockfiles count for precision but never for recall, because a
 * recipe reports the lockfile's refresh command instead of editing it.
 */
export function compareCase(
  before: ReadonlyMap<string, Buffer>,
  after: ReadonlyMap<string, Buffer>,
  ourChanged: readonly string[],
  ours: ReadonlyMap<string, Buffer | undefined>,
): CaseComparison {
  const humanChanged = changedPaths(before, after);
  const human = new Set(humanChanged);
  const humanNeeded = humanChanged.filter((p) => !isLockfile(p));
  const mine = new Set(ourChanged);
  const shared = ourChanged.filter((p) => human.has(p));
  const identical = shared.filter((p) => same(ours.get(p), after.get(p)));
  return {
    humanChanged,
    ourChanged: [...ourChanged].sort(),
    recall: { hit: humanNeeded.filter((p) => mine.has(p)).length, of: humanNeeded.length },
    precision: { hit: shared.length, of: ourChanged.length },
    wrongExtra: ourChanged.filter((p) => !human.has(p)).sort(),
    missed: humanNeeded.filter((p) => !mine.has(p)),
    identical,
    different: shared.filter((p) => !identical.includes(p)).map((p) => ({ path: p, diff: shortDiff(p, ours.get(p), after.get(p)) })),
  };
}
