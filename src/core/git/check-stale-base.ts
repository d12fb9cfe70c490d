import type { RepoSource } from '../ports.js';

export interface StaleBaseReport {
  baseStale: boolean;
  originalBase: string;
  /** The base ref's head now; undefined when the ref no longer exists. */
  currentBase?: string;
  recommendedAction: 'NONE' | 'RERUN_FROM_CURRENT_BASE' | 'BASE_REF_GONE';
}

/**
 * Compare the recorded base SHA with the base ref's current head. Reports only:
 * the git boundary never rebases; the base-movement policy decides.
 */
export async function checkStaleBase(source: Pick<RepoSource, 'currentHead'>, baseRef: string, originalBase: string): Promise<StaleBaseReport> {
  const currentBase = await source.currentHead(baseRef);
  if (currentBase === undefined) return { baseStale: true, originalBase, recommendedAction: 'BASE_REF_GONE' };
  const baseStale = currentBase !== originalBase;
  return { baseStale, originalBase, currentBase, recommendedAction: baseStale ? 'RERUN_FROM_CURRENT_BASE' : 'NONE' };
}
