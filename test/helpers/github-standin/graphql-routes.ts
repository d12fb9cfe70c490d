import { Kind, parse, type FieldNode, type OperationDefinitionNode, type ValueNode } from 'graphql';
import type { AuthResult } from './auth.js';
import type { RepoState } from './repo-state.js';
import type { RouteResult } from './route-context.js';

/**
 * GitHub's GraphQL endpoint (`POST /graphql`) for the one mutation draftsman uses,
 * `markPullRequestReadyForReview`: the pull request by its node id (`PR_<repo id>_<number>`),
 * an installation token that can see the repository and holds pull_requests: write, and an
 * answer with the fields asked for. The query is checked against GitHub's published schema by
 * the contract check (`test/helpers/openapi/contract-check.ts`); GraphQL errors come back with
 * status 200, as GitHub answers them.
 */
const graphqlError = (message: string, type?: string): RouteResult => ({ status: 200, body: { errors: [{ ...(type ? { type } : {}), message }] } });

function valueOf(node: ValueNode, variables: Record<string, unknown>): unknown {
  if (node.kind === Kind.VARIABLE) return variables[node.name.value];
  if (node.kind === Kind.STRING || node.kind === Kind.ENUM) return node.value;
  if (node.kind === Kind.OBJECT) return Object.fromEntries(node.fields.map((f) => [f.name.value, valueOf(f.value, variables)]));
  return undefined;
}

function selected(field: FieldNode, values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of field.selectionSet?.selections ?? []) {
    if (s.kind !== Kind.FIELD) continue;
    const name = s.alias?.value ?? s.name.value;
    const value = values[s.name.value];
    out[name] = value && typeof value === 'object' && s.selectionSet ? selected(s, value as Record<string, unknown>) : (value ?? null);
  }
  return out;
}

/** The mutation's `input.pullRequestId`, from a literal or a variable. */
function pullRequestIdOf(field: FieldNode, variables: Record<string, unknown>): string {
  const input = field.arguments?.find((a) => a.name.value === 'input')?.value;
  const value = input ? (valueOf(input, variables) as { pullRequestId?: unknown } | undefined) : undefined;
  return String(value?.pullRequestId ?? '');
}

/** The field a mutation document asks for first, when it is a mutation. */
function mutationField(query: string): FieldNode | undefined {
  const operation = parse(query).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (operation?.operation !== 'mutation') return undefined;
  return operation.selectionSet.selections.find((s): s is FieldNode => s.kind === Kind.FIELD);
}

export function graphqlRoute(body: unknown, auth: AuthResult, repos: Iterable<RepoState>, now: number): RouteResult {
  if (auth.kind !== 'installation') return { status: 401, body: { message: 'This endpoint requires you to be authenticated.' } };
  const { query, variables = {} } = (body ?? {}) as { query?: unknown; variables?: Record<string, unknown> };
  if (typeof query !== 'string') return graphqlError('A query attribute must be specified and must be a string.');
  const field = mutationField(query);
  if (field?.name.value !== 'markPullRequestReadyForReview') return graphqlError('the stand-in serves the markPullRequestReadyForReview mutation only');
  const pullRequestId = pullRequestIdOf(field, variables);
  const id = /^PR_(\d+)_(\d+)$/.exec(pullRequestId);
  const repo = id ? [...repos].find((r) => r.id === Number(id[1])) : undefined;
  const pull = id ? repo?.pulls.get(Number(id[2])) : undefined;
  if (!repo || !pull || !auth.token.repositoryIds.includes(repo.id))
    return graphqlError(`Could not resolve to a node with the global id of '${pullRequestId}'`, 'NOT_FOUND');
  if (auth.token.permissions.pull_requests !== 'write') return graphqlError('Resource not accessible by integration', 'FORBIDDEN');
  pull.draft = false;
  pull.updatedAt = now;
  const payload = { pullRequest: { id: pullRequestId, number: pull.number, isDraft: false } };
  return { status: 200, body: { data: { [field.alias?.value ?? field.name.value]: selected(field, payload) } } };
}
