import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { createRequire } from 'node:module';
import { z } from 'zod';
import { toJsonSchema, undeclaredFields } from './json-schema.js';

/**
 * GitHub's webhook payload schemas (`@octokit/openapi-webhooks`, api.github.com, OpenAPI 3.1:
 * nullable is already a `null` type), loaded once per process on first use.
 */

type Json = Record<string, unknown>;
interface WebhooksDocument {
  webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: Json }> } } }>;
  components: Record<string, Record<string, Json>>;
}

let document: WebhooksDocument | undefined;
const compiled = new Map<string, ValidateFunction>();
let ajv: Ajv | undefined;

function doc(): WebhooksDocument {
  document ??= createRequire(import.meta.url)('@octokit/openapi-webhooks/generated/api.github.com.json') as WebhooksDocument;
  return document;
}

function resolve(node: unknown): Json {
  let current = node as Json;
  while (current && typeof current.$ref === 'string') current = doc().components.schemas[current.$ref.replace('#/components/schemas/', '')];
  return current;
}

/** The documented payload schema of `event` (`issue_comment`) with `action` (`created`), if any. */
export function webhookSchema(event: string, action?: string): Json | undefined {
  const key = `${event.replace(/_/g, '-')}${action ? `-${action}` : ''}`;
  return doc().webhooks[key]?.post.requestBody.content['application/json']?.schema;
}

function requireSchema(event: string, action?: string): Json {
  const schema = webhookSchema(event, action);
  if (!schema) throw new Error(`GitHub documents no webhook ${event}${action ? `.${action}` : ''}`);
  return schema;
}

/**
 * Where a payload differs from GitHub's schema for it: a field of another type, or one GitHub
 * does not send. Like the stand-in's responses, payloads are checked for what they contain,
 * not for completeness (GitHub's own examples lack fields its schemas require).
 */
export function webhookPayloadProblems(event: string, payload: Json): string[] {
  const action = typeof payload.action === 'string' ? payload.action : undefined;
  const schema = requireSchema(event, action);
  const key = `${event}.${action ?? ''}`;
  let fn = compiled.get(key);
  if (!fn) {
    if (!ajv) {
      ajv = new Ajv({ strict: false, allErrors: true, logger: false, validateSchema: false });
      ((addFormatsModule as unknown as { default?: (a: Ajv) => Ajv }).default ?? (addFormatsModule as unknown as (a: Ajv) => Ajv))(ajv);
    }
    fn = ajv.compile(toJsonSchema(schema, doc(), 'lenient'));
    compiled.set(key, fn);
  }
  const problems = fn(payload)
    ? []
    : (fn.errors ?? []).filter((e) => e.keyword !== 'anyOf').map((e) => `${key} $${e.instancePath.replace(/\//g, '.')}: ${e.message ?? e.keyword}`);
  return [...new Set([...problems, ...undeclaredFields(schema, payload, resolve).map((p) => `${key} ${p}: field not in GitHub's payload`)])];
}

/**
 * The fields a zod payload schema requires that GitHub's payload schema does not guarantee:
 * absent, optional there, of another type, or possibly null where zod does not accept null.
 * (Fields zod gives a default are not required.)
 */
export function zodRequirementGaps(zodSchema: z.ZodType, event: string, action?: string): string[] {
  const ours = z.toJSONSchema(zodSchema, { io: 'input', unrepresentable: 'any' }) as Json;
  const gaps: string[] = [];
  const walk = (mine: Json, theirs: Json[], path: string) => {
    const required = (mine.required as string[] | undefined) ?? [];
    for (const [name, sub] of Object.entries((mine.properties as Record<string, Json> | undefined) ?? {})) {
      const at = `${path}.${name}`;
      const declaring = theirs.flatMap(branches).filter((b) => (b.properties as Json | undefined)?.[name] !== undefined);
      if (declaring.length === 0) {
        if (required.includes(name)) gaps.push(`${at}: not in GitHub's payload`);
        continue;
      }
      if (required.includes(name) && !declaring.some((b) => ((b.required as string[] | undefined) ?? []).includes(name)))
        gaps.push(`${at}: optional in GitHub's payload`);
      const subs = declaring.map((b) => resolve((b.properties as Json)[name]));
      const theirTypes = new Set(subs.flatMap(branches).flatMap((b) => typesOf(b)));
      const myTypes = new Set(typesOf(sub));
      if (myTypes.size > 0 && theirTypes.size > 0) {
        for (const t of theirTypes) {
          if (t === 'null' && !myTypes.has('null')) gaps.push(`${at}: GitHub may send null`);
          else if (t !== 'null' && !myTypes.has(t) && !(t === 'integer' && myTypes.has('number')))
            gaps.push(`${at}: GitHub sends ${t}, the schema expects ${[...myTypes].join('|')}`);
        }
      }
      if (sub.properties) walk(sub, subs, at);
    }
  };
  walk(ours, [requireSchema(event, action)], '$');
  return gaps;
}

function branches(schema: Json): Json[] {
  const s = resolve(schema);
  return [s, ...['allOf', 'anyOf', 'oneOf'].flatMap((k) => ((s[k] as Json[] | undefined) ?? []).flatMap(branches))];
}

function typesOf(schema: Json): string[] {
  const s = resolve(schema);
  const own = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
  const nested = ['anyOf', 'oneOf'].flatMap((k) => ((s[k] as Json[] | undefined) ?? []).flatMap(typesOf));
  return [...own, ...nested];
}
