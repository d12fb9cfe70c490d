import type { RepoInfo } from './repo-source.js';
import type { ClonePlan } from './artifacts.js';
import type { IngestionPolicy } from './ingestion-policy.js';

const MIB = 1024 * 1024;

/** Commits fetched when the task needs history: enough for a recent regression, bounded. */
export const HISTORY_DEPTH = 50;

/** Repositories the provider reports over this size are fetched without blobs (`blob:none`). */
export const BLOBLESS_OVER_MB = 200;

/** Only the start of a long task text is searched for triggers; the patterns are linear anyway. */
const MAX_TRIGGER_TEXT = 20_000;

const DATE = /\b(?:19|20)\d{2}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])\b/;

/**
 * What in a task's text says it needs history: one list, each pattern bounded (no nested
 * quantifiers). `date` also sets `deepen-since`.
 */
export const HISTORY_TRIGGERS: readonly { name: string; pattern: RegExp; why: string }[] = [
  { name: 'regression', pattern: /\bregress(?:ion|ions|ed|es)?\b/i, why: 'the task speaks of a regression' },
  {
    name: 'since',
    pattern: /\b(?:broken|broke|fails|failing|slower|changed|works?|worked) since\b/i,
    why: 'the task says something changed since a point in time',
  },
  { name: 'revert', pattern: /\brevert(?:s|ed|ing)?\b/i, why: 'the task asks for a revert' },
  { name: 'blame', pattern: /\b(?:git )?blame\b/i, why: 'the task asks who or what changed a line' },
  { name: 'when-did', pattern: /\b(?:when did|which commit|what commit|introduced (?:in|by))\b/i, why: 'the task asks when something changed' },
  { name: 'commit-sha', pattern: /\b(?=[0-9a-f]{0,39}[0-9])(?=[0-9a-f]{0,39}[a-f])[0-9a-f]{7,40}\b/, why: 'the task names a commit' },
  { name: 'date', pattern: DATE, why: 'the task names a date' },
];

/** Which triggers the task text matches, and the earliest date it names (for `deepen-since`). */
export function historyNeeds(text: string): { triggers: string[]; since?: string } {
  const head = text.slice(0, MAX_TRIGGER_TEXT);
  const triggers = HISTORY_TRIGGERS.filter((t) => t.pattern.test(head)).map((t) => t.name);
  if (!triggers.includes('date')) return { triggers };
  const dates = [...head.matchAll(new RegExp(DATE.source, 'g'))].map((m) => m[0]).sort();
  return { triggers, since: `${dates[0]}T00:00:00Z` };
}

/**
 * Decide how to fetch, and say why. Default: depth 1, no checkout, objects in memory
 * (`shallow-object-backed`). A task whose text asks for history (`HISTORY_TRIGGERS`) gets
 * `deepened`: `HISTORY_DEPTH` commits, or every commit since the date it names. A repository
 * the provider reports over the blobless threshold is fetched with `blob:none` (`blobless`):
 * commits and trees only, each blob fetched when a file is read. "Sparse" stays a read scope,
 * not a smaller download. The byte cap comes from the policy's repository size limit and holds
 * for every later on-demand fetch too.
 */
export function planClone(options: { info: RepoInfo; policy: IngestionPolicy; paths?: string[]; taskText?: string }): ClonePlan {
  const { info, policy, paths } = options;
  const needs = historyNeeds(options.taskText ?? '');
  const wantsHistory = needs.triggers.length > 0;
  const bloblessOverMb = policy.bloblessOverMb ?? BLOBLESS_OVER_MB;
  const large = info.sizeKb !== undefined && info.sizeKb > bloblessOverMb * 1024;

  const reasons: string[] = [];
  if (wantsHistory) {
    const why = HISTORY_TRIGGERS.filter((t) => needs.triggers.includes(t.name)).map((t) => t.why);
    reasons.push(needs.since ? `history since ${needs.since}: ${why.join('; ')}` : `depth ${HISTORY_DEPTH}: ${why.join('; ')}`);
  } else {
    reasons.push('depth 1: the task does not ask for history');
  }
  reasons.push('no checkout: files are read lazily from the object store');
  if (info.sizeKb !== undefined) reasons.push(`provider reports ${info.sizeKb} KiB (limit ${policy.maxRepoSizeMb} MiB)`);
  else reasons.push('provider reports no size: the byte cap is the only size guard');
  if (large) reasons.push(`blob:none: over the ${bloblessOverMb} MiB blobless threshold; blobs are fetched for the files actually read`);
  const scoped = paths !== undefined && paths.length > 0;
  if (scoped) reasons.push(`read scope from the task's paths (${paths.length}); the whole commit is still fetched, reads are limited`);
  else reasons.push('no paths given: the read scope is the whole repository');
  return {
    strategy: wantsHistory ? 'deepened' : large ? 'blobless' : 'shallow-object-backed',
    depth: wantsHistory ? HISTORY_DEPTH : 1,
    ...(needs.since ? { deepenSince: needs.since } : {}),
    ...(large ? { filter: 'blob:none' as const } : {}),
    checkout: 'none',
    maxBytes: Math.max(1, Math.floor(policy.maxRepoSizeMb * MIB)),
    readScope: { mode: scoped ? 'paths' : 'all', patterns: scoped ? [...paths] : [] },
    ...(wantsHistory ? { historyTriggers: needs.triggers } : {}),
    reasons,
  };
}
