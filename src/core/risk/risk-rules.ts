import { compileGlobs } from '../paths/glob.js';
import type { PathClass, PathRules } from '../paths/path-rules.js';
import { sha256Hex } from '../util/digest.js';
import type { RiskLevel, RiskPath, RiskRule } from './risk-schema.js';

/** What a default rule recognises; the change-risk score weighs each kind once per change. */
export type DefaultRiskKind = 'migration' | 'security' | 'manifest' | 'governance';

interface DefaultRule {
  pattern: string;
  level: RiskLevel;
  reason: string;
  kind?: DefaultRiskKind;
}

/**
 * The rules every repository gets; the policy's own rule for a path wins over these. Lockfiles,
 * generated files, CI and infrastructure are recognised by the path rules (see `CLASS_RISKS`).
 * The map, target selection and the change-risk score all read this one list.
 */
export const DEFAULT_RISK_RULES: readonly DefaultRule[] = [
  {
    pattern: '**/{db/migration,db/migrations,migrations,migrate,flyway,liquibase,alembic/versions}/**',
    level: 'high',
    reason: 'database migration',
    kind: 'migration',
  },
  { pattern: '**/{security,auth,authn,authz,oauth,crypto,payment,payments,billing}/**', level: 'high', reason: 'security path', kind: 'security' },
  { pattern: '**/*{Security,Auth,Crypto,Permission}*.*', level: 'high', reason: 'security path', kind: 'security' },
  // Every Gradle script (platforms, convention plugins, `versions.gradle`) and version catalog is build configuration.
  {
    pattern:
      '**/{pom.xml,*.gradle,*.gradle.kts,*.versions.toml,gradle.properties,package.json,go.mod,Cargo.toml,pyproject.toml,requirements*.txt,setup.py,setup.cfg,Pipfile,Gemfile,composer.json}',
    level: 'medium',
    reason: 'dependency/build config',
    kind: 'manifest',
  },
  { pattern: '{CODEOWNERS,.github/CODEOWNERS,docs/CODEOWNERS}', level: 'high', reason: 'governance file', kind: 'governance' },
];

let kindMatchers: { kind: DefaultRiskKind; match: (path: string) => boolean }[] | undefined;

/** The kinds of default rule a path matches (compiled once). */
export function defaultRiskKinds(path: string): Set<DefaultRiskKind> {
  kindMatchers ??= DEFAULT_RISK_RULES.filter((r) => r.kind).map((r) => ({ kind: r.kind!, match: compileGlobs([r.pattern]) }));
  const out = new Set<DefaultRiskKind>();
  for (const m of kindMatchers) if (m.match(path)) out.add(m.kind);
  return out;
}

/** Risk by path class, from the path rules' own lists. */
const CLASS_RISKS: Partial<Record<PathClass, DefaultRule>> = {
  lockfile: { pattern: '(lockfile patterns)', level: 'medium', reason: 'lockfile: regenerate with the package manager, never edit by hand' },
  generated: { pattern: '(generated patterns)', level: 'blocked', reason: 'generated file' },
  ci: { pattern: '(CI patterns)', level: 'high', reason: 'CI configuration' },
  infra: { pattern: '(infrastructure patterns)', level: 'high', reason: 'infrastructure' },
};

const LEVEL_ORDER: Record<RiskLevel, number> = { low: 0, medium: 1, high: 2, blocked: 3 };

export function higherRisk(a: RiskLevel, b: RiskLevel): RiskLevel {
  return LEVEL_ORDER[a] >= LEVEL_ORDER[b] ? a : b;
}

export interface RiskClassifier {
  rules: RiskRule[];
  classify(path: string, classOf?: PathClass): { level: RiskLevel; reason: string; ruleId: string } | undefined;
}

const POLICY_LEVEL: Record<'LOW' | 'MEDIUM' | 'HIGH', RiskLevel> = { LOW: 'low', MEDIUM: 'medium', HIGH: 'high' };

/**
 * Risk for a path: the policy's own risk rule first (it is authoritative), then forbidden
 * paths (the policy's and the always-forbidden ones), then the highest of the default rules, the
 * class rule and `requireApprovalFor`. `classOf` lets a caller that already classified the path
 * (the map's single pass) avoid doing it twice.
 */
export function createRiskClassifier(rules: PathRules): RiskClassifier {
  const ruleOf = (id: string, r: DefaultRule, source: 'default' | 'policy'): RiskRule => ({ id, pattern: r.pattern, level: r.level, reason: r.reason, source });
  const compiled = DEFAULT_RISK_RULES.map((r, i) => ({
    rule: ruleOf(`default-${i + 1}-${sha256Hex(r.pattern).slice(0, 6)}`, r, 'default'),
    match: compileGlobs([r.pattern]),
  }));
  const byClass = new Map(Object.entries(CLASS_RISKS).map(([cls, r]) => [cls, ruleOf(`class-${cls}`, r, 'default')]));
  const policyRules: RiskRule[] = [
    { id: 'policy-risk', pattern: '(policy riskRules)', level: 'high', reason: 'policy risk rule', source: 'policy' },
    { id: 'policy-forbidden', pattern: '(policy forbidden paths)', level: 'blocked', reason: 'forbidden by policy', source: 'policy' },
    { id: 'policy-approval', pattern: '(policy requireApprovalFor)', level: 'high', reason: 'requires approval by policy', source: 'policy' },
  ];
  return {
    rules: [...compiled.map((c) => c.rule), ...byClass.values(), ...policyRules],
    classify(path, classOf) {
      const own = rules.riskFor(path);
      if (own) return { level: POLICY_LEVEL[own.level], reason: own.reason, ruleId: 'policy-risk' };
      if (rules.isForbidden(path)) return { level: 'blocked', reason: 'forbidden by policy', ruleId: 'policy-forbidden' };
      let best: { level: RiskLevel; reason: string; ruleId: string } | undefined;
      const consider = (rule: RiskRule) => {
        if (!best || LEVEL_ORDER[rule.level] > LEVEL_ORDER[best.level]) best = { level: rule.level, reason: rule.reason, ruleId: rule.id };
      };
      for (const c of compiled) if (c.match(path)) consider(c.rule);
      const classRule = byClass.get(classOf ?? rules.classify(path));
      if (classRule) consider(classRule);
      if (rules.requiresApproval(path)) consider(policyRules[2]);
      return best;
    },
  };
}

export function sortRiskPaths(paths: RiskPath[]): RiskPath[] {
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
