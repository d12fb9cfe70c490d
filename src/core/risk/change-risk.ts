import type { DependencyUpdate } from '../versions/versions.js';
import {
  fileRisk,
  fileRiskLevel,
  gateFor,
  higherLevel,
  namePaths,
  scoreRisk,
  type ChangeOrigin,
  type RiskFile,
  type RiskLevel,
  type RiskReport,
} from './risk-score.js';
import type { PathRules } from '../paths/path-rules.js';
import type { ApprovalMinRisk } from '../policy/agent-policy.js';
import type { TaskContract } from '../task/task-contract.js';

/**
 * Who makes the change, from the task alone: a task with recipe steps is planned as recipes and
 * no model is asked for the change. The publisher parses the same trusted task, so both sides
 * weigh the change alike without trusting anything the candidate says about itself. A model's
 * repair of files a recipe left unparsable still counts as recipe edits (the publisher could not
 * tell); only the production-file count weighs differently, every other signal is the same.
 */
export function changeOriginOf(task: Pick<TaskContract, 'steps'>): ChangeOrigin {
  return task.steps.length > 0 ? { engine: 'recipe', recipes: task.steps.map((s) => s.recipe) } : { engine: 'model' };
}

/**
 * The risk of a change under a policy: the score, raised by the policy's risk rules (the highest
 * level wins), with the gate the policy's approval threshold gives that level. The review phase
 * and the publisher both decide gates from this, so a gate approved on one side is the same gate
 * on the other.
 */
export function changeRisk(
  files: readonly RiskFile[],
  rules: PathRules,
  options: { origin: ChangeOrigin; minRisk: ApprovalMinRisk; updates?: readonly DependencyUpdate[]; incomplete?: readonly string[] },
): RiskReport {
  const scored = scoreRisk({ files: [...files], rules, origin: options.origin, minRisk: options.minRisk });
  let level = scored.riskLevel;
  const reasons = [...scored.reasons];
  // A major update or an allowed downgrade can break callers that the diff does not show: at least MEDIUM.
  for (const u of options.updates ?? []) {
    if (u.updateType !== 'major' && u.updateType !== 'downgrade') continue;
    reasons.push(`${u.updateType} version update: ${u.package} ${u.from} → ${u.to}`);
    level = higherLevel(level, 'MEDIUM');
  }
  // A change that leaves uses of a renamed name behind does not build as it stands.
  for (const why of options.incomplete ?? []) {
    reasons.push(`incomplete change: ${why}`);
    level = higherLevel(level, 'MEDIUM');
  }
  const byRule = new Map<string, { level: RiskReport['riskLevel']; reason: string; paths: string[] }>();
  for (const file of files) {
    const rule = rules.riskFor(file.path);
    if (!rule) continue;
    const key = `${rule.glob}\n${rule.level}\n${rule.reason}`;
    const group = byRule.get(key) ?? { level: rule.level, reason: rule.reason, paths: [] };
    group.paths.push(file.path);
    byRule.set(key, group);
    level = higherLevel(level, rule.level);
  }
  for (const group of byRule.values()) reasons.push(`policy risk rule, ${group.level}: ${group.reason} (${group.paths.length}): ${namePaths(group.paths)}`);
  return { ...scored, riskLevel: level, reasons, requiredGate: gateFor(level, options.minRisk) };
}

/**
 * The risk of one changed file under a policy, for the diff summary: the file's scored level,
 * raised by the policy's risk rule for it as `changeRisk` raises the change's.
 */
export function fileChangeRisk(file: RiskFile, rules: PathRules): { level: RiskLevel; reasons: string[] } {
  const scored = fileRisk(file, rules);
  const level = fileRiskLevel(scored.score);
  const rule = rules.riskFor(file.path);
  if (!rule) return { level, reasons: scored.reasons };
  return { level: higherLevel(level, rule.level), reasons: [...scored.reasons, `policy risk rule, ${rule.level}: ${rule.reason}`] };
}
