import { binaryStringToBytes } from '../git/binary-string.js';
import type { FilePatch } from '../git/unified-patch.js';
import { addedLinesOfPatch, changeRuleFirings, type RuleFiring } from '../paths/policy-rules.js';
import type { AgentRule } from '../policy/agent-rules.js';
import type { PrCandidate } from '../git/pr-candidate.js';
import { candidatePatches } from './candidate-cheats.js';

/**
 * The `on: change` rules a change fires, from its per-file patches: the worker's scope guard
 * runs it on the workspace's diff, the publisher on the candidate's blobs against the base under
 * the trusted policy, so a worker that skipped the check is still refused.
 */
export function patchRuleFirings(rules: readonly AgentRule[], patches: readonly Pick<FilePatch, 'path' | 'kind' | 'binary' | 'text'>[]): RuleFiring[] {
  if (!rules.some((r) => r.on === 'change')) return [];
  const decoder = new TextDecoder();
  return changeRuleFirings(
    rules,
    patches.map((p) => ({
      path: p.path,
      deleted: p.kind === 'DELETED',
      addedLines: p.binary ? [] : addedLinesOfPatch(decoder.decode(binaryStringToBytes(p.text))),
    })),
  );
}

/** The change rules a candidate fires: its blobs against the base's bytes (the publisher's check). */
export async function candidateRuleFirings(
  candidate: Pick<PrCandidate, 'files'>,
  rules: readonly AgentRule[],
  readChange: (blobSha: string) => Promise<Uint8Array | undefined>,
  readBase: (path: string) => Promise<Uint8Array | undefined>,
): Promise<RuleFiring[]> {
  if (!rules.some((r) => r.on === 'change')) return [];
  return patchRuleFirings(rules, (await candidatePatches(candidate, readChange, readBase)).patches);
}
