/**
 * The goals the issues set, and whether a record meets them. Ratios where a peer runs side by
 * side in the same run (native git, ripgrep, the parser alone, ingestion + map), absolute figures
 * only where there is no peer. A change that weakens a goal says so in its commit message.
 *
 * Every goal is listed in results.md even when no record matched it (a benchmark that was
 * skipped or failed): a goal is never dropped silently. Rows without a goal get `null`.
 */

/** The fields of a benchmark record a goal looks at. */
export interface JudgedRecord {
  name: string;
  size: number | string;
  value: number;
  ratio?: number;
  note?: string;
}

export interface Goal {
  /** Short stable id, shown in the goals table. */
  id: string;
  match: (r: JudgedRecord) => boolean;
  goal: string;
  met: (r: JudgedRecord) => boolean | null;
  /** Records this goal expects in a full run (a missing one is reported as "not measured"). */
  expected: string;
}

const finite = (n: number | undefined): n is number => typeof n === 'number' && Number.isFinite(n);
const ratioAtMost = (limit: number) => (r: JudgedRecord) => (finite(r.ratio) ? r.ratio <= limit : null);
const valueAtMost = (limit: number) => (r: JudgedRecord) => (finite(r.value) ? r.value <= limit : null);
const refused = (r: JudgedRecord) => (r.note ?? '').startsWith('refused:');

/** The tree-sitter grammars whose tag extraction has a throughput goal. */
const GRAMMARS = ['java', 'typescript', 'tsx', 'javascript', 'python', 'go'];

export const GOALS: Goal[] = [
  // Ingestion (issue 17): the peer is native `git clone --depth 1 --no-checkout` from the same server.
  {
    id: 'ingest-10k',
    match: (r) => r.name === 'ingestion vs no-checkout clone' && r.size === 10_000,
    goal: '≤ 1.5x native `git clone --depth 1 --no-checkout` (issue 17)',
    met: ratioAtMost(1.5),
    expected: 'ingestion vs no-checkout clone at 10000 files',
  },
  {
    id: 'ingest-50k',
    match: (r) => r.name === 'ingestion vs no-checkout clone' && r.size === 50_000,
    goal: '≤ 1.5x native `git clone --depth 1 --no-checkout` (issue 17)',
    met: ratioAtMost(1.5),
    expected: 'ingestion vs no-checkout clone at 50000 files',
  },
  {
    id: 'ingest-rss-10k',
    match: (r) => r.name === 'ingestion peak RSS above baseline vs pack size' && r.size === 10_000,
    goal: 'peak RSS ≤ 4x pack size + runtime baseline (issue 17)',
    met: ratioAtMost(4),
    expected: 'ingestion peak RSS above baseline vs pack size at 10000 files',
  },
  {
    id: 'ingest-rss-50k',
    match: (r) => r.name === 'ingestion peak RSS above baseline vs pack size' && r.size === 50_000,
    goal: 'peak RSS ≤ 4x pack size + runtime baseline (issue 17)',
    met: ratioAtMost(4),
    expected: 'ingestion peak RSS above baseline vs pack size at 50000 files',
  },
  // Symbols (issue 17): an absolute throughput, the same corpus for every grammar.
  ...GRAMMARS.map((g): Goal => ({
    id: `tags-${g}`,
    match: (r) => r.name === `syntax.extractTags.${g}`,
    goal: '≥ 3 MB/s (issue 17)',
    met: (r) => (finite(r.value) ? r.value >= 3 : null),
    expected: `syntax.extractTags.${g}`,
  })),
  // Spend accounting (issue 40): its own CPU per model call, the store round trips measured apart.
  {
    id: 'spend-cpu-p99',
    match: (r) => r.name === 'spend.accounting.cpuPerCall.p99',
    goal: '≤ 1 ms p99 CPU per model call (issue 40)',
    met: valueAtMost(1),
    expected: 'spend.accounting.cpuPerCall.p99',
  },
  // Webhook acknowledgement (issue 17): the stand-in answers each GitHub call after a realistic latency.
  {
    id: 'ack-p99',
    match: (r) => /^webhook\.ack\.([a-z-]+\.)?p99$/.test(r.name),
    goal: 'p99 ≤ 50 ms with GitHub calls at a realistic latency (issue 17)',
    met: valueAtMost(50),
    expected: 'webhook.ack.p99 and webhook.ack.<kind>.p99 for every event kind',
  },
  // End to end (issue 17): the peer is ingestion + map of the same repository in the same run.
  {
    id: 'e2e-10k',
    match: (r) => r.name === 'e2e.run.generated.wall',
    goal: '≤ 3x ingestion + map of the same repository (issue 17)',
    met: (r) => (/exit 0, COMPLETED/.test(r.note ?? '') ? ratioAtMost(3)(r) : false),
    expected: 'e2e.run.generated.wall',
  },
  {
    id: 'e2e-demo',
    match: (r) => r.name === 'e2e.run.demo.wall',
    goal: 'run --publish completes (issue 8 reports the time)',
    met: (r) => (finite(r.value) ? /exit 0, COMPLETED/.test(r.note ?? '') : false),
    expected: 'e2e.run.demo.wall',
  },
  // Real repositories (issue 17): skipped, never failed, when they have not been prepared.
  {
    id: 'real-map',
    match: (r) => /^real\.[\w.-]+\.map$/.test(r.name),
    goal: 'map ≤ 1x ingestion of the same repository (issue 17)',
    met: ratioAtMost(1),
    expected: 'real.<repository>.map for each prepared repository',
  },
  {
    id: 'real-ingest',
    match: (r) => /^real\.[\w.-]+\.cliIngest$/.test(r.name),
    goal: 'CLI `ingest` ≤ 1.5x native `git clone --depth 1 --no-checkout` (issue 17)',
    met: ratioAtMost(1.5),
    expected: 'real.<repository>.cliIngest for each prepared repository',
  },
  // Repository map and search (issue 3).
  {
    id: 'map-100k',
    match: (r) => r.name === 'repomap.build.noSymbols' && r.size === 100_000,
    goal: '< 10 s at 100k files (issue 3)',
    met: (r) => (finite(r.value) ? r.value < 10_000 : null),
    expected: 'repomap.build.noSymbols at 100000 files',
  },
  {
    id: 'map-heap-100k',
    match: (r) => r.name === 'repomap.build.peakHeap' && r.size === 100_000,
    goal: '≤ 1.5 GB heap at 100k files (issue 3)',
    met: valueAtMost(1536),
    expected: 'repomap.build.peakHeap at 100000 files',
  },
  {
    id: 'map-cache',
    match: (r) => r.name === 'repomap.cache.hit',
    goal: 'cached reuse < 200 ms (issue 3)',
    met: (r) => (finite(r.value) ? r.value < 200 : null),
    expected: 'repomap.cache.hit',
  },
  {
    id: 'prose-grounding',
    match: (r) => r.name.startsWith('prose.ground.') && r.size === 10_000,
    goal: 'reading and grounding prose add < 50 ms at 10k files (issue 38)',
    met: (r) => (finite(r.value) ? r.value < 50 : null),
    expected: 'prose.ground.bump and prose.ground.rename at 10000 files',
  },
  {
    id: 'select-10k',
    match: (r) => r.name === 'targets.select.bugReport' && r.size === 10_000,
    goal: 'target selection for a bug report ≤ 2 s at 10k files (issue 39)',
    met: valueAtMost(2000),
    expected: 'targets.select.bugReport at 10000 files',
  },
  { id: 'search', match: (r) => r.name === 'targets.keywordSearch', goal: '≤ 2x ripgrep (issue 3)', met: ratioAtMost(2), expected: 'targets.keywordSearch' },
  // Policy rules (issue 41): checked before every tool call, so cheap enough to never matter.
  {
    id: 'rules-tool-call',
    match: (r) => r.name === 'rules.toolCall.cpu.p99',
    goal: 'rule evaluation per tool call ≤ 1 ms p99, 20 rules (issue 41)',
    met: valueAtMost(1),
    expected: 'rules.toolCall.cpu.p99',
  },
  // Campaigns (issue 32): the CLI's campaign ends every generated repository as its kind expects.
  {
    id: 'campaign-cli',
    match: (r) => r.name === 'campaign.cli.wall',
    goal: 'every repository ends as expected, exit 0 (issue 32; the ratio to the sum of single runs is reported)',
    met: (r) => (finite(r.value) ? /exit 0;.*all \d+ as expected/.test(r.note ?? '') : false),
    expected: 'campaign.cli.wall',
  },
  {
    id: 'campaign-per-minute',
    match: (r) => r.name === 'campaign.github.peakPerMinute.campaignClock',
    goal: "≤ 80 content-creating requests a minute, GitHub's secondary limit (issue 32)",
    met: valueAtMost(80),
    expected: 'campaign.github.peakPerMinute.campaignClock',
  },
  {
    id: 'campaign-per-hour',
    match: (r) => r.name === 'campaign.github.peakPerHour.campaignClock',
    goal: "≤ 500 content-creating requests an hour, GitHub's secondary limit (issue 32)",
    met: valueAtMost(500),
    expected: 'campaign.github.peakPerHour.campaignClock',
  },
  // Hostile input (issue 8): refused, with the expected reason.
  {
    id: 'hostile-files',
    match: (r) => r.name === 'hostile.manyFiles.timeToRefusal',
    goal: 'refused: FILE_COUNT_EXCEEDED (issue 8)',
    met: refused,
    expected: 'hostile.manyFiles.timeToRefusal',
  },
  {
    id: 'hostile-depth',
    match: (r) => r.name === 'hostile.deepChain.timeToRefusal',
    goal: 'refused: HOSTILE_TREE_ENTRY TOO_DEEP (issue 8)',
    met: refused,
    expected: 'hostile.deepChain.timeToRefusal',
  },
  // Faults (issue 36): every scenario ends clearly, with nothing stuck, duplicated, wrong or lost.
  ...['stuck', 'duplicates', 'wrong-content', 'lost-data'].map((what): Goal => ({
    id: `faults-${what}`,
    match: (r) => r.name === `faults.${what}`,
    goal: '0 in the soak (issue 36)',
    met: valueAtMost(0),
    expected: `faults.${what}`,
  })),
];

export function judge(r: JudgedRecord): { goal: string | null; met: boolean | null } {
  const g = GOALS.find((x) => x.match(r));
  return g ? { goal: g.goal, met: g.met(r) } : { goal: null, met: null };
}
