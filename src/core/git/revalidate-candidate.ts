import type { SymlinkLookup } from '../paths/symlinks.js';
import { AgentError } from '../errors.js';
import type { WritePolicy } from '../paths/write-rules.js';
import { normalizeRepoPath, resolveLinkTarget } from '../util/repo-path.js';
import { assertAgentBranchName } from './branch-name.js';
import type { GitBoundaryReason } from './git-boundary-error.js';
import { PrCandidate, type CandidateFile } from './pr-candidate.js';
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

type ScannedFile = { path: string; oldBytes?: Uint8Array; newBytes: Uint8Array };
type BaseReader = (path: string) => Promise<Uint8Array | undefined>;

/** The candidate's path, normalised and seen once; undefined (with a problem recorded) otherwise. */
function checkedPath(f: CandidateFile, seen: Set<string>, problems: CandidateProblem[]): string | undefined {
  let path: string;
  try {
    path = normalizeRepoPath(f.path);
  } catch (error) {
    problems.push({ reason: 'PATH_OUTSIDE_WORKSPACE', path: f.path, message: error instanceof AgentError ? error.reason : 'invalid path' });
    return undefined;
  }
  if (path !== f.path || seen.has(path)) {
    problems.push({ reason: 'CANDIDATE_INVALID', path: f.path, message: 'path is not normalised or appears twice' });
    return undefined;
  }
  seen.add(path);
  return path;
}

/** The new bytes of a written file when they exist, hash to its blob id and link inside the repository. */
async function checkedBytes(
  f: Extract<CandidateFile, { blobSha: string }>,
  path: string,
  readChange: ChangesReader,
  problems: CandidateProblem[],
): Promise<Uint8Array | undefined> {
  const bytes = await readChange(f.blobSha);
  if (!bytes) {
    problems.push({ reason: 'BLOB_MISSING', path, message: `blob ${f.blobSha} is missing` });
    return undefined;
  }
  if (blobSha(bytes) !== f.blobSha) {
    problems.push({ reason: 'BLOB_MISMATCH', path, message: `bytes do not hash to ${f.blobSha}` });
    return undefined;
  }
  if (f.mode === '120000' && resolveLinkTarget(path, decoder.decode(bytes)) === undefined) {
    problems.push({ reason: 'PATH_THROUGH_SYMLINK', path, message: 'symlink points outside the repository' });
  }
  return bytes;
}

/** Added + removed lines of the scanned files, plus the lines of deleted files already counted. */
function recomputedDiffLines(scanned: ScannedFile[], deletedLines: number): number {
  let diffLines = deletedLines;
  for (const s of scanned) {
    const added = addedLines(s.oldBytes, s.newBytes).length;
    diffLines += added + Math.max(0, lineCount(s.oldBytes) - (lineCount(s.newBytes) - added));
  }
  return diffLines;
}

function budgetProblems(files: number, diffLines: number, rules: PublishRules): CandidateProblem[] {
  const problems: CandidateProblem[] = [];
  if (rules.maxChangedFiles !== undefined && files > rules.maxChangedFiles) {
    problems.push({ reason: 'BUDGET_EXCEEDED', message: `${files} files changed, more than ${rules.maxChangedFiles}` });
  }
  if (rules.maxDiffLines !== undefined && diffLines > rules.maxDiffLines) {
    problems.push({ reason: 'BUDGET_EXCEEDED', message: `${diffLines} changed lines, more than ${rules.maxDiffLines}` });
  }
  return problems;
}

/**
 * Re-check a candidate against trusted rules before anything is published: schema, branch
 * name, paths (workflows, forbidden, scope, lockfile/generated), budgets, blob integrity and
 * a secret scan of the added lines. Trusts nothing in the candidate it can recompute.
 * `readBase` (path -> base bytes) lets it diff against the base; without it whole files are scanned.
 */
export async function revalidateCandidate(input: unknown, rules: PublishRules, readChange: ChangesReader, readBase?: BaseReader): Promise<RevalidationReport> {
  const problems: CandidateProblem[] = [];
  const parsed = PrCandidate.safeParse(input);
  if (!parsed.success) {
    return {
      ok: false,
      problems: [{ reason: 'CANDIDATE_INVALID', message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') }],
      secretFindings: [],
      diffLines: 0,
    };
  }
  const candidate = parsed.data;
  try {
    assertAgentBranchName(candidate.headBranch);
  } catch (error) {
    problems.push({ reason: 'INVALID_BRANCH_NAME', message: error instanceof Error ? error.message : String(error) });
  }
  const scanned: ScannedFile[] = [];
  let deletedLines = 0;
  const seen = new Set<string>();
  for (const f of candidate.files) {
    const path = checkedPath(f, seen, problems);
    if (path === undefined) continue;
    const denial = policyDenial(path, rules.policy, rules.symlinks);
    if (denial) problems.push({ reason: denial.reason, path, message: denial.message });
    const oldBytes = readBase ? await readBase(path) : undefined;
    if ('deleted' in f) {
      deletedLines += lineCount(oldBytes);
      continue;
    }
    const bytes = await checkedBytes(f, path, readChange, problems);
    if (bytes) scanned.push({ path, oldBytes, newBytes: bytes });
  }
  const secretFindings = scanChanges(scanned, rules.policy);
  for (const s of secretFindings) problems.push({ reason: 'SECRET_DETECTED', path: s.path, rule: s.rule, line: s.line, message: describeFinding(s) });
  const diffLines = readBase ? recomputedDiffLines(scanned, deletedLines) : candidate.diffSummary.insertions + candidate.diffSummary.deletions;
  problems.push(...budgetProblems(candidate.files.length, diffLines, rules));
  return { ok: problems.length === 0, problems, secretFindings, diffLines };
}
