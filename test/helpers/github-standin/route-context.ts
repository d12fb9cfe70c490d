import { grants, type MintedToken } from './auth.js';
import type { RepoState, StandinUser } from './repo-state.js';

export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  tokenMinted?: MintedToken;
}

export interface RouteContext {
  method: string;
  /** The path after `/repos/{owner}/{repo}`, still URL-encoded. */
  rest: string;
  query: URLSearchParams;
  body: unknown;
  repo: RepoState;
  baseUrl: string;
  now(): number;
  nextId(): number;
  botUser: StandinUser;
  users: Map<string, StandinUser>;
  user(login: string): StandinUser;
  permissions: Record<string, string>;
  tokenId?: string;
  anonymous: boolean;
}

/**
 * One route under `/repos/{owner}/{repo}`: a method, a pattern over the rest of the path, and
 * its handler, which gets the pattern's match and the request body as an object.
 */
export interface RepoRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: RegExp;
  handle(ctx: RouteContext, m: RegExpExecArray, body: Record<string, unknown>): RouteResult | Promise<RouteResult>;
}

export const notFound: RouteResult = { status: 404, body: { message: 'Not Found' } };
const forbidden: RouteResult = { status: 403, body: { message: 'Resource not accessible by integration' } };

/** The permission check GitHub applies to an installation token (any of `options` suffices). */
export function need(ctx: RouteContext, ...options: [string, 'read' | 'write'][]): RouteResult | undefined {
  if (ctx.anonymous) {
    return options.every(([, level]) => level === 'read') ? undefined : { status: 401, body: { message: 'Requires authentication' } };
  }
  return options.some(([p, l]) => grants(ctx.permissions, p, l)) ? undefined : forbidden;
}

/** A handler that runs only when the token holds one of `options`. */
export function guarded(options: [string, 'read' | 'write'][], handle: RepoRoute['handle']): RepoRoute['handle'] {
  return (ctx, m, body) => need(ctx, ...options) ?? handle(ctx, m, body);
}

export function obj(body: unknown): Record<string, unknown> {
  return body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
}

/** `per_page` (default 30, capped at `max`) and the slice start of `page` (default 1). */
export function pageOf(query: URLSearchParams, max = Infinity): { start: number; perPage: number } {
  const perPage = Math.min(max, Number(query.get('per_page') ?? 30));
  return { start: (Number(query.get('page') ?? 1) - 1) * perPage, perPage };
}

/** A 422 with GitHub's message. */
export const unprocessable = (message: string): RouteResult => ({ status: 422, body: { message } });

/** The stand-in's stand-in for the signature of a job log's download URL (GitHub's expire after a minute). */
export function jobLogSignature(jobId: number): string {
  return `standin-${jobId}`;
}
