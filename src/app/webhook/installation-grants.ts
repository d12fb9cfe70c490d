import { z } from 'zod';
import { readArtifactIfPresent, writeArtifact } from '../../core/artifacts/artifact-io.js';
import { installationGrantsKey } from '../../core/artifacts/keys.js';
import type { ArtifactStore, Clock, Logger, TokenBroker } from '../../core/ports.js';
import { canonicalJson } from '../../core/util/digest.js';
import { missingGrants, nothingMissing, type MissingGrants } from '../github/app-grants.js';
import type { GitHubApi } from '../github/github-api.js';

/*
 * An installation that lacks what app.yml asks for (a permission the owner did not accept, an
 * event not delivered) fails later in ways nobody connects to it. On `installation` and
 * `installation_repositories` the intake compares the grants with the App's and tells the admin
 * once: one issue in a repository the installation names, updated when the gap changes, closed
 * when nothing is missing; a log line when it cannot (no issues permission, no repository).
 */

const Repository = z.object({ id: z.number().int(), full_name: z.string() });

export const InstallationGrantsPayload = z.object({
  action: z.string(),
  installation: z.object({
    id: z.number().int(),
    html_url: z.string().optional(),
    permissions: z.record(z.string(), z.string()).default({}),
    events: z.array(z.string()).default([]),
  }),
  repositories: z.array(Repository).optional(),
  repositories_added: z.array(Repository).optional(),
});
type InstallationGrantsPayload = z.infer<typeof InstallationGrantsPayload>;

/** What the intake remembers per installation: the gap it last told, and where. */
export const InstallationGrants = z.object({
  schemaVersion: z.literal(1),
  installationId: z.number().int(),
  missing: z.string(),
  issue: z.object({ owner: z.string(), repo: z.string(), repositoryId: z.number().int(), number: z.number().int() }).optional(),
  updatedAt: z.string(),
});
type InstallationGrants = z.infer<typeof InstallationGrants>;

/** The actions that change what an installation grants or which repositories it covers. */
const ACTS_ON = new Set(['installation.created', 'installation.new_permissions_accepted', 'installation_repositories.added']);

export const GRANTS_MARKER = '<!-- draftsman:grants -->';
const TITLE = 'draftsman is missing permissions or events it needs';

export interface GrantsDeps {
  store: ArtifactStore;
  tokens: TokenBroker;
  github: (token: string) => GitHubApi;
  clock: Clock;
  logger: Logger;
}

export type GrantsOutcome = 'complete' | 'told' | 'already-told' | 'closed' | 'cannot-tell' | 'ignored';

/** The intake's handler for `installation` and `installation_repositories` deliveries. */
export async function onInstallationGrants(deps: GrantsDeps, event: string, raw: unknown): Promise<GrantsOutcome> {
  const payload = InstallationGrantsPayload.parse(raw);
  const installationId = payload.installation.id;
  if (!ACTS_ON.has(`${event}.${payload.action}`)) {
    deps.logger.info('installation event', { event, action: payload.action, installation: installationId });
    return 'ignored';
  }
  const missing = missingGrants(payload.installation);
  const digest = canonicalJson(missing);
  const key = installationGrantsKey(installationId);
  const told = await readArtifactIfPresent(deps.store, key, InstallationGrants);
  if (nothingMissing(missing)) {
    deps.logger.info('installation grants everything the App asks for', { installation: installationId });
    if (!told?.issue || told.missing === digest) return 'complete';
    const closed = await writeIssue(deps, payload, told.issue, { body: `${GRANTS_MARKER}\nNothing is missing any more: thank you.`, state: 'closed' });
    if (closed) await remember(deps, key, installationId, digest, undefined);
    return closed ? 'closed' : 'cannot-tell';
  }
  deps.logger.warn('installation lacks what the App asks for', {
    installation: installationId,
    permissions: missing.permissions.map((p) => `${p.name}:${p.wanted}`),
    events: missing.events,
  });
  if (told?.issue && told.missing === digest) return 'already-told';
  const where = told?.issue ?? firstRepository(payload);
  if (!where) {
    deps.logger.warn('cannot tell the admin what the installation lacks: the event names no repository', { installation: installationId });
    return 'cannot-tell';
  }
  if (missing.permissions.some((p) => p.name === 'issues')) {
    deps.logger.warn('cannot tell the admin what the installation lacks: it does not grant issues: write', { installation: installationId });
    return 'cannot-tell';
  }
  const body = grantsBody(payload, missing);
  const number = told?.issue ? await writeIssue(deps, payload, told.issue, { body, state: 'open' }) : await openIssue(deps, payload, where, body);
  if (number === undefined) return 'cannot-tell';
  await remember(deps, key, installationId, digest, { ...where, number });
  return 'told';
}

function firstRepository(payload: InstallationGrantsPayload): { owner: string; repo: string; repositoryId: number } | undefined {
  const named = [...(payload.repositories ?? []), ...(payload.repositories_added ?? [])].sort((a, b) => (a.full_name < b.full_name ? -1 : 1))[0];
  if (!named) return undefined;
  const [owner, repo] = named.full_name.split('/');
  return owner && repo ? { owner, repo, repositoryId: named.id } : undefined;
}

/** A token that needs only `issues: write` (TOKEN_SCOPES.notice), so it is minted whatever else is missing. */
async function apiFor(deps: GrantsDeps, installationId: number, repositoryId: number): Promise<GitHubApi> {
  const issued = await deps.tokens.token({ installationId, repositoryId, role: 'notice' });
  return deps.github(issued.token);
}

async function openIssue(
  deps: GrantsDeps,
  payload: InstallationGrantsPayload,
  where: { owner: string; repo: string; repositoryId: number },
  body: string,
): Promise<number | undefined> {
  try {
    const api = await apiFor(deps, payload.installation.id, where.repositoryId);
    const created = await api.rest.issues.create({ owner: where.owner, repo: where.repo, title: TITLE, body });
    deps.logger.info('told the admin what the installation lacks', {
      installation: payload.installation.id,
      repository: `${where.owner}/${where.repo}`,
      issue: created.data.number,
    });
    return created.data.number;
  } catch (error) {
    cannotTell(deps, payload, error);
    return undefined;
  }
}

async function writeIssue(
  deps: GrantsDeps,
  payload: InstallationGrantsPayload,
  issue: NonNullable<InstallationGrants['issue']>,
  change: { body: string; state: 'open' | 'closed' },
): Promise<number | undefined> {
  try {
    const api = await apiFor(deps, payload.installation.id, issue.repositoryId);
    await api.rest.issues.update({ owner: issue.owner, repo: issue.repo, issue_number: issue.number, title: TITLE, ...change });
    return issue.number;
  } catch (error) {
    cannotTell(deps, payload, error);
    return undefined;
  }
}

function cannotTell(deps: GrantsDeps, payload: InstallationGrantsPayload, error: unknown): void {
  const status = (error as { status?: unknown }).status;
  deps.logger.warn('cannot tell the admin what the installation lacks', {
    installation: payload.installation.id,
    ...(typeof status === 'number' ? { status } : {}),
    error: error instanceof Error ? error.message : String(error),
  });
}

async function remember(deps: GrantsDeps, key: string, installationId: number, missing: string, issue: InstallationGrants['issue']): Promise<void> {
  await writeArtifact(deps.store, key, InstallationGrants, {
    schemaVersion: 1,
    installationId,
    missing,
    ...(issue ? { issue } : {}),
    updatedAt: new Date(deps.clock.now()).toISOString(),
  });
}

/** The issue's text: each missing permission and event, and where the admin grants them. */
export function grantsBody(payload: InstallationGrantsPayload, missing: MissingGrants): string {
  const settings = payload.installation.html_url ? `the [installation's settings](${payload.installation.html_url})` : "the installation's settings";
  const lines = [
    GRANTS_MARKER,
    `draftsman is installed without some of what it needs, so parts of it cannot work here. An owner of this account accepts them in ${settings} (GitHub asks after the App's owner adds them under the App's "Permissions & events"); this issue is updated when the installation changes and closed when nothing is missing.`,
    '',
  ];
  if (missing.permissions.length > 0) {
    lines.push('**Permissions**', '');
    for (const p of missing.permissions) lines.push(`- \`${p.name}\`: ${p.wanted} (granted: ${p.granted ?? 'none'})`);
    lines.push('');
  }
  if (missing.events.length > 0) {
    lines.push('**Events** (not delivered to the App)', '');
    for (const e of missing.events) lines.push(`- \`${e}\``);
    lines.push('');
  }
  lines.push('What each is used for: app.yml in the draftsman repository, and its docs/operations.md ("Installation grants").');
  return lines.join('\n');
}
