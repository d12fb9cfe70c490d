import { createRequire } from 'node:module';

/**
 * GitHub's published OpenAPI description of api.github.com (`@octokit/openapi`), loaded once per
 * test process on first use, with an index of its operations for matching requests.
 */

type Json = Record<string, unknown>;

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Json;
  /** GitHub's mark for a path parameter that may span several segments (`{ref}`, `{path}`). */
  'x-multi-segment'?: boolean;
}

export interface OpenApiOperation {
  operationId: string;
  method: string;
  /** The path template, e.g. `/repos/{owner}/{repo}/git/refs/{ref}`. */
  template: string;
  parameters: OpenApiParameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Json }> };
  responses: Record<string, { content?: Record<string, { schema?: Json }> }>;
  docsUrl?: string;
}

export interface OperationMatch {
  operation: OpenApiOperation;
  /** Path parameters, percent-decoded. */
  pathParams: Record<string, string>;
}

interface IndexedTemplate {
  operation: OpenApiOperation;
  segments: ({ literal: string } | { param: string; multi: boolean })[];
}

export interface GitHubDescription {
  document: Json & { components: Record<string, Record<string, Json>> };
  operations: Map<string, OpenApiOperation>;
  match(method: string, pathname: string): OperationMatch | undefined;
  /** Follows `$ref`s (local ones only: the description has no others). */
  resolve<T = Json>(node: unknown): T;
}

const METHODS = ['get', 'put', 'post', 'patch', 'delete', 'head'];

let cached: GitHubDescription | undefined;

/** The description, parsed on first call (about 0.3 s) and kept for the rest of the process. */
export function githubDescription(): GitHubDescription {
  cached ??= load();
  return cached;
}

function load(): GitHubDescription {
  const require = createRequire(import.meta.url);
  // The `$ref` form (13 MB) rather than the dereferenced one (73 MB): schemas are assembled per operation.
  const document = require('@octokit/openapi/generated/api.github.com.json') as GitHubDescription['document'];
  const resolve = <T>(node: unknown): T => {
    let current = node as Json;
    for (let hops = 0; current && typeof current.$ref === 'string'; hops++) {
      if (hops > 20) throw new Error(`$ref cycle at ${String(current.$ref)}`);
      current = pointer(document, current.$ref);
    }
    return current as T;
  };

  const operations = new Map<string, OpenApiOperation>();
  const byMethod = new Map<string, IndexedTemplate[]>();
  for (const [template, item] of Object.entries(document.paths as Record<string, Json>)) {
    const shared = (item.parameters as unknown[] | undefined) ?? [];
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const parameters = [...shared, ...((op.parameters as unknown[] | undefined) ?? [])].map((p) => resolve<OpenApiParameter>(p));
      const responses: OpenApiOperation['responses'] = {};
      for (const [status, response] of Object.entries((op.responses as Json | undefined) ?? {})) responses[status] = resolve(response);
      const operation: OpenApiOperation = {
        operationId: op.operationId as string,
        method: method.toUpperCase(),
        template,
        parameters,
        requestBody: op.requestBody ? resolve(op.requestBody) : undefined,
        responses,
        docsUrl: (op.externalDocs as { url?: string } | undefined)?.url,
      };
      operations.set(operation.operationId, operation);
      const multi = new Set(parameters.filter((p) => p.in === 'path' && p['x-multi-segment']).map((p) => p.name));
      const segments = template
        .split('/')
        .slice(1)
        .map((s) => {
          const m = /^\{([^}]+)\}$/.exec(s);
          return m ? { param: m[1], multi: multi.has(m[1]) } : { literal: s };
        });
      const list = byMethod.get(operation.method) ?? [];
      list.push({ operation, segments });
      byMethod.set(operation.method, list);
    }
  }

  const match = (method: string, pathname: string): OperationMatch | undefined => {
    const parts = pathname.split('/').slice(1);
    let best: { m: OperationMatch; score: number[] } | undefined;
    for (const candidate of byMethod.get(method.toUpperCase()) ?? []) {
      const found = matchSegments(candidate.segments, parts);
      if (!found) continue;
      // GitHub's router prefers literal segments to parameters, earliest first, and single-segment parameters to multi-segment ones.
      if (!best || compareScores(found.score, best.score) > 0) best = { m: { operation: candidate.operation, pathParams: found.params }, score: found.score };
    }
    return best?.m;
  };

  return { document, operations, match, resolve };
}

function matchSegments(segments: IndexedTemplate['segments'], parts: string[]): { params: Record<string, string>; score: number[] } | undefined {
  const params: Record<string, string> = {};
  const score: number[] = [];
  let i = 0;
  for (let s = 0; s < segments.length; s++) {
    const segment = segments[s];
    if (i >= parts.length) return undefined;
    if ('literal' in segment) {
      if (parts[i] !== segment.literal) return undefined;
      score.push(2);
      i++;
      continue;
    }
    // A multi-segment parameter takes what the segments after it leave over.
    const take = segment.multi ? parts.length - i - (segments.length - s - 1) : 1;
    if (take < 1) return undefined;
    const raw = parts.slice(i, i + take);
    if (raw.some((p) => p === '')) return undefined;
    params[segment.param] = raw.map((p) => decodeURIComponent(p)).join('/');
    score.push(take === 1 ? 1 : 0);
    i += take;
  }
  return i === parts.length ? { params, score } : undefined;
}

function compareScores(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? -1) - (b[i] ?? -1);
    if (d !== 0) return d;
  }
  return 0;
}

function pointer(document: Json, ref: string): Json {
  if (!ref.startsWith('#/')) throw new Error(`external $ref not supported: ${ref}`);
  let node: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as Json | undefined)?.[key];
  }
  if (node === undefined) throw new Error(`dangling $ref ${ref}`);
  return node as Json;
}
