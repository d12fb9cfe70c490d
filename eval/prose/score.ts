import { parse as parseYaml } from 'yaml';
import { textTable } from '../text-table.js';
import type { ProseCase, ProseEcosystem, ProseSource } from './cases.js';

/**
 * Scores what a prose reader produced for each case of the corpus: the steps it would run, or
 * nothing (undefined, null or no steps). A run is wrong when the case must not run, or when its
 * steps' effect differs from the expected block's; a must-run case with nothing run is missed.
 * Steps compare after normalisation (package names by their ecosystem's rules, a leading `v` or
 * range operator on bump versions, path globs), as a set, so order and repeats do not count.
 */
export type ProducedSteps = readonly unknown[] | null | undefined;

export type Outcome = 'correct' | 'wrong-run' | 'missed' | 'held';

export interface CaseScore {
  id: string;
  source: ProseSource;
  ecosystem: ProseEcosystem;
  mustRun: boolean;
  outcome: Outcome;
  /** Why a run is wrong: the expected and produced steps, normalised, or the must-not-run reason. */
  detail?: string;
}

export interface Tally {
  cases: number;
  mustRun: number;
  correct: number;
  missed: number;
  wrongRuns: number;
  held: number;
  /** Correct runs over all runs; 1 when nothing ran. */
  precision: number;
  /** Correct runs over must-run cases; 1 when there are none. */
  recall: number;
}

export interface ProseScore {
  cases: CaseScore[];
  totals: Tally;
  byEcosystem: Record<string, Tally>;
  bySource: Record<string, Tally>;
  /** The cases added after the rules were last changed: the figure not tuned on. */
  heldOut: Tally;
}

/** The goals: no wrong run, and at least this share of the must-run cases run correctly. */
export const RECALL_GOAL = 0.9;

export function scoreProse(
  cases: readonly ProseCase[],
  producedStepsById: ReadonlyMap<string, ProducedSteps> | Readonly<Record<string, ProducedSteps>>,
): ProseScore {
  const lookup = (id: string): ProducedSteps =>
    producedStepsById instanceof Map ? producedStepsById.get(id) : (producedStepsById as Record<string, ProducedSteps>)[id];
  const scores = cases.map((c) => scoreCase(c, lookup(c.id)));
  return {
    cases: scores,
    totals: tally(scores),
    byEcosystem: groupTally(scores, (s) => s.ecosystem),
    bySource: groupTally(scores, (s) => s.source),
    heldOut: tally(scores.filter((_, i) => cases[i].heldOut)),
  };
}

export function scoreCase(c: ProseCase, produced: ProducedSteps): CaseScore {
  const base = { id: c.id, source: c.source, ecosystem: c.ecosystem };
  const ran = Array.isArray(produced) && produced.length > 0;
  if ('mustNotRun' in c.expected) {
    return ran
      ? { ...base, mustRun: false, outcome: 'wrong-run', detail: `must not run: ${c.expected.mustNotRun}` }
      : { ...base, mustRun: false, outcome: 'held' };
  }
  if (!ran) return { ...base, mustRun: true, outcome: 'missed' };
  const expected = stepsOf(c.expected.agent);
  const equivalents = c.expected.equivalents ?? {};
  const want = normaliseSteps(expected, c.ecosystem, equivalents, expected);
  const got = normaliseSteps(produced as readonly unknown[], c.ecosystem, equivalents, expected);
  if (sameSet(want, got)) return { ...base, mustRun: true, outcome: 'correct' };
  return { ...base, mustRun: true, outcome: 'wrong-run', detail: `expected ${[...want].join(' ')} got ${[...got].join(' ')}` };
}

/** The steps of an expected ```agent block's YAML. */
export function stepsOf(agent: string): Record<string, unknown>[] {
  const doc = parseYaml(agent) as { steps?: unknown } | null;
  if (!doc || !Array.isArray(doc.steps)) throw new Error('expected block has no steps list');
  return doc.steps as Record<string, unknown>[];
}

type Step = Record<string, unknown>;

function normaliseSteps(steps: readonly unknown[], ecosystem: ProseEcosystem, equivalents: Record<string, string[]>, expected: readonly Step[]): Set<string> {
  const canonical = canonicalNames(ecosystem, equivalents);
  return new Set(steps.map((s) => JSON.stringify(normaliseStep(isStep(s) ? s : { invalid: s }, ecosystem, canonical, expected))));
}

function isStep(value: unknown): value is Step {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Normalised name → the expected name it stands for (an equivalent, or itself). */
function canonicalNames(ecosystem: ProseEcosystem, equivalents: Record<string, string[]>): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, others] of Object.entries(equivalents)) {
    for (const other of others) map.set(packageName(other, ecosystem), packageName(name, ecosystem));
  }
  return map;
}

/** Package names as the ecosystem compares them: PEP 503 for Python, case-insensitive elsewhere but Go. */
export function packageName(name: string, ecosystem: ProseEcosystem): string {
  const trimmed = name.trim();
  if (ecosystem === 'python') return trimmed.toLowerCase().replace(/[-_.]+/g, '-');
  if (ecosystem === 'go') return trimmed;
  return trimmed.toLowerCase();
}

/** A bump's version without a leading `v` or range operator: `v1.2.0`, `^1.2.0` and `1.2.0` edit alike. */
export function bumpVersion(version: unknown): string {
  return String(version ?? '')
    .trim()
    .replace(/^(?:\^|~|>=|==|=)?\s*v?(?=\d)/, '');
}

/** Path globs without `./`, a leading `/` or a trailing `/**`, sorted; absent means the whole repository. */
export function normalisePaths(paths: unknown): string[] {
  if (!Array.isArray(paths)) return [];
  return paths
    .map((p) =>
      String(p)
        .trim()
        .replace(/^\.?\//, '')
        .replace(/\/\*\*$/, '')
        .replace(/\/$/, ''),
    )
    .filter((p) => p !== '' && p !== '**' && p !== '.')
    .sort();
}

/**
 * The parts of a step that decide its effect, normalised. `from` and `kind` count only where the
 * expected step states them; a bump without `from` stands for the expected one (every declaration
 * of the package is at that version in the cases, so the edit is the same).
 */
function normaliseStep(step: Step, ecosystem: ProseEcosystem, canonical: Map<string, string>, expected: readonly Step[]): Record<string, unknown> {
  const pkg = (value: unknown): string => {
    const name = packageName(String(value ?? ''), ecosystem);
    return canonical.get(name) ?? name;
  };
  const paths = normalisePaths(step.paths);
  const same = (recipe: string, key: string): boolean => expected.some((e) => e.recipe === recipe && e[key] !== undefined);
  switch (step.recipe) {
    case 'bump-dependency':
      return {
        recipe: step.recipe,
        package: pkg(step.package),
        to: bumpVersion(step.to),
        ...(same('bump-dependency', 'from') ? { from: bumpVersion(step.from ?? expectedFrom(expected, pkg(step.package), pkg)) } : {}),
        ...(step.allowDowngrade === true ? { allowDowngrade: true } : {}),
        paths,
      };
    case 'remove-dependency':
      return { recipe: step.recipe, package: pkg(step.package), paths };
    case 'constrain-dependency':
      return { recipe: step.recipe, package: pkg(step.package), range: String(step.range ?? '').replace(/\s+/g, ''), paths };
    case 'migrate-import':
      return {
        recipe: step.recipe,
        from: step.from,
        to: step.to,
        version: step.version === undefined ? undefined : bumpVersion(step.version),
        artifact: step.artifact === undefined ? undefined : pkg(step.artifact),
        paths,
      };
    case 'rename-symbol':
      return { recipe: step.recipe, from: step.from, to: step.to, ...(same('rename-symbol', 'kind') ? { kind: step.kind } : {}), paths };
    case 'replace':
      return { recipe: step.recipe, find: step.find, replace: step.replace, regex: step.regex === true, flags: step.flags ?? '', paths };
    default:
      return { ...step, paths };
  }
}

function expectedFrom(expected: readonly Step[], name: string, pkg: (value: unknown) => string): unknown {
  return expected.find((e) => e.recipe === 'bump-dependency' && pkg(e.package) === name)?.from;
}

function sameSet(a: Set<string>, b: Set<string>): boolean {
  return a.size === b.size && [...a].every((x) => b.has(x));
}

export function tally(scores: readonly CaseScore[]): Tally {
  const count = (o: Outcome): number => scores.filter((s) => s.outcome === o).length;
  const correct = count('correct');
  const wrongRuns = count('wrong-run');
  const mustRun = scores.filter((s) => s.mustRun).length;
  const round = (x: number): number => Math.round(x * 1000) / 1000;
  return {
    cases: scores.length,
    mustRun,
    correct,
    missed: count('missed'),
    wrongRuns,
    held: count('held'),
    precision: round(correct + wrongRuns === 0 ? 1 : correct / (correct + wrongRuns)),
    recall: round(mustRun === 0 ? 1 : correct / mustRun),
  };
}

function groupTally(scores: readonly CaseScore[], key: (s: CaseScore) => string): Record<string, Tally> {
  const groups = new Map<string, CaseScore[]>();
  for (const s of scores) groups.set(key(s), [...(groups.get(key(s)) ?? []), s]);
  return Object.fromEntries([...groups].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, tally(v)]));
}

export function meetsGoals(t: Tally): boolean {
  return t.wrongRuns === 0 && t.recall >= RECALL_GOAL;
}

/** The per-ecosystem and per-source table, then the totals and whether the goals are met. */
export function formatProseScore(score: ProseScore): string {
  const head = ['group', 'cases', 'must-run', 'correct', 'missed', 'wrong runs', 'held', 'precision', 'recall'];
  const row = (label: string, t: Tally): string[] => [
    label,
    String(t.cases),
    String(t.mustRun),
    String(t.correct),
    String(t.missed),
    String(t.wrongRuns),
    String(t.held),
    t.precision.toFixed(3),
    t.recall.toFixed(3),
  ];
  const rows = [
    ...Object.entries(score.byEcosystem).map(([k, t]) => row(`ecosystem ${k}`, t)),
    ...Object.entries(score.bySource).map(([k, t]) => row(`source ${k}`, t)),
    row('held out', score.heldOut),
    row('total', score.totals),
  ];
  const wrong = score.cases.filter((s) => s.outcome === 'wrong-run').map((s) => `wrong run ${s.id}: ${s.detail}`);
  const goals = `goals (0 wrong runs, recall >= ${RECALL_GOAL}): ${meetsGoals(score.totals) ? 'met' : 'not met'}`;
  return [textTable(head, rows), '', ...wrong, goals].join('\n') + '\n';
}
