import type { CiStatus, CiStatusReader } from '../../core/ports.js';
import type { GitHubApi } from '../github/github-api.js';

/** The CI state of a commit through the checks and statuses APIs (read scopes). */
export function githubCiStatus(api: GitHubApi, owner: string, repo: string): CiStatusReader {
  return {
    async read(commitSha: string): Promise<CiStatus> {
      try {
        const runs = await api.rest.checks.listForRef({ owner, repo, ref: commitSha, per_page: 100 });
        const checks = runs.data.check_runs.map((r) => ({ name: r.name, status: r.status, conclusion: r.conclusion ?? null, url: r.html_url ?? undefined }));
        if (checks.length === 0) return { state: 'unavailable', checks };
        const done = checks.every((c) => c.status === 'completed');
        const failed = checks.some((c) => c.conclusion && !['success', 'neutral', 'skipped'].includes(c.conclusion));
        const state = !done ? 'pending' : failed ? (checks.some((c) => c.conclusion === 'success') ? 'mixed' : 'failure') : 'success';
        return { state, checks };
      } catch {
        return { state: 'unavailable', checks: [] };
      }
    },
  };
}
