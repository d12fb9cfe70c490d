/**
 * Turns an OpenAPI 3.0 schema from GitHub's description into a standalone JSON Schema (draft-07)
 * for ajv: `nullable` becomes a `null` type, referenced components are copied into `$defs`
 * (only those reachable), and annotation-only keywords are dropped.
 *
 * `lenient` is for the stand-in's responses: they are checked for what they contain (every field
 * documented, with its documented type), not for completeness, so `required` is dropped and
 * `oneOf` (which would then match several branches) becomes `anyOf`.
 */

type Json = Record<string, unknown>;

export type SchemaMode = 'strict' | 'lenient';

const DROPPED = new Set(['example', 'examples', 'discriminator', 'readOnly', 'writeOnly', 'deprecated', 'xml', 'externalDocs', 'title', 'description']);
const SCHEMA_PREFIX = '#/components/schemas/';

export function toJsonSchema(
  schema: Json,
  document: { components: Record<string, Record<string, Json>> },
  mode: SchemaMode,
  /** When given, components are referenced by the id it returns (registered elsewhere, shared) instead of copied into `$defs`. */
  external?: (component: string) => string,
): Json {
  const defs: Record<string, Json> = {};
  const pending: string[] = [];

  const convert = (node: unknown): unknown => {
    if (typeof node === 'boolean') return node;
    if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
    const source = node as Json;
    if (typeof source.$ref === 'string') {
      if (!source.$ref.startsWith(SCHEMA_PREFIX)) throw new Error(`unexpected $ref ${source.$ref}`);
      const name = source.$ref.slice(SCHEMA_PREFIX.length);
      if (external) return { $ref: external(name) };
      if (!(name in defs)) {
        defs[name] = {};
        pending.push(name);
      }
      return { $ref: `#/$defs/${name}` };
    }
    const out: Json = {};
    for (const [key, value] of Object.entries(source)) {
      if (!dropped(key, mode)) convertKeyword(out, key, value, mode, convert);
    }
    if (source.nullable === true) return nullable(out);
    return out;
  };

  const root = convert(schema) as Json;
  while (pending.length > 0) {
    const name = pending.pop() as string;
    const component = document.components.schemas[name];
    if (!component) throw new Error(`no component schema ${name}`);
    defs[name] = convert(component) as Json;
  }
  return Object.keys(defs).length > 0 ? { ...root, $defs: defs } : root;
}

/** Keywords JSON Schema has no use for (annotations, extensions, `nullable`, and `required` when lenient). */
function dropped(key: string, mode: SchemaMode): boolean {
  return DROPPED.has(key) || key.startsWith('x-') || key === 'nullable' || (key === 'required' && mode === 'lenient');
}

/** Copies one keyword into `out`, converting the schemas it holds. */
function convertKeyword(out: Json, key: string, value: unknown, mode: SchemaMode, convert: (node: unknown) => unknown): void {
  if (key === 'properties' || key === 'patternProperties') {
    out[key] = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, convert(v)]));
  } else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf') {
    out[key === 'oneOf' && mode === 'lenient' ? 'anyOf' : key] = (value as unknown[]).map(convert);
  } else if (key === 'items' || key === 'additionalProperties' || key === 'not') {
    out[key] = convert(value);
  } else {
    out[key] = value;
  }
}

function nullable(schema: Json): Json {
  if (typeof schema.type === 'string') {
    const withNull: Json = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum) && !schema.enum.includes(null)) withNull.enum = [...schema.enum, null];
    return withNull;
  }
  if (Array.isArray(schema.type)) return schema.type.includes('null') ? schema : { ...schema, type: [...(schema.type as unknown[]), 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/**
 * Fields in `value` that the schema does not declare, as JSON paths. An object schema is closed
 * when it (or one of its `allOf`/`anyOf`/`oneOf` branches) lists `properties` and none allows
 * more; a field is known when any branch declares it. This is what catches a field GitHub does
 * not have, which plain JSON Schema validation lets through.
 */
export function undeclaredFields(schema: unknown, value: unknown, resolve: (node: unknown) => Json, path = '$'): string[] {
  const branches = flatten(schema, resolve);
  if (branches.length === 0) return [];
  if (Array.isArray(value)) {
    const items = branches.flatMap((b) => (b.items === undefined ? [] : [b.items]));
    if (items.length === 0) return [];
    return value.flatMap((v, i) => undeclaredFields({ anyOf: items }, v, resolve, `${path}[${i}]`));
  }
  if (!value || typeof value !== 'object') return [];
  const open = branches.some(
    (b) => (b.additionalProperties !== undefined && b.additionalProperties !== false) || b.patternProperties !== undefined || freeForm(b),
  );
  const declaring = branches.filter((b) => b.properties !== undefined);
  if (declaring.length === 0) return [];
  const out: string[] = [];
  for (const [key, v] of Object.entries(value as Json)) {
    const subs = declaring.flatMap((b) => {
      const p = (b.properties as Json)[key];
      return p === undefined ? [] : [p];
    });
    if (subs.length === 0) {
      if (!open) out.push(`${path}.${key}`);
      continue;
    }
    out.push(...undeclaredFields({ anyOf: subs }, v, resolve, `${path}.${key}`));
  }
  return out;
}

/** The schema's branches with `$ref`s followed and `allOf`/`anyOf`/`oneOf` spread out. */
function flatten(schema: unknown, resolve: (node: unknown) => Json, depth = 0): Json[] {
  if (!schema || typeof schema !== 'object' || depth > 30) return [];
  const s = resolve(schema);
  const nested = ['allOf', 'anyOf', 'oneOf'].flatMap((k) => ((s[k] as unknown[] | undefined) ?? []).flatMap((b) => flatten(b, resolve, depth + 1)));
  return [s, ...nested];
}

/** `{}` or `{ type: object }` without declared fields: anything goes. */
function freeForm(s: Json): boolean {
  if (s.properties !== undefined || s.allOf !== undefined || s.anyOf !== undefined || s.oneOf !== undefined) return false;
  return s.type === 'object' || (s.type === undefined && s.enum === undefined && s.items === undefined && s.const === undefined);
}
