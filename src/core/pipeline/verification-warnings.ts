import type { VerificationReport } from '../git/verification-report.js';
import { COMMAND_STATUS_TEXT, commandFailed } from '../verify/command-result.js';

/**
 * What a published change that did not pass verification says first in its body: a partial
 * change (agent.publishPartial) names the static checks it fails; a change whose project checks
 * failed (agent.verify.required: false) names the commands.
 */
export function verificationWarnings(report: VerificationReport | undefined): string[] {
  if (!report) return [];
  const out: string[] = [];
  if (report.status === 'FAILED') {
    const failed = report.checks.filter((c) => c.status === 'FAILED').map((c) => `${c.name}: ${c.detail ?? 'failed'}`);
    out.push(`Partial change, published because agent.publishPartial is set: the change does not pass ${failed.join('; ')}.`);
  }
  const failing = (report.commands ?? []).filter(commandFailed);
  if (failing.length > 0) {
    const list = failing.map((c) => `\`${c.run}\` ${COMMAND_STATUS_TEXT[c.status]}${c.exitCode !== null ? ` (exit ${c.exitCode})` : ''}`).join('; ');
    out.push(`Checks failing: ${list}. Published because agent.verify.required is false; see Verification.`);
  }
  return out;
}
