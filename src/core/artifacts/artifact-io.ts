import type { z } from 'zod';
import type { ArtifactStore } from '../ports.js';
import { ArtifactError } from './artifact-error.js';

/**
 * Typed artifact I/O (every JSON artifact is validated by a zod schema on write and
 * on read). Writes serialise canonically, so equal values give byte-identical objects (and
 * equal etags/digests): keys sorted, 2-space indent, trailing newline. Nothing is added
 * implicitly: `schemaVersion`, `baseCommitSha` and timestamps are the caller's (and the
 * schema's) business.
 */

type Schema = z.ZodType;

/** The issues of a zod error without the offending input (it may be a secret). */
function issuesOf(error: z.ZodError): { path: (string | number)[]; code: string; message: string }[] {
  return error.issues.map((issue) => ({
    path: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    code: issue.code,
    message: issue.message,
  }));
}

function validate<S extends Schema>(key: string, schema: S, value: unknown, when: 'write' | 'read'): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = issuesOf(result.error);
    const first = issues[0];
    const where = first ? ` at ${first.path.join('.') || '(root)'}: ${first.message}` : '';
    throw new ArtifactError('ARTIFACT_INVALID', `artifact ${key} failed its schema on ${when}${where}`, { key, when, issues }, { cause: result.error });
  }
  return result.data as z.output<S>;
}

/** Deep copy with object keys sorted; undefined members dropped as JSON does. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = sortKeys(member);
    }
    return out;
  }
  return value;
}

/** Canonical pretty JSON: sorted keys, 2-space indent, trailing newline. */
export function canonicalPrettyJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** Validate `value` and return the exact text `writeArtifact` would store. */
export function serializeArtifact<S extends Schema>(key: string, schema: S, value: z.input<S>): string {
  return canonicalPrettyJson(validate(key, schema, value, 'write'));
}

/** Validate, serialise canonically and write (overwrite). Returns the store's etag. */
export async function writeArtifact<S extends Schema>(store: ArtifactStore, key: string, schema: S, value: z.input<S>): Promise<string> {
  return store.put(key, serializeArtifact(key, schema, value), { contentType: 'application/json' });
}

/** Write only if nothing is stored under `key`; false when something already is. */
export async function putArtifactIfAbsent<S extends Schema>(store: ArtifactStore, key: string, schema: S, value: z.input<S>): Promise<boolean> {
  return store.putIfAbsent(key, serializeArtifact(key, schema, value), { contentType: 'application/json' });
}

/** Compare-and-swap: write only if the stored etag is still `etag`; false otherwise. */
export async function putArtifactIfMatch<S extends Schema>(store: ArtifactStore, key: string, schema: S, value: z.input<S>, etag: string): Promise<boolean> {
  return store.putIfMatch(key, serializeArtifact(key, schema, value), etag, { contentType: 'application/json' });
}

/** Parse and validate stored bytes; ARTIFACT_INVALID for bad UTF-8, bad JSON or a schema failure. */
export function parseArtifact<S extends Schema>(key: string, schema: S, body: Uint8Array): z.output<S> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch (error) {
    throw new ArtifactError('ARTIFACT_INVALID', `artifact ${key} is not valid UTF-8 JSON`, { key, when: 'read', issues: [] }, { cause: error });
  }
  return validate(key, schema, parsed, 'read');
}

/** Read, validate, and return the value with the store's etag (for a later compare-and-swap); undefined if absent. */
export async function readArtifactVersioned<S extends Schema>(
  store: ArtifactStore,
  key: string,
  schema: S,
): Promise<{ value: z.output<S>; etag: string } | undefined> {
  const stored = await store.get(key);
  if (!stored) return undefined;
  return { value: parseArtifact(key, schema, stored.body), etag: stored.etag };
}

/** Read and validate an artifact that may be absent. */
export async function readArtifactIfPresent<S extends Schema>(store: ArtifactStore, key: string, schema: S): Promise<z.output<S> | undefined> {
  return (await readArtifactVersioned(store, key, schema))?.value;
}

/** Read and validate an artifact that must exist: ARTIFACT_MISSING when it does not. */
export async function readArtifact<S extends Schema>(store: ArtifactStore, key: string, schema: S): Promise<z.output<S>> {
  const found = await readArtifactVersioned(store, key, schema);
  if (!found) throw new ArtifactError('ARTIFACT_MISSING', `artifact ${key} does not exist`, { key });
  return found.value;
}
