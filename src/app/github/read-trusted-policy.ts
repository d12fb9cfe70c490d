import { z } from 'zod';
import { MAX_POLICY_FILE_BYTES, POLICY_FILE_NAME, type AgentPolicy } from '../../core/policy/agent-policy.js';
import { parsePolicy } from '../../core/policy/parse-policy.js';
import { PolicyError } from '../../core/policy/policy-error.js';
import type { GitHubApi } from './github-api.js';

/**
 * What the trusted policy of a repository is. `ok` with the parsed policy (the documented
 * defaults when the file is missing, then `bytes` is undefined), or not `ok` with the
 * PolicyError that refuses it: POLICY_FILE_TOO_LARGE for a file over MAX_POLICY_FILE_BYTES
 * (decided from the size GitHub states, before any content is decoded), POLICY_FILE_INVALID for
 * anything else. `commitSha` is the default branch head it was read at.
 */
export type TrustedPolicy =
  | { ok: true; policy: AgentPolicy; bytes: Uint8Array | undefined; defaultBranch: string; commitSha: string }
  | { ok: false; error: PolicyError; defaultBranch: string; commitSha: string };

/** The contents API's answer for one path: a file, or anything else (a directory is an array). */
const ContentsFile = z.object({
  type: z.string(),
  size: z.number().int().nonnegative(),
  sha: z.string(),
  encoding: z.string().optional(),
  content: z.string().optional(),
});

/**
 * `.agent-policy.yaml` as of the default branch's head: never a fork, a pull request head or
 * the agent branch, whoever asks (webhook, worker, publisher). GitHub answers files over 1 MB
 * with `encoding: "none"` and no content; those are refused by their stated size, so a large
 * file is never downloaded. A path that is not a regular file is refused too. Errors other than
 * a 404 (rate limits, outages) are thrown for the caller's retry.
 */
export async function readTrustedPolicy(api: GitHubApi, repository: { owner: string; repo: string; defaultBranch: string }): Promise<TrustedPolicy> {
  const { owner, repo, defaultBranch } = repository;
  const branch = await api.rest.repos.getBranch({ owner, repo, branch: defaultBranch });
  const commitSha = branch.data.commit.sha;
  const where = { defaultBranch, commitSha };
  let data: unknown;
  try {
    data = (await api.rest.repos.getContent({ owner, repo, path: POLICY_FILE_NAME, ref: commitSha })).data;
  } catch (error) {
    if ((error as { status?: number }).status !== 404) throw error;
    return { ok: true, policy: parsePolicy({ text: undefined }), bytes: undefined, ...where };
  }
  const file = ContentsFile.safeParse(data);
  if (!file.success || file.data.type !== 'file') {
    return { ok: false, error: refusal('POLICY_FILE_INVALID', `${POLICY_FILE_NAME} on ${defaultBranch} is not a regular file`), ...where };
  }
  if (file.data.size > MAX_POLICY_FILE_BYTES) {
    const size = file.data.size;
    return {
      ok: false,
      error: refusal('POLICY_FILE_TOO_LARGE', `the file is ${size} bytes; a policy may be at most ${MAX_POLICY_FILE_BYTES} bytes`, size),
      ...where,
    };
  }
  let bytes: Uint8Array;
  if (file.data.encoding === 'base64' && file.data.content !== undefined) {
    bytes = Buffer.from(file.data.content, 'base64');
  } else {
    // Not expected under the size cap, but GitHub documents other encodings: the blob API always answers base64.
    const blob = await api.rest.git.getBlob({ owner, repo, file_sha: file.data.sha });
    bytes = Buffer.from(blob.data.content, 'base64');
  }
  try {
    return { ok: true, policy: parsePolicy({ text: bytes, file: POLICY_FILE_NAME }), bytes, ...where };
  } catch (error) {
    if (error instanceof PolicyError) return { ok: false, error, ...where };
    throw error;
  }
}

function refusal(reason: 'POLICY_FILE_INVALID' | 'POLICY_FILE_TOO_LARGE', message: string, sizeBytes?: number): PolicyError {
  return new PolicyError(reason, `${POLICY_FILE_NAME}: ${message}`, {
    file: POLICY_FILE_NAME,
    ...(sizeBytes === undefined ? {} : { sizeBytes }),
    problems: [{ file: POLICY_FILE_NAME, line: 1, column: 1, path: '', type: 'SCHEMA', message }],
  });
}
