import type { ArtifactStore } from '../../src/core/ports.js';

/**
 * A small IAM policy evaluator for the S3, Lambda, SSM and STS statements this stack writes,
 * with AWS's semantics where they matter for forged keys:
 *
 * - Resource and condition patterns: `*` matches any run of characters, `/` included; `?`
 *   matches exactly one character; everything else is literal and case-sensitive.
 * - Actions match case-insensitively (with the same wildcards).
 * - `${aws:PrincipalTag/<k>}` in a Resource or condition value is the session's tag; a statement
 *   naming a tag the session lacks matches nothing.
 * - Evaluation over layers (identity policy, session policy): an explicit Deny in any layer
 *   wins; otherwise the request is allowed only if every layer has a matching Allow.
 *
 * Conditions: StringLike / StringEquals (and their IfExists forms) and Bool on request context
 * keys, and Null (`'true'`: the key is absent from the request, as `s3:if-none-match` is from a
 * PUT without that header); an unknown operator throws, so a policy this evaluator cannot judge
 * never passes silently.
 *
 * A resource policy (the bucket's) is evaluated beside the layers: its Deny wins over any
 * identity Allow, for every principal (its statements name `Principal: '*'`).
 */
export interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Condition?: Record<string, Record<string, string | string[]>>;
}

export interface IamRequest {
  action: string;
  resource: string;
  /** Request context keys, e.g. `{ 's3:prefix': 'runs/...' }`. */
  context?: Record<string, string>;
}

export type Decision = 'allow' | 'implicit-deny' | 'explicit-deny';

const list = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** AWS wildcard matching: `*` any sequence (including `/`), `?` one character. */
export function wildcardMatch(pattern: string, value: string, caseInsensitive = false): boolean {
  const source = [...pattern].map((c) => (c === '*' ? '[\\s\\S]*' : c === '?' ? '[\\s\\S]' : c.replace(/[.+^${}()|[\]\\]/g, '\\$&'))).join('');
  return new RegExp(`^${source}$`, caseInsensitive ? 'i' : '').test(value);
}

/** Substitute `${aws:PrincipalTag/k}`; undefined when a named tag is missing. */
export function substitute(pattern: string, tags: Record<string, string>): string | undefined {
  let missing = false;
  const out = pattern.replace(/\$\{aws:PrincipalTag\/([^}]+)\}/g, (_, key: string) => {
    const value = tags[key];
    if (value === undefined) missing = true;
    return value ?? '';
  });
  if (/\$\{/.test(out)) throw new Error(`unsupported policy variable in ${pattern}`);
  return missing ? undefined : out;
}

function conditionHolds(condition: Statement['Condition'], request: IamRequest, tags: Record<string, string>): boolean {
  for (const [operator, entries] of Object.entries(condition ?? {})) {
    const ifExists = operator.endsWith('IfExists');
    const base = ifExists ? operator.slice(0, -'IfExists'.length) : operator;
    if (base === 'Null') {
      const absentWanted = (values: string | string[]) => list(values).map(String).includes('true');
      if (Object.entries(entries).some(([key, values]) => absentWanted(values) !== (request.context?.[key] === undefined))) return false;
      continue;
    }
    if (base !== 'StringLike' && base !== 'StringEquals' && base !== 'Bool') throw new Error(`unsupported condition operator ${operator}`);
    for (const [key, values] of Object.entries(entries)) {
      const actual = request.context?.[key];
      if (actual === undefined) {
        if (ifExists) continue;
        return false;
      }
      const patterns = list(values)
        .map((v) => substitute(v, tags))
        .filter((v): v is string => v !== undefined);
      const hit = patterns.some((p) => (base === 'StringLike' ? wildcardMatch(p, actual) : p === actual));
      if (!hit) return false;
    }
  }
  return true;
}

function statementMatches(s: Statement, request: IamRequest, tags: Record<string, string>): boolean {
  if (s.NotAction !== undefined || s.NotResource !== undefined) throw new Error('NotAction/NotResource are not used by this stack');
  if (!list(s.Action).some((a) => wildcardMatch(a, request.action, true))) return false;
  const resources = list(s.Resource)
    .map((r) => substitute(r, tags))
    .filter((r): r is string => r !== undefined);
  if (!resources.some((r) => wildcardMatch(r, request.resource))) return false;
  return conditionHolds(s.Condition, request, tags);
}

/** Decide a request against policy layers that must all allow it (identity ∩ session), and the Denies of a resource policy. */
export function evaluate(layers: Statement[][], request: IamRequest, tags: Record<string, string> = {}, resourcePolicy: Statement[] = []): Decision {
  const all = [...layers.flat(), ...resourcePolicy.filter((s) => s.Effect === 'Deny')];
  if (all.some((s) => s.Effect === 'Deny' && statementMatches(s, request, tags))) return 'explicit-deny';
  const allowed = layers.every((layer) => layer.some((s) => s.Effect === 'Allow' && statementMatches(s, request, tags)));
  return allowed ? 'allow' : 'implicit-deny';
}

export class AccessDenied extends Error {}

/**
 * An ArtifactStore that lets through only what the layers allow, as S3 would for credentials
 * carrying them: the harness gives the worker this view of s3rver, so an end-to-end run fails
 * if a session grants less than the worker needs, and a forged key is refused as in AWS.
 */
export function policyScopedStore(
  inner: ArtifactStore,
  bucket: string,
  layers: Statement[][],
  tags: Record<string, string>,
  partition = 'aws',
  bucketPolicy: Statement[] = [],
): ArtifactStore {
  const check = (action: string, key: string, context: Record<string, string> = {}) => {
    const resource = action === 's3:ListBucket' ? `arn:${partition}:s3:::${bucket}` : `arn:${partition}:s3:::${bucket}/${key}`;
    // The SDK speaks HTTPS to S3; the conditional headers a write carries are condition keys.
    const decision = evaluate(layers, { action, resource, context: { 'aws:SecureTransport': 'true', ...context } }, tags, bucketPolicy);
    if (decision !== 'allow') throw new AccessDenied(`AccessDenied (${decision}): ${action} ${key}`);
  };
  return {
    get: async (key) => (check('s3:GetObject', key), inner.get(key)),
    list: async (prefix) => (check('s3:ListBucket', prefix, { 's3:prefix': prefix }), inner.list(prefix)),
    delete: async (key) => (check('s3:DeleteObject', key), inner.delete(key)),
    put: async (key, body, options) => (check('s3:PutObject', key), inner.put(key, body, options)),
    putIfAbsent: async (key, body, options) => (check('s3:PutObject', key, { 's3:if-none-match': '*' }), inner.putIfAbsent(key, body, options)),
    putIfMatch: async (key, body, etag, options) => (check('s3:PutObject', key, { 's3:if-match': etag }), inner.putIfMatch(key, body, etag, options)),
  };
}
