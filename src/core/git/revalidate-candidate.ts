import type { SymlinkLookup } from '../paths/symlinks.js';
import { AgentError } from '../errors.js';
import type { WritePolicy } from '../paths/write-rules.js';
import { normalizeRepoPath, resolveLinkTarget } from '../util/repo-path.js';
import { assertAgentBranchName } from './branch-name.js';
import type { GitBoundaryReason } from './git-boundary-error.js';
import { PrCandidate } from './pr-candidate.js';
import type { ChangesReader } from './rebuild-tree.js';
import { addedLines, describeFinding, scanChanges, type SecretFinding } from '../secrets/secret-scan.js';
import { policyDenial } from './stage-paths.js';
import { blobSha } from '../objects/tree-hash.js';

export interface PublishRules {
  /** The TRUSTED policy (default branch head), not anything from the candidate. */
  policy: WritePolicy;
  maxChangedFiles?: number;
  maxDiffLines?: number;
  /** The base tree's symlinks: a path is judged on where it lands through them as well. */
  symlinks?: SymlinkLookup;
}

export interface CandidateProblem {
  reason: GitBoundaryReason;
  path?: string;
  /** The secret-scan rule and line, for SECRET_DETECTED. */
  rule?: string;
  line?: number;
  message: string;
}

export interface RevalidationReport {
  ok: boolean;
  problems: CandidateProblem[];
  secretFindings: SecretFinding[];
  /** Added + removed lines, recomputed from the blobs when base contents are readable, else from the summary. */
  diffLines: number;
}

const decoder = new TextDecoder();
const lineCount = (b: Uint8Array | undefined) => (b && b.length > 0 ? decoder.decode(b).replace(/\n$/, '').split('\n').length : 0);

/**
 * Re-check a candidate against trusted rules before anything is published: schema, branch
 * name, paths (workflows, forbidden, scope, lockfile/generated), budgets, blob integrity and
 * a secret scan of the added lines. Trusts nothing in the candidate it can recompute.
 * `readBase` (path -> base bytes) lets it diff against the base; without it whole files are scanned.
 */
export async function revalidateCandidate(
  input: unknown,
  rules: PublishRules,
  readChange: ChangesReader,
  readBase?: (path: string) => Promise<Uint8Array | undefined>,
): Promise<RevalidationReport> {
  const problems: CandidateProblem[] = [];
  const parsed = PrCandidate.safeParse(input);
  if (!parsed.success) {
    return { ok: false, problems: [{ reason: 'CANDIDATE_INVALID', message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }], secretFindings: [], diffLines: 0 };
  }
  const candidate = parsed.data;
  try {
    assertAgentBranchName(candidate.headBranch);
  } catch (error) {
    problems.push({ reason: 'INVALID_BRANCH_NAME', message: error instanceof Error ? error.message : String(error) });
  }
  const scanned: { path: string; oldBytes?: Uint8Array; newBytes?: Uint8Array }[] = [];
  let diffLines = 0;
  const seen = new Set<string>();
  for (const f of candidate.files) {
    let path: string;
    try {
      path = normalizeRepoPath(f.path);
    } catch (error) {
      problems.push({ reason: 'PATH_OUTSIDE_WORKSPACE', path: f.path, message: error instanceof AgentError ? error.reason : 'invalid path' });
      continue;
    }
    if (path !== f.path || seen.has(path)) {
      problems.push({ reason: 'CANDIDATE_INVALID', path: f.path, message: 'path is not normalised or appears twice' });
      continue;
    }
    seen.add(path);
    const denial = policyDenial(path, rules.policy, rules.symlinks);
    if (denial) problems.push({ reason: denial.reason, path, message: denial.message });
    const oldBytes = readBase ? await readBase(path) : undefined;
    if ('deleted' in f) {
      diffLines += lineCount(oldBytes);
      continue;
    }
    const bytes = await readChange(f.blobSha);
    if (!bytes) {
      problems.push({ reason: 'BLOB_MISSING', path, message: `blob ${f.blobSha} is missing` });
      continue;
    }
    if (blobSha(bytes) !== f.blobSha) {
      problems.push({ reason: 'BLOB_MISMATCH', path, message: `bytes do not hash to ${f.blobSha}` });
      continue;
    }
    if (f.mode === '120000' && resolveLinkTarget(path, new TextDecoder().decode(bytes)) === undefined) {
      problems.push({ reason: 'PATH_THROUGH_SYMLINK', path, message: 'symlink points outside the repository' });
    }
    scanned.push({ path, oldBytes, newBytes: bytes });
  }
  const secretFindings = scanChanges(scanned, rules.policy);
  for (const s of secretFindings) problems.push({ reason: 'SECRET_DETECTED', path: s.path, rule: s.rule, line: s.line, message: describeFinding(s) });
  if (readBase) {
    for (const s of scanned) {
      const added = addedLines(s.oldBytes, s.newBytes!).length;
      diffLines += added + Math.max(0, lineCount(s.oldBytes) - (lineCount(s.newBytes) - added));
    }
  } else diffLines = candidate.diffSummary.insertions + candidate.diffSummary.deletions;
  if (rules.maxChangedFiles !== undefined && candidate.files.length > rules.maxChangedFiles) {
    problems.push({ reason: 'BUDGET_EXCEEDED', message: `${candidate.files.length} files changed, more than ${rules.maxChangedFiles}` });
  }
  if (rules.maxDiffLines !== undefined && diffLines > rules.maxDiffLines) {
    problems.push({ reason: 'BUDGET_EXCEEDED', message: `${diffLines} changed lines, more than ${rules.maxDiffLines}` });
  }
  return { ok: problems.length === 0, problems, secretFindings, diffLines };
}
