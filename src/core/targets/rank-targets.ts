import type { PathRules } from '../paths/path-rules.js';
import { ownersFor } from '../repomap/codeowners.js';
import { moduleForPath } from '../repomap/detect-modules.js';
import type { RepoMap } from '../repomap/repo-map-schema.js';
import { createRiskClassifier, type RiskClassifier } from '../risk/risk-rules.js';
import type { EvidenceTier, Found, SelectionContext } from './selection-context.js';
import type { FileClassification, SelectedFile } from './target-selection-schema.js';

export interface ScoredFile {
  file: SelectedFile;
  score: number;
  tier?: EvidenceTier;
  /** Distinct terms of the task the file holds (what the cap keeps files by). */
  coverage?: number;
  /** The strength of its relation to a better-evidenced file, for files found as a test or importer. */
  relation?: number;
}

const CLASS_BY_PATH_CLASS: Record<string, FileClassification> = {
  test: 'test',
  docs: 'docs',
  config: 'config',
  source: 'source',
  history: 'docs',
  infra: 'config',
};

function classify(path: string, map: RepoMap, rules: PathRules): FileClassification {
  const pathClass = rules.classify(path);
  if (pathClass === 'lockfile' || pathClass === 'generated' || pathClass === 'ci') return pathClass;
  if (map.manifests.some((m) => m.path === path)) return 'manifest';
  if (/(^|\/)(db\/migrations?|migrations|alembic\/versions)\//.test(path)) return 'migration';
  return Object.hasOwn(CLASS_BY_PATH_CLASS, pathClass) ? CLASS_BY_PATH_CLASS[pathClass] : 'other';
}

/** Module awareness: modules that define a target symbol, and the modules depending on them. */
function relevantModules(map: RepoMap, found: Map<string, Found>): Set<string> {
  const defining = new Set<string>();
  for (const [p, f] of found) if (f.symbol?.definesTarget) defining.add(moduleForPath(map.modules, p)?.id ?? '');
  const relevant = new Set(defining);
  for (const m of map.modules) if (m.dependsOn.some((d) => defining.has(d))) relevant.add(m.id);
  return relevant;
}

const CLASS_SCORE: Partial<Record<FileClassification, number>> = { source: 0.1, test: 0.05, docs: -0.1 };

/** A file's score with what its place adds (added in this order): the explicit scope, its kind, a relevant module, an owner. */
function placementScore(
  score: number,
  ctx: SelectionContext,
  path: string,
  classification: FileClassification,
  module: string | undefined,
  moduleName: string,
  relevant: Set<string>,
  reasons: string[],
): number {
  if (ctx.scopeGlobs.length && ctx.inTaskScope(path)) {
    score += 0.1;
    reasons.push(`inside explicit scope: ${ctx.scopeGlobs.join(', ')}`);
  }
  score += CLASS_SCORE[classification] ?? 0;
  if (classification === 'source') reasons.push('source file, not generated');
  if (module !== undefined && relevant.has(module)) {
    score += 0.05;
    reasons.push(`module ${moduleName} defines or depends on the target`);
  }
  const owners = ownersFor(ctx.map.ownership.rules, path).owners;
  if (owners.length) {
    score += 0.01;
    reasons.push(`owned by ${owners.join(' ')}`);
  }
  return score;
}

/** Whether the file may be edited: policy, approval, generated files and lockfiles, blocking risk (each refusal gives a reason). */
function editPermission(rules: PathRules, risk: RiskClassifier, path: string, classification: FileClassification, reasons: string[]): boolean {
  let allowedToEdit = rules.isAllowed(path) && !rules.isForbidden(path);
  const r = risk.classify(path);
  if (rules.requiresApproval(path)) {
    allowedToEdit = false;
    reasons.push('requires approval by policy');
  }
  if (classification === 'generated' || classification === 'lockfile') {
    allowedToEdit = false;
    reasons.push(`${classification} file: not edited`);
  }
  if (r?.level === 'blocked') {
    allowedToEdit = false;
    reasons.push(`blocked: ${r.reason}`);
  } else if (r && r.level !== 'low') reasons.push(`risk ${r.level}: ${r.reason}`);
  return allowedToEdit;
}

/** Risk filter and scoring of every file found, in the order found (ranking sorts them). */
export function scoreFound(ctx: SelectionContext): ScoredFile[] {
  const { map, rules } = ctx;
  const risk = createRiskClassifier(rules);
  const relevant = relevantModules(map, ctx.found);
  const scored: ScoredFile[] = [];
  for (const [p, f] of ctx.found) {
    const classification = classify(p, map, rules);
    const mod = moduleForPath(map.modules, p);
    const reasons = [...f.reasons];
    let score = placementScore(f.score, ctx, p, classification, mod?.id, mod?.name ?? mod?.id ?? '', relevant, reasons);
    if (classification === 'generated' || classification === 'lockfile') score -= 0.5;
    const allowedToEdit = editPermission(rules, risk, p, classification, reasons);
    scored.push({
      file: { path: p, rank: 0, classification, allowedToEdit, module: mod?.id, reasons, evidence: f.evidence },
      score,
      tier: f.tier,
      coverage: f.coverage,
      relation: f.relation,
    });
  }
  return scored;
}
