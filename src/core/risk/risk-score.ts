import type { PathRules } from '../paths/path-rules.js';
import type { ApprovalMinRisk } from '../policy/agent-policy.js';
import { IDENTIFIER_ONLY_RECIPES } from '../task/recipe-steps.js';
import { defaultRiskKinds } from './risk-rules.js';

export type RiskLevel = 'LOW' | 'MEDIUM' | 'HIGH';
export type RequiredGate = 'NONE' | 'HUMAN_REVIEW' | 'HUMAN_APPROVAL_BEFORE_PR';

export interface RiskFile {
  path: string;
  kind: string;
}

/**
 * Who made the change: deterministic recipes (named, e.g. `migrate-import`) or the model. Both
 * the pipeline and the publisher derive it from the task (see `changeOriginOf`), so they agree.
 */
export type ChangeOrigin = { engine: 'recipe'; recipes: readonly string[] } | { engine: 'model' };

export interface RiskInput {
  files: RiskFile[];
  /** Who made the change; the model when absent (the heavier weighting). */
  origin?: ChangeOrigin;
  /** Paths whose public API signature changed (from the syntax service, when known). */
  publicApiChanged?: string[];
  /** Number of secret-scan findings in the change. */
  secretFindings?: number;
  /** Paths the policy denies, besides those the rules forbid. */
  deniedPaths?: string[];
  /** The run's path rules (the policy's): what kind each file is. */
  rules: PathRules;
  /** The lowest level that needs an approval (`agent.approval.minRisk`); HIGH when absent. */
  minRisk?: ApprovalMinRisk;
}

export interface RiskReport {
  riskScore: number;
  riskLevel: RiskLevel;
  reasons: string[];
  requiredGate: RequiredGate;
}

/** A risk signal of a changed path; each one counts once per change, whatever the number of files. */
type Signal = 'security' | 'migration' | 'ci' | 'ciExecuted' | 'manifest' | 'lockfile' | 'infra' | 'governance' | 'deleted' | 'denied';

const SIGNALS: Readonly<Record<Signal, { points: number; label: string }>> = {
  denied: { points: 10, label: 'denied path' },
  deleted: { points: 5, label: 'deleted file' },
  ci: { points: 3, label: 'CI/CD configuration' },
  // HIGH on its own: pushing the branch runs it in CI, with the repository's secrets.
  ciExecuted: { points: 10, label: 'file CI executes' },
  manifest: { points: 3, label: 'dependency manifest' },
  lockfile: { points: 3, label: 'lockfile' },
  infra: { points: 3, label: 'infrastructure' },
  governance: { points: 3, label: 'governance file' },
  security: { points: 2, label: 'auth/security/payment path' },
  migration: { points: 2, label: 'database migration' },
};
const PUBLIC_API_POINTS = 5;
const SECRET_POINTS = 8;

/**
 * Production files count, but capped so that the count alone raises a change by at most one
 * level: a model's free edits weigh 1 a file (at most 5, MEDIUM); a recipe's mechanical edits
 * 1 for every 5 files (at most 3, still LOW).
 */
const PRODUCTION = { model: { filesPerPoint: 1, cap: 5 }, recipe: { filesPerPoint: 5, cap: 3 } } as const;

/** How a reviewer would name what each recipe does to production files. */
const RECIPE_WORDS: Readonly<Record<string, string>> = {
  'migrate-import': 'mechanical import change',
  'rename-symbol': 'mechanical rename',
  'bump-dependency': 'dependency version bump',
  'constrain-dependency': 'dependency constraint change',
  replace: 'mechanical text replacement',
};

const LEVELS: readonly RiskLevel[] = ['LOW', 'MEDIUM', 'HIGH'];

/** The risk signals of one path, and whether it is production source. */
function signalsOf(file: RiskFile, rules: PathRules): { production: boolean; signals: Signal[] } {
  const p = file.path;
  const signals: Signal[] = [];
  const kinds = defaultRiskKinds(p);
  if (rules.isForbidden(p)) signals.push('denied');
  if (file.kind === 'DELETED') signals.push('deleted');
  if (rules.isCi(p)) signals.push('ci');
  if (rules.isCiExecuted(p)) signals.push('ciExecuted');
  if (kinds.has('manifest')) signals.push('manifest');
  if (rules.isLockfile(p)) signals.push('lockfile');
  if (rules.isInfra(p)) signals.push('infra');
  if (kinds.has('governance')) signals.push('governance');
  if (kinds.has('security')) signals.push('security');
  if (kinds.has('migration')) signals.push('migration');
  // Source by the path rules; a migration is weighed by its own signal, not as production code too.
  return { production: rules.isSource(p) && !rules.isTest(p) && !kinds.has('migration'), signals };
}

/** The scored reasons for one file, for the per-file column of the diff summary. */
export function fileRisk(file: RiskFile, rules: PathRules): { score: number; reasons: string[] } {
  const { production, signals } = signalsOf(file, rules);
  const reasons = signals.map((s) => SIGNALS[s].label);
  let score = signals.reduce((n, s) => n + SIGNALS[s].points, 0);
  if (production) {
    score += 1;
    reasons.unshift('production source file');
  }
  if (reasons.length === 0) reasons.push(rules.isTest(file.path) ? 'test update' : 'non-source file');
  return { score, reasons };
}

/** Per-file level used in the diff summary: LOW < 3, MEDIUM 3-9, HIGH >= 10. */
export function fileRiskLevel(score: number): RiskLevel {
  return score >= 10 ? 'HIGH' : score >= 3 ? 'MEDIUM' : 'LOW';
}

/** Overall level of a change: LOW < 5, MEDIUM 5-9, HIGH >= 10. */
export function riskLevelOf(score: number): RiskLevel {
  return score >= 10 ? 'HIGH' : score >= 5 ? 'MEDIUM' : 'LOW';
}

export function higherLevel(a: RiskLevel, b: RiskLevel): RiskLevel {
  return LEVELS.indexOf(a) >= LEVELS.indexOf(b) ? a : b;
}

/** Whether a change of this level stops for approval under `agent.approval.minRisk`. */
export function needsApproval(level: RiskLevel, minRisk: ApprovalMinRisk = 'HIGH'): boolean {
  return minRisk !== 'never' && LEVELS.indexOf(level) >= LEVELS.indexOf(minRisk);
}

export function gateFor(level: RiskLevel, minRisk: ApprovalMinRisk = 'HIGH'): RequiredGate {
  if (needsApproval(level, minRisk)) return 'HUMAN_APPROVAL_BEFORE_PR';
  return level === 'LOW' ? 'NONE' : 'HUMAN_REVIEW';
}

/** "a, b, c and 4 more": enough to find the files, not a second copy of the diff. */
export function namePaths(paths: readonly string[], shown = 3): string {
  const head = paths.slice(0, shown).join(', ');
  return paths.length > shown ? `${head} and ${paths.length - shown} more` : head;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

function productionReason(count: number, origin: ChangeOrigin): string {
  if (origin.engine === 'model') return `${plural(count, 'production file')} edited by the model`;
  const words = [...new Set(origin.recipes.map((r) => RECIPE_WORDS[r] ?? 'mechanical recipe change'))];
  return `${plural(count, 'production file')}, ${words.join(' and ')}`;
}

/**
 * The change-boundary risk score. Each signal counts once per change, and the reasons are
 * grouped by signal: +10 denied path, +8 secret-like pattern, +5 deleted file, +5 public API
 * signature change, +3 CI/CD, +3 manifest, +3 lockfile, +3 infrastructure, +3 governance file,
 * +2 auth/security/payment path, +2 migration; production files by count, capped (see
 * `PRODUCTION`). It routes review; it does not replace it.
 */
export function scoreRisk(input: RiskInput): RiskReport {
  const rules = input.rules;
  const origin = input.origin ?? { engine: 'model' };
  const bySignal = new Map<Signal, string[]>();
  const production: string[] = [];
  for (const file of input.files) {
    const r = signalsOf(file, rules);
    if (r.production) production.push(file.path);
    for (const s of r.signals) bySignal.set(s, [...(bySignal.get(s) ?? []), file.path]);
  }
  for (const p of input.deniedPaths ?? []) {
    const denied = bySignal.get('denied') ?? [];
    if (!denied.includes(p)) bySignal.set('denied', [...denied, p]);
  }
  // Recipes that only write validated identifiers cannot put a command into a file CI runs.
  if (origin.engine === 'recipe' && origin.recipes.every((r) => IDENTIFIER_ONLY_RECIPES.includes(r))) bySignal.delete('ciExecuted');

  let score = 0;
  const reasons: string[] = [];
  const add = (points: number, why: string) => {
    score += points;
    reasons.push(`${why} (+${points})`);
  };
  for (const signal of Object.keys(SIGNALS) as Signal[]) {
    const paths = bySignal.get(signal);
    if (paths) add(SIGNALS[signal].points, `${SIGNALS[signal].label} (${paths.length}): ${namePaths(paths)}`);
  }
  const publicApi = input.publicApiChanged ?? [];
  if (publicApi.length > 0) add(PUBLIC_API_POINTS, `public API signature changed (${publicApi.length}): ${namePaths(publicApi)}`);
  if ((input.secretFindings ?? 0) > 0) add(SECRET_POINTS, `secret-like pattern (${input.secretFindings} finding(s))`);
  if (production.length > 0) {
    const weight = PRODUCTION[origin.engine];
    const points = Math.min(Math.ceil(production.length / weight.filesPerPoint), weight.cap);
    add(points, productionReason(production.length, origin));
  }
  if (reasons.length === 0) reasons.push(`${plural(input.files.length, 'file')} with no risk signal (tests, documentation, configuration)`);
  const riskLevel = riskLevelOf(score);
  return { riskScore: score, riskLevel, reasons, requiredGate: gateFor(riskLevel, input.minRisk) };
}
