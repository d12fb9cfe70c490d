import { canonicalJson, sha256Hex } from '../util/digest.js';
import type { AgentPolicy } from './agent-policy.js';

/** sha256 of the policy's canonical JSON: part of the repository-map cache key. */
export function policyDigest(policy: AgentPolicy): string {
  return sha256Hex(canonicalJson(policy));
}
