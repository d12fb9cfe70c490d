/**
 * The goals the issues set, and whether a record meets them (issue 2: ingestion, issue 3: map
 * and search, issue 8: report and reliability). Rows without a goal get `null`.
 */

/** The fields of a benchmark record a goal looks at. */
export interface JudgedRecord {
  name: string;
  size: number | string;
  value: number;
  ratio?: number;
  note?: string;
}

interface Goal {
  match: (r: JudgedRecord) => boolean;
  goal: string;
  met: (r: JudgedRecord) => boolean | null;
}

const finite = (n: number | undefined): n is number => typeof n === 'number' && Number.isFinite(n);

export const GOALS: Goal[] = [
  { match: (r) => r.name === 'ingestion to READY (fetch + scan)' && r.size === 10_000, goal: '≤ 1.5x native `git clone --depth 1` at 10k files (issue 2)', met: (r) => (finite(r.ratio) ? r.ratio <= 1.5 : null) },
  { match: (r) => r.name === 'repomap.build.noSymbols' && r.size === 100_000, goal: '< 10 s at 100k files (issue 3)', met: (r) => (finite(r.value) ? r.value < 10_000 : null) },
  { match: (r) => r.name === 'repomap.build.peakHeap' && r.size === 100_000, goal: '≤ 1.5 GB heap at 100k files (issue 3)', met: (r) => (finite(r.value) ? r.value <= 1536 : null) },
  { match: (r) => r.name === 'repomap.cache.hit', goal: 'cached reuse < 200 ms (issue 3)', met: (r) => (finite(r.value) ? r.value < 200 : null) },
  { match: (r) => r.name === 'targets.keywordSearch', goal: '≤ 2x ripgrep (issue 3)', met: (r) => (finite(r.ratio) ? r.ratio <= 2 : null) },
  { match: (r) => r.name === 'webhook.ack.p99', goal: 'p50/p99 reported (issue 8); under GitHub\'s 10 s delivery timeout', met: (r) => (finite(r.value) ? r.value < 10_000 : null) },
  { match: (r) => r.name === 'hostile.manyFiles.timeToRefusal', goal: 'refused: FILE_COUNT_EXCEEDED (issue 8)', met: (r) => (r.note ?? '').startsWith('refused:') },
  { match: (r) => r.name === 'hostile.deepChain.timeToRefusal', goal: 'refused: HOSTILE_TREE_ENTRY TOO_DEEP (issue 8)', met: (r) => (r.note ?? '').startsWith('refused:') },
  { match: (r) => /^e2e\.run\.[a-z]+\.wall$/.test(r.name), goal: 'run --publish completes (issue 8 reports the time)', met: (r) => (finite(r.value) ? /exit 0, COMPLETED/.test(r.note ?? '') : false) },
];

export function judge(r: JudgedRecord): { goal: string | null; met: boolean | null } {
  const g = GOALS.find((x) => x.match(r));
  return g ? { goal: g.goal, met: g.met(r) } : { goal: null, met: null };
}

