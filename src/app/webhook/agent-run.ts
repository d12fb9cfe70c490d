import { readArtifactIfPresent } from '../../core/artifacts/artifact-io.js';
import { runKeys, type RunKeys } from '../../core/artifacts/keys.js';
import { parseAgentBranch } from '../../core/runs/run-branch.js';
import type { ArtifactStore } from '../../core/ports.js';
import { RunRequest } from '../../core/runs/run-request.js';

export interface AgentRun {
  keys: RunKeys;
  request: RunRequest;
  source: Extract<RunRequest['source'], { kind: 'github' }>;
  /** The issue the run belongs to. */
  issue: number;
}

/**
 * The run an agent branch belongs to: the branch must parse as `agent/i<issue>/r<runId>` and
 * the run's own `request.json` (written by the webhook only) must agree on the repository, the
 * branch and the issue. Anything else is not an agent branch of a known run.
 */
export async function findAgentRun(
  store: ArtifactStore,
  repository: { id: number; name: string; owner: { login: string } },
  branch: string | null | undefined,
): Promise<AgentRun | undefined> {
  const parsed = parseAgentBranch(branch);
  if (!parsed || parsed.issue === undefined) return undefined;
  const keys = runKeys(repository.owner.login, repository.name, parsed.runId);
  const request = await readArtifactIfPresent(store, keys.request, RunRequest).catch(() => undefined);
  if (!request || request.source.kind !== 'github' || request.source.repositoryId !== repository.id || request.agentBranch !== branch) return undefined;
  if (request.issue?.number !== parsed.issue) return undefined;
  return { keys, request, source: request.source, issue: parsed.issue };
}
