import { changeRuleFirings, type RuleFiring } from '../paths/policy-rules.js';
import type { AgentRule } from '../policy/agent-rules.js';
import { addedLines } from '../secrets/secret-scan.js';

/** One changed file, and how to read its bytes before and after the change. */
export interface RuleCheckedFile {
  path: string;
  deleted: boolean;
}

export interface ChangeBytes {
  before(path: string): Promise<Uint8Array | undefined>;
  after(path: string): Promise<Uint8Array | undefined>;
}

/**
 * The `on: change` rules a change fires. The worker's scope guard runs it on the workspace, the
 * publisher on the candidate's blobs against the base under the trusted policy, so a worker that
 * skipped the check is still refused. The added lines are the secret scan's (the same bounded
 * line diff as the patch), read only when a rule asks about them.
 */
export async function changeFirings(rules: readonly AgentRule[], files: readonly RuleCheckedFile[], bytes: ChangeBytes): Promise<RuleFiring[]> {
  const changeRules = rules.some((r) => r.on === 'change');
  if (!changeRules) return [];
  const needLines = rules.some((r) => r.on === 'change' && r.addedLines !== undefined);
  const changes = [];
  for (const file of files) {
    let lines: string[] = [];
    if (needLines && !file.deleted) {
      const after = await bytes.after(file.path);
      if (after) lines = addedLines(await bytes.before(file.path), after).map((l) => l.text);
    }
    changes.push({ path: file.path, deleted: file.deleted, addedLines: lines });
  }
  return changeRuleFirings(rules, changes);
}
