import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { githubDescription, type OpenApiOperation } from './github-description.js';
import { toJsonSchema, undeclaredFields, type SchemaMode } from './json-schema.js';
import { shapeProblems } from './shape-check.js';
import { validate as validateGraphql } from '@octokit/graphql-schema';

/** One request or response the stand-in handled that GitHub's description does not allow. */
export interface ContractViolation {
  /** The operation id (`git/create-ref`), or `(no operation)` when nothing matched. */
  operationId: string;
  method: string;
  /** The path template when an operation matched, else the request path. */
  route: string;
  where: 'route' | 'path' | 'query' | 'request body' | 'status' | 'response body' | 'permission';
  /** JSON path into the checked value (`$.head.repo.id`). */
  path: string;
  problem: string;
}

export function formatViolation(v: ContractViolation): string {
  return `${v.operationId} (${v.method} ${v.route}) ${v.where} ${v.path}: ${v.problem}`;
}

export interface Exchange {
  method: string;
  pathname: string;
  query: URLSearchParams;
  /** The parsed JSON request body, undefined when there was none. */
  requestBody: unknown;
  status: number;
  /** The parsed JSON response body, undefined when there was none. */
  responseBody: unknown;
}

export interface ExchangeCheck {
  operation?: OpenApiOperation;
  violations: ContractViolation[];
}

/**
 * Requests that are not REST operations and are left unchecked. The stand-in serves REST only
 * (git smart HTTP is a separate `git http-backend`), so this stays small on purpose.
 */
export const NON_REST_ROUTES: readonly { method: string; pattern: RegExp; why: string }[] = [
  { method: '*', pattern: /^\/[^/]+\/[^/]+\.git\//, why: 'git smart HTTP (`/<owner>/<repo>.git/...`), served by git http-backend' },
];

/**
 * Statuses GitHub may answer on any operation without listing them for it: bad credentials,
 * rate limits and "Resource not accessible by integration" (401/403), secondary rate limits
 * (429), a repository the token cannot see (404), and server errors. Their bodies must still be GitHub's `basic-error`.
 */
const GENERIC_ERROR_STATUSES = new Set([401, 403, 404, 429, 500, 502, 503]);

// ajv-formats is CommonJS with a default export; under ESM interop it can arrive wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;

/**
 * One ajv per kind of check, with GitHub's component schemas registered once by id and
 * compiled on first use, so operations sharing `repository` or `pull-request` share their code.
 */
class SchemaCompiler {
  private readonly ajv: Ajv;
  private readonly registered = new Set<string>();
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    private readonly mode: SchemaMode,
    coerceTypes: boolean,
  ) {
    this.ajv = new Ajv({ strict: false, allErrors: true, logger: false, coerceTypes, validateSchema: false, inlineRefs: false });
    addFormats(this.ajv);
    // GitHub's own format names carry no constraint ajv could check.
    for (const name of ['int32', 'int64', 'double', 'binary', 'repo.nwo', 'timestamp']) this.ajv.addFormat(name, true);
  }

  private readonly component = (name: string): string => {
    const id = `urn:github:${this.mode}:${name}`;
    if (!this.registered.has(id)) {
      this.registered.add(id);
      const document = githubDescription().document;
      const schema = document.components.schemas[name];
      if (!schema) throw new Error(`no component schema ${name}`);
      this.ajv.addSchema({ ...toJsonSchema(schema, document, this.mode, this.component), $id: id });
    }
    return id;
  };

  validator(key: string, schema: () => Record<string, unknown>): ValidateFunction {
    let fn = this.compiled.get(key);
    if (!fn) {
      fn = this.ajv.compile(toJsonSchema(schema(), githubDescription().document, this.mode, this.component));
      this.compiled.set(key, fn);
    }
    return fn;
  }
}

let compilers: { strict: SchemaCompiler; params: SchemaCompiler } | undefined;
function compilersFor() {
  compilers ??= { strict: new SchemaCompiler('strict', false), params: new SchemaCompiler('strict', true) };
  return compilers;
}

function jsonPath(pointer: string): string {
  if (!pointer) return '$';
  return (
    '$' +
    pointer
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`))
      .join('')
  );
}

function describe(e: ErrorObject): string {
  if (e.keyword === 'required') return `required field ${(e.params as { missingProperty: string }).missingProperty} is missing`;
  if (e.keyword === 'enum') return `must be one of ${JSON.stringify((e.params as { allowedValues: unknown[] }).allowedValues)}`;
  return `${e.message ?? e.keyword}`;
}

/** ajv's errors, de-duplicated (the branches of an `anyOf` repeat each other), at most a few per value. */
function errorsOf(fn: ValidateFunction): { path: string; problem: string }[] {
  const seen = new Set<string>();
  const out: { path: string; problem: string }[] = [];
  for (const e of fn.errors ?? []) {
    const item = { path: jsonPath(e.instancePath), problem: e.keyword === 'anyOf' ? 'matches none of the documented shapes' : describe(e) };
    const key = `${item.path} ${item.problem}`;
    if (!seen.has(key)) out.push(item);
    seen.add(key);
  }
  return out.slice(0, 6);
}

type Add = (where: ContractViolation['where'], path: string, problem: string) => void;
type Description = ReturnType<typeof githubDescription>;

/** Path and query parameters: every one declared, required ones present, values of the declared type. */
function checkParameters(operation: OpenApiOperation, pathParams: Record<string, string>, query: URLSearchParams, add: Add): void {
  const c = compilersFor();
  for (const location of ['path', 'query'] as const) {
    const declared = operation.parameters.filter((p) => p.in === location);
    const given: Record<string, string> = location === 'path' ? { ...pathParams } : Object.fromEntries(query.entries());
    for (const name of Object.keys(given)) if (!declared.some((p) => p.name === name)) add(location, `$.${name}`, 'parameter not declared by the operation');
    const schema = {
      type: 'object',
      properties: Object.fromEntries(declared.map((p) => [p.name, p.schema ?? {}])),
      required: declared.filter((p) => p.required).map((p) => p.name),
    };
    const fn = c.params.validator(`${operation.operationId} ${location}`, () => schema);
    if (!fn({ ...given })) for (const e of errorsOf(fn)) add(location, e.path, e.problem);
  }
}

/** The JSON request body: present when required, valid against the operation's schema, no undeclared field. */
function checkRequestBody(operation: OpenApiOperation, requestBody: unknown, description: Description, add: Add): void {
  const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
  if (requestBody !== undefined && !bodySchema) add('request body', '$', 'the operation takes no JSON body');
  if (requestBody === undefined && bodySchema && operation.requestBody?.required) add('request body', '$', 'the operation requires a JSON body');
  if (requestBody !== undefined && bodySchema) {
    const fn = compilersFor().strict.validator(`${operation.operationId} request`, () => bodySchema);
    if (!fn(requestBody)) for (const e of errorsOf(fn)) add('request body', e.path, e.problem);
    for (const p of undeclaredFields(bodySchema, requestBody, description.resolve)) add('request body', p, 'field not declared by the operation');
  }
}

/** The schema the response body must have for `status`; undefined (after reporting why, if it is a problem) when none. */
function responseSchemaFor(operation: OpenApiOperation, x: Exchange, description: Description, add: Add): Record<string, unknown> | undefined {
  const documented = operation.responses[String(x.status)];
  if (!documented) {
    if (GENERIC_ERROR_STATUSES.has(x.status)) return description.document.components.schemas['basic-error'];
    add('status', '$', `status ${x.status} is not documented (documented: ${Object.keys(operation.responses).join(', ')})`);
    return undefined;
  }
  if (documented.content) return documented.content['application/json']?.schema;
  // GitHub documents some errors without a body but sends its usual error JSON with them.
  if (x.status >= 400) return description.document.components.schemas['basic-error'];
  if (x.responseBody !== undefined) add('response body', '$', `status ${x.status} is documented without a body`);
  return undefined;
}

/** The status is documented, and the response body has the documented shape with no undocumented field. */
function checkResponse(operation: OpenApiOperation, x: Exchange, description: Description, add: Add): void {
  const responseSchema = responseSchemaFor(operation, x, description, add);
  if (!responseSchema) return;
  if (x.responseBody === undefined) {
    add('response body', '$', `status ${x.status} is documented with a JSON body, none was sent`);
    return;
  }
  const seen = new Set<string>();
  for (const e of shapeProblems(responseSchema, x.responseBody, description.resolve)) {
    if (!seen.has(`${e.path} ${e.problem}`)) add('response body', e.path, e.problem);
    seen.add(`${e.path} ${e.problem}`);
  }
  for (const p of undeclaredFields(responseSchema, x.responseBody, description.resolve)) add('response body', p, 'field not in the documented response');
}

/**
 * A GraphQL request checked against GitHub's published schema (`@octokit/graphql-schema`): the
 * query must validate; the answer is `data` or `errors`, as GitHub answers.
 */
function checkGraphql(x: Exchange): ExchangeCheck {
  const violations: ContractViolation[] = [];
  const add = (where: ContractViolation['where'], problem: string) =>
    violations.push({ operationId: 'graphql', method: 'POST', route: '/graphql', where, path: '$', problem });
  const query = (x.requestBody as { query?: unknown } | undefined)?.query;
  if (typeof query !== 'string') add('request body', 'a GraphQL request has a string `query`');
  else for (const error of validateGraphql(query)) add('request body', `GitHub's GraphQL schema refuses the query: ${error.message}`);
  const answer = x.responseBody as { data?: unknown; errors?: unknown } | undefined;
  if (x.status === 200 && (typeof answer !== 'object' || answer === null || !('data' in answer || 'errors' in answer)))
    add('response body', 'a GraphQL answer has `data` or `errors`');
  return { violations };
}

/** Checks one request and the stand-in's answer against the operation GitHub documents for it. */
export function checkExchange(x: Exchange): ExchangeCheck {
  const method = x.method.toUpperCase();
  if (NON_REST_ROUTES.some((r) => (r.method === '*' || r.method === method) && r.pattern.test(x.pathname))) return { violations: [] };
  if (method === 'POST' && x.pathname === '/graphql') return checkGraphql(x);
  const description = githubDescription();
  const found = description.match(method, x.pathname);
  if (!found) {
    return {
      violations: [
        {
          operationId: '(no operation)',
          method,
          route: x.pathname,
          where: 'route',
          path: '$',
          problem: 'GitHub documents no operation for this method and path',
        },
      ],
    };
  }
  const { operation, pathParams } = found;
  const violations: ContractViolation[] = [];
  const add: Add = (where, path, problem) => violations.push({ operationId: operation.operationId, method, route: operation.template, where, path, problem });
  checkParameters(operation, pathParams, x.query, add);
  checkRequestBody(operation, x.requestBody, description, add);
  checkResponse(operation, x, description, add);
  return { operation, violations };
}
