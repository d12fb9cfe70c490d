import { defaultPathRules, type PathRules } from '../paths/path-rules.js';

export type RiskLevel = 'LOW' | 'MEDIUM' | 'HIGH';
export type RequiredGate = 'NONE' | 'HUMAN_REVIEW' | 'HUMAN_APPROVAL_BEFORE_PR';

export interface RiskFile {
  path: string;
  kind: string;
}

export interface RiskInput {
  files: RiskFile[];
  /** Paths whose public API signature changed (from the syntax service, when known). */
  publicApiChanged?: string[];
  /** Number of secret-scan findings in the change. */
  secretFindings?: number;
  /** Paths the policy denies. */
  deniedPaths?: string[];
  /** The run's path rules; the defaults when absent. */
  rules?: PathRules;
}

export interface RiskReport {
  riskScore: number;
  riskLevel: RiskLevel;
  reasons: string[];
  requiredGate: RequiredGate;
}

const MANIFESTS = new Set(['package.json', 'pom.xml', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'go.mod', 'Cargo.toml', 'pyproject.toml', 'requirements.txt', 'setup.py', 'setup.cfg', 'Pipfile', 'Gemfile', 'composer.json']);
const SOURCE_EXT = /\.(ts|tsx|js|jsx|mjs|cjs|java|kt|scala|py|go|rs|rb|php|cs|c|cc|cpp|h|hpp|swift)$/;
const SENSITIVE = /(^|[/_.-])(auth|authn|authz|oauth|security|crypto|payment|payments|billing|login|session|password|permission)s?([/_.-]|$)/i;
const MIGRATION = /(^|\/)(migrations?|db\/migrate|flyway|liquibase)\//i;

const name = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** The scored reasons for one file; tests, CI and lockfiles are recognised by the path rules. */
export function fileRisk(file: RiskFile, rules: PathRules = defaultPathRules()): { score: number; reasons: string[] } {
  const reasons: string[] = [];
  let score = 0;
  const add = (n: number, why: string) => {
    score += n;
    reasons.push(why);
  };
  const p = file.path;
  const test = rules.isTest(p);
  if (SOURCE_EXT.test(p) && !test) add(1, 'production source file');
  if (SENSITIVE.test(p)) add(2, 'auth/security/payment path');
  if (MIGRATION.test(p)) add(2, 'migration file');
  if (rules.isCi(p)) add(3, 'CI/CD workflow');
  if (MANIFESTS.has(name(p))) add(3, 'dependency manifest');
  if (rules.isLockfile(p)) add(3, 'lockfile');
  if (file.kind === 'DELETED') add(5, 'deleted file');
  if (reasons.length === 0) reasons.push(test ? 'test update' : 'non-source file');
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

export function gateFor(level: RiskLevel): RequiredGate {
  return level === 'HIGH' ? 'HUMAN_APPROVAL_BEFORE_PR' : level === 'MEDIUM' ? 'HUMAN_REVIEW' : 'NONE';
}

/**
 * The change-boundary risk score: +1 production source, +2 auth/security/payment,
 * +2 migration, +3 CI/CD, +3 manifest, +3 lockfile, +5 deleted, +5 public API change,
 * +8 secret-like pattern, +10 denied path. It routes review; it does not replace it.
 */
export function scoreRisk(input: RiskInput): RiskReport {
  let score = 0;
  const reasons: string[] = [];
  for (const file of input.files) {
    const r = fileRisk(file, input.rules);
    if (r.score === 0) continue;
    score += r.score;
    for (const why of r.reasons) reasons.push(`${why}: ${file.path}`);
  }
  for (const p of input.publicApiChanged ?? []) {
    score += 5;
    reasons.push(`public API signature changed: ${p}`);
  }
  if ((input.secretFindings ?? 0) > 0) {
    score += 8;
    reasons.push(`secret-like pattern (${input.secretFindings} finding(s))`);
  }
  for (const p of input.deniedPaths ?? []) {
    score += 10;
    reasons.push(`denied path: ${p}`);
  }
  const riskLevel = riskLevelOf(score);
  return { riskScore: score, riskLevel, reasons, requiredGate: gateFor(riskLevel) };
}
