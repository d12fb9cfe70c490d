import type { GitHubApi } from '../github/github-api.js';
import type { SweepDeps } from './sweep.js';

/**
 * Run `act` with a read-role client for one repository (a token-read token, enough to edit or
 * post the App's comments): true when it completed, false when the token or GitHub refused,
 * logged. The sweeper's passes say what they did on a run's progress comment through it; one
 * refused comment never stops a sweep.
 */
export async function withRepositoryApi(
  deps: SweepDeps,
  source: { installationId: number; repositoryId: number },
  runId: string,
  act: (api: GitHubApi) => Promise<unknown>,
): Promise<boolean> {
  try {
    const issued = await deps.tokens.token({ installationId: source.installationId, repositoryId: source.repositoryId, role: 'read' });
    await act(deps.github(issued.token));
    return true;
  } catch (error) {
    deps.logger.warn('progress comment not updated', { runId, status: (error as { status?: number }).status });
    return false;
  }
}
