import picomatch from 'picomatch';
import { sha256Hex } from '../util/digest.js';
import type { PathRules } from './path-rules.js';
import type { RiskLevel, RiskPath, RiskRule } from './repo-map-schema.js';

interface DefaultRule {
  pattern: string;
  level: RiskLevel;
  reason: string;
}

/** The rules every repository gets; the policy's own rule for a path wins over these. */
export const DEFAULT_RISK_RULES: readonly DefaultRule[] = [
  { pattern: '**/{db/migration,db/migrations,migrations,migrate,flyway,liquibase,alembic/versions}/**', level: 'high', reason: 'database migration' },
  { pattern: '**/{security,auth,authn,authz,crypto}/**', level: 'high', reason: 'security path' },
  { pattern: '**/*{Security,Auth,Crypto,Permission}*.*', level: 'high', reason: 'security path' },
  { pattern: '.github/workflows/**', level: 'blocked', reason: 'CI workflow (the App has no workflows permission)' },
  { pattern: '{.gitlab-ci.yml,Jenkinsfile,.circleci/**,azure-pipelines.yml,.buildkite/**,.github/actions/**}', level: 'high', reason: 'CI configuration' },
  { pattern: '{infra,infrastructure,terraform,deploy,deployment,k8s,kubernetes,helm,charts,ops}/**', level: 'high', reason: 'infrastructure' },
  { pattern: '**/*.{tf,tfvars}', level: 'high', reason: 'infrastructure' },
  { pattern: '**/{package-lock.json,npm-shrinkwrap.json,yarn.lock,pnpm-lock.yaml,go.sum,Cargo.lock,poetry.lock,Pipfile.lock,uv.lock,Gemfile.lock,composer.lock,gradle.lockfile}', level: 'medium', reason: 'lockfile: regenerate with the package manager, never edit by hand' },
  { pattern: '**/{generated,__generated__}/**', level: 'blocked', reason: 'generated file' },
  { pattern: '**/*.{generated.*,pb.go,min.js}', level: 'blocked', reason: 'generated file' },
  { pattern: '**/*_pb2.py', level: 'blocked', reason: 'generated file' },
  { pattern: '**/{pom.xml,build.gradle,build.gradle.kts,settings.gradle,settings.gradle.kts,package.json,go.mod,Cargo.toml,pyproject.toml,requirements*.txt}', level: 'medium', reason: 'dependency/build config' },
  { pattern: '**/{Dockerfile,docker-compose.yml,docker-compose.yaml}', level: 'medium', reason: 'container build' },
  { pattern: '{.agent-policy.yaml,CODEOWNERS,.github/CODEOWNERS,docs/CODEOWNERS}', level: 'high', reason: 'governance file' },
];

const LEVEL_ORDER: Record<RiskLevel, number> = { low: 0, medium: 1, high: 2, blocked: 3 };

export function higherRisk(a: RiskLevel, b: RiskLevel): RiskLevel {
  return LEVEL_ORDER[a] >= LEVEL_ORDER[b] ? a : b;
}

export interface RiskClassifier {
  rules: RiskRule[];
  classify(path: string): { level: RiskLevel; reason: string; ruleId: string } | undefined;
}

/**
 * Risk for a path: the policy's `riskFor` first (it is authoritative), then forbidden and
 * approval paths, then the highest default rule that matches.
 */
export function createRiskClassifier(rules?: PathRules): RiskClassifier {
  const compiled = DEFAULT_RISK_RULES.map((r, i) => ({
    rule: { id: `default-${i + 1}-${sha256Hex(r.pattern).slice(0, 6)}`, pattern: r.pattern, level: r.level, reason: r.reason, source: 'default' as const },
    match: picomatch(r.pattern, { dot: true }),
  }));
  const policyRules: RiskRule[] = [
    { id: 'policy-risk', pattern: '(policy riskFor)', level: 'high', reason: 'policy risk rule', source: 'policy' },
    { id: 'policy-forbidden', pattern: '(policy forbidden paths)', level: 'blocked', reason: 'forbidden by policy', source: 'policy' },
    { id: 'policy-approval', pattern: '(policy requireApprovalFor)', level: 'high', reason: 'requires approval by policy', source: 'policy' },
  ];
  return {
    rules: [...compiled.map((c) => c.rule), ...(rules ? policyRules : [])],
    classify(path) {
      if (rules) {
        const own = rules.riskFor(path);
        if (own) return { level: own.level, reason: own.reason, ruleId: 'policy-risk' };
        if (rules.isForbidden(path)) return { level: 'blocked', reason: 'forbidden by policy', ruleId: 'policy-forbidden' };
      }
      let best: { level: RiskLevel; reason: string; ruleId: string } | undefined;
      for (const c of compiled) {
        if (c.match(path) && (!best || LEVEL_ORDER[c.rule.level] > LEVEL_ORDER[best.level])) best = { level: c.rule.level, reason: c.rule.reason, ruleId: c.rule.id };
      }
      if (rules?.requiresApproval(path) && (!best || LEVEL_ORDER[best.level] < LEVEL_ORDER.high)) return { level: 'high', reason: 'requires approval by policy', ruleId: 'policy-approval' };
      return best;
    },
  };
}

export function sortRiskPaths(paths: RiskPath[]): RiskPath[] {
  return paths.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
