/**
 * Checks that what a value contains has the types GitHub documents, walking the schema as it
 * walks the value: no compilation, so its cost follows the size of the value, not of GitHub's
 * (large) response schemas. Completeness is not checked (`required` is ignored); fields the
 * schema does not declare are found by `undeclaredFields`.
 */

type Json = Record<string, unknown>;

export interface ShapeProblem {
  path: string;
  problem: string;
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeAllows(type: unknown, actual: string, nullable: boolean): boolean {
  const allowed = Array.isArray(type) ? (type as string[]) : [type as string];
  if (nullable) allowed.push('null');
  return allowed.includes(actual) || (actual === 'integer' && allowed.includes('number'));
}

type Resolve = (node: unknown) => Json;

/** `anyOf`/`oneOf`: nothing when one branch fits, else the problems of the closest branch. */
function alternativeProblems(s: Json, value: unknown, resolve: Resolve, path: string, depth: number): ShapeProblem[] {
  const alternatives = [...((s.anyOf as unknown[] | undefined) ?? []), ...((s.oneOf as unknown[] | undefined) ?? [])];
  if (alternatives.length === 0) return [];
  const results = alternatives.map((b) => shapeProblems(b, value, resolve, path, depth + 1));
  if (results.some((r) => r.length === 0)) return [];
  // The closest branch says most about what is wrong.
  const closest = results.sort((a, b) => a.length - b.length)[0];
  return closest.length > 0 ? closest : [{ path, problem: 'matches none of the documented shapes' }];
}

/** `enum`, `const` and the string formats GitHub uses (`date-time`, `uri`). */
function valueProblems(s: Json, value: unknown, nullable: boolean, path: string): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  if (Array.isArray(s.enum) && !s.enum.includes(value) && !(nullable && value === null))
    problems.push({ path, problem: `must be one of ${JSON.stringify(s.enum)}` });
  if (s.const !== undefined && s.const !== value) problems.push({ path, problem: `must be ${JSON.stringify(s.const)}` });
  if (typeof value === 'string' && s.format === 'date-time' && !DATE_TIME.test(value)) problems.push({ path, problem: 'must be a date-time' });
  if (typeof value === 'string' && s.format === 'uri' && !URL.canParse(value)) problems.push({ path, problem: 'must be a URI' });
  return problems;
}

/** Array items and object fields, each against its schema (`items`, `properties`, `additionalProperties`). */
function memberProblems(s: Json, value: unknown, actual: string, resolve: Resolve, path: string, depth: number): ShapeProblem[] {
  const problems: ShapeProblem[] = [];
  if (Array.isArray(value) && s.items) value.forEach((v, i) => problems.push(...shapeProblems(s.items, v, resolve, `${path}[${i}]`, depth + 1)));
  if (actual === 'object') {
    const properties = (s.properties as Json | undefined) ?? {};
    for (const [key, v] of Object.entries(value as Json)) {
      const sub = properties[key] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
      if (sub) problems.push(...shapeProblems(sub, v, resolve, `${path}.${key}`, depth + 1));
    }
  }
  return problems;
}

export function shapeProblems(schema: unknown, value: unknown, resolve: Resolve, path = '$', depth = 0): ShapeProblem[] {
  if (!schema || typeof schema !== 'object' || depth > 60) return [];
  const s = resolve(schema);
  const nullable = s.nullable === true;
  if (value === null && nullable) return [];
  const problems: ShapeProblem[] = alternativeProblems(s, value, resolve, path, depth);
  for (const b of (s.allOf as unknown[] | undefined) ?? []) problems.push(...shapeProblems(b, value, resolve, path, depth + 1));
  const actual = jsonType(value);
  if (s.type !== undefined && !typeAllows(s.type, actual, nullable)) {
    problems.push({ path, problem: `must be ${[s.type, nullable ? 'null' : undefined].flat().filter(Boolean).join(' or ')}, is ${actual}` });
    return problems;
  }
  problems.push(...valueProblems(s, value, nullable, path), ...memberProblems(s, value, actual, resolve, path, depth));
  return problems;
}
