import { scoreRisk, type RiskFile, type RiskLevel, type RiskReport } from '../git/risk-score.js';
import type { PathRules } from '../paths/path-rules.js';

const LEVELS: readonly RiskLevel[] = ['LOW', 'MEDIUM', 'HIGH'];

/**
 * The risk of a change under a policy: the file score, raised by the policy's risk rules (the
 * highest level wins). The review phase and the publisher both decide gates from this, so a
 * gate approved on one side is the same gate on the other.
 */
export function changeRisk(files: readonly RiskFile[], rules: PathRules): RiskReport {
  const scored = scoreRisk({ files: [...files], rules });
  let level = scored.riskLevel;
  const reasons = [...scored.reasons];
  for (const file of files) {
    const rule = rules.riskFor(file.path);
    if (!rule) continue;
    reasons.push(`${file.path}: ${rule.reason} (policy risk rule, ${rule.level})`);
    if (LEVELS.indexOf(rule.level) > LEVELS.indexOf(level)) level = rule.level;
  }
  const requiredGate = level === 'HIGH' ? 'HUMAN_APPROVAL_BEFORE_PR' : level === 'MEDIUM' ? 'HUMAN_REVIEW' : scored.requiredGate;
  return { ...scored, riskLevel: level, reasons, requiredGate };
}
