import type { RepoInfo } from '../ports.js';
import type { ClonePlan } from './artifacts.js';
import type { IngestionPolicy } from './ingestion-policy.js';

const MIB = 1024 * 1024;

/**
 * Decide how to fetch, and say why. There is one strategy: depth 1, no checkout, objects in
 * memory (isomorphic-git has no partial clone, so "sparse" is a read scope, not a smaller
 * download). The byte cap comes from the policy's repository size limit.
 */
export function planClone(options: { info: RepoInfo; policy: IngestionPolicy; paths?: string[] }): ClonePlan {
  const { info, policy, paths } = options;
  const reasons = ['depth 1: only the base commit is needed; history is never read', 'no checkout: files are read lazily from the object store'];
  if (info.sizeKb !== undefined) reasons.push(`provider reports ${info.sizeKb} KiB (limit ${policy.maxRepoSizeMb} MiB)`);
  else reasons.push('provider reports no size: the byte cap is the only size guard');
  const scoped = paths !== undefined && paths.length > 0;
  if (scoped) reasons.push(`read scope from the task's paths (${paths.length}); the whole commit is still fetched, reads are limited`);
  else reasons.push('no paths given: the read scope is the whole repository');
  return {
    strategy: 'shallow-object-backed',
    depth: 1,
    checkout: 'none',
    maxBytes: Math.max(1, Math.floor(policy.maxRepoSizeMb * MIB)),
    readScope: { mode: scoped ? 'paths' : 'all', patterns: scoped ? [...paths] : [] },
    reasons,
  };
}
