import { z } from 'zod';
import type { CiStatus } from '../../core/ports.js';
import { isFailingConclusion } from '../../core/runs/ci-failure.js';
import type { GitHubApi } from '../github/github-api.js';

const Sha = z.string().regex(/^[0-9a-f]{40}$/);

export const CiCheck = z.object({ name: z.string(), status: z.string(), conclusion: z.string().nullable(), url: z.string().optional() });

/** A commit's CI as read through the checks and statuses APIs (with a read token). */
export const CiSnapshot = z.object({
  state: z.enum(['unavailable', 'pending', 'success', 'failure', 'mixed']),
  checks: z.array(CiCheck),
});
export type CiSnapshot = z.infer<typeof CiSnapshot>;

/**
 * `runs/<o>/<r>/<runId>/ci/<id>.json`: one CI observation about an agent PR, written by the
 * webhook (check suite completed, commit status, PR closed) or the sweeper (poll). The
 * publisher reacts to its creation. `snapshot` is what the checks API said about `headSha`
 * when the object was written: evidence read from GitHub, never a claim from the run.
 */
export const CiEvent = z.object({
  schemaVersion: z.literal(1),
  kind: z.enum(['check_suite', 'status', 'poll', 'pr-closed']),
  runId: z.string().min(1),
  owner: z.string().min(1),
  repo: z.string().min(1),
  branch: z.string().min(1),
  headSha: Sha,
  checkSuite: z.object({ id: z.number().int(), conclusion: z.string().nullable(), app: z.string(), url: z.string().optional() }).optional(),
  status: z.object({ id: z.number().int(), context: z.string(), state: z.string(), url: z.string().optional() }).optional(),
  pullRequest: z.object({ number: z.number().int().positive(), merged: z.boolean() }).optional(),
  snapshot: CiSnapshot.optional(),
  recordedAt: z.string(),
});
export type CiEvent = z.infer<typeof CiEvent>;

/** Overall state: pending while anything runs, else success / failure / mixed. */
export function ciState(checks: readonly { status: string; conclusion: string | null }[]): CiStatus['state'] {
  if (checks.length === 0) return 'pending';
  if (checks.some((c) => c.status !== 'completed' || c.conclusion === null)) return 'pending';
  const failing = checks.filter((c) => isFailingConclusion(c.conclusion)).length;
  if (failing === 0) return 'success';
  return failing === checks.length ? 'failure' : 'mixed';
}

/**
 * Read every check run and the combined commit status of `sha`. Needs checks:read and
 * statuses:read, which only token-read has: the webhook and the sweeper call this, the
 * publisher (token-write: no checks scope) only renders what they stored.
 */
export async function readCiSnapshot(api: GitHubApi, owner: string, repo: string, sha: string): Promise<CiSnapshot> {
  const checks: z.infer<typeof CiCheck>[] = [];
  for (let page = 1; page <= 10; page++) {
    const res = await api.rest.checks.listForRef({ owner, repo, ref: sha, per_page: 100, page });
    for (const run of res.data.check_runs) {
      checks.push({ name: run.name, status: run.status, conclusion: run.conclusion ?? null, url: run.details_url ?? run.html_url ?? undefined });
    }
    if (res.data.check_runs.length < 100) break;
  }
  const combined = await api.rest.repos.getCombinedStatusForRef({ owner, repo, ref: sha, per_page: 100 });
  for (const s of combined.data.statuses) {
    const done = s.state !== 'pending';
    checks.push({ name: s.context, status: done ? 'completed' : 'in_progress', conclusion: done ? s.state : null, url: s.target_url ?? undefined });
  }
  checks.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { state: ciState(checks), checks };
}
