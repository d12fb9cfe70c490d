import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { didYouMean } from './did-you-mean.js';
import { formatPath, sortProblems, type DocumentProblem } from './document-problem.js';

export interface ValidateYamlOptions {
  /** Name used in problems: a file path, `issue`, `comment`. */
  file: string;
  /** Added to every line: the block's position inside a larger document. */
  lineOffset?: number;
  /** Added to every column: indentation removed before parsing. */
  columnOffset?: number;
  /** Value validated when the document is empty (only comments or nothing). */
  emptyAs?: unknown;
}

export type YamlValidation<T> = { ok: true; value: T } | { ok: false; problems: DocumentProblem[] };

/**
 * Parse YAML (1.2 core schema, duplicate keys refused) and validate it with a zod schema,
 * collecting every problem at once with the line and column it belongs to. Syntax errors are
 * reported alone: schema errors on a half-parsed document would only be noise. Unknown keys get
 * a "did you mean" when a known key is close.
 */
export function validateYaml<S extends z.ZodType>(text: string, schema: S, options: ValidateYamlOptions): YamlValidation<z.output<S>> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, version: '1.2' });
  const lineOffset = options.lineOffset ?? 0;
  const columnOffset = options.columnOffset ?? 0;
  const at = (offset: number): { line: number; column: number } => {
    const { line, col } = lineCounter.linePos(offset);
    return { line: line + lineOffset, column: col + columnOffset };
  };
  const problem = (offset: number, path: string, type: DocumentProblem['type'], message: string): DocumentProblem => ({
    file: options.file,
    ...at(offset),
    path,
    type,
    message,
  });

  if (doc.errors.length > 0) {
    return { ok: false, problems: sortProblems(doc.errors.map((e) => problem(e.pos[0], '', 'YAML_SYNTAX', firstLine(e.message)))) };
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 100 });
  } catch (error) {
    return { ok: false, problems: [problem(0, '', 'YAML_SYNTAX', firstLine(error instanceof Error ? error.message : String(error)))] };
  }
  if ((data === null || data === undefined) && 'emptyAs' in options) data = options.emptyAs;

  const result = schema.safeParse(data);
  if (result.success) return { ok: true, value: result.data };

  const problems: DocumentProblem[] = [];
  for (const issue of result.error.issues) {
    const path = issue.path as PropertyKey[];
    if (issue.code === 'unrecognized_keys') {
      const known = knownKeys(schema, data, path);
      for (const key of issue.keys) {
        const suggestion = didYouMean(key, known);
        const hint = suggestion ? ` (did you mean "${suggestion}"?)` : known.length > 0 ? `; allowed keys: ${known.join(', ')}` : '';
        problems.push(problem(keyOffset(doc, path, key), formatPath([...path, key]), 'SCHEMA', `unknown key "${key}"${hint}`));
      }
      continue;
    }
    problems.push(problem(valueOffset(doc, path), formatPath(path), 'SCHEMA', humanMessage(issue, data, path)));
  }
  return { ok: false, problems: sortProblems(problems) };
}

function firstLine(message: string): string {
  return message.split('\n')[0].trim();
}

/** The union's options, when the issue is an invalid union that lists them. */
function unionOptions(issue: z.core.$ZodIssue): unknown[] | undefined {
  return issue.code === 'invalid_union' && 'options' in issue && Array.isArray(issue.options) ? issue.options : undefined;
}

/** "missing required key" for an issue about a key its mapping lacks; undefined otherwise. */
function missingKeyMessage(issue: z.core.$ZodIssue, data: unknown, path: readonly PropertyKey[], value: unknown): string | undefined {
  const parentIsObject = path.length > 0 && isRecord(valueAt(data, path.slice(0, -1)));
  if (value !== undefined || !parentIsObject) return undefined;
  const key = String(path[path.length - 1]);
  const options = unionOptions(issue);
  if (options) return `missing required key "${key}" (one of: ${options.join(', ')})`;
  if (issue.code === 'invalid_type' || issue.code === 'invalid_value') return `missing required key "${key}"`;
  return undefined;
}

/** A string that is not one of the allowed values, with the nearest one suggested; undefined when no string option applies. */
function notAllowedMessage(issue: z.core.$ZodIssueInvalidValue, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const options = issue.values.filter((v): v is string => typeof v === 'string');
  if (options.length === 0) return undefined;
  const suggestion = didYouMean(value, options);
  return `${JSON.stringify(value)} is not allowed${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; expected one of: ${options.join(', ')}`;
}

function humanMessage(issue: z.core.$ZodIssue, data: unknown, path: readonly PropertyKey[]): string {
  const value = valueAt(data, path);
  const missing = missingKeyMessage(issue, data, path, value);
  if (missing) return missing;
  if (issue.code === 'invalid_type' && path.length === 0) return `expected a mapping (key: value) at the top level, found ${describe(value)}`;
  const union = unionOptions(issue);
  if (union) {
    const options = union.map(String);
    const suggestion = typeof value === 'string' ? didYouMean(value, options) : undefined;
    return `unknown ${String(path[path.length - 1] ?? 'value')} ${JSON.stringify(value)}${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; expected one of: ${options.join(', ')}`;
  }
  if (issue.code === 'invalid_value')
    return notAllowedMessage(issue, value) ?? `must be ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, found ${describe(value)}`;
  if (issue.code === 'invalid_type') return `expected ${expectedName(issue.expected)}, found ${describe(value)}`;
  if (issue.code === 'too_small' || issue.code === 'too_big') return sizeMessage(issue);
  return issue.message;
}

function expectedName(expected: string): string {
  const names: Record<string, string> = {
    array: 'a list',
    object: 'a mapping',
    string: 'a string',
    number: 'a number',
    int: 'a whole number',
    boolean: 'true or false',
  };
  return names[expected] ?? expected;
}

function sizeMessage(issue: z.core.$ZodIssueTooSmall | z.core.$ZodIssueTooBig): string {
  const small = issue.code === 'too_small';
  const bound = Number(small ? (issue as z.core.$ZodIssueTooSmall).minimum : (issue as z.core.$ZodIssueTooBig).maximum);
  const inclusive = issue.inclusive !== false;
  switch (issue.origin) {
    case 'number':
    case 'int':
      if (inclusive) return `must be ${small ? 'at least' : 'at most'} ${bound}`;
      return `must be ${small ? 'greater' : 'less'} than ${bound}`;
    case 'string':
      return small && bound === 1 ? 'must not be empty' : `must be ${small ? 'at least' : 'at most'} ${bound} characters long`;
    case 'array':
      return `must have ${small ? 'at least' : 'at most'} ${bound} item${bound === 1 ? '' : 's'}`;
    default:
      return issue.message;
  }
}

function describe(value: unknown): string {
  if (value === null || value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isRecord(current)) current = current[String(segment)];
    else return undefined;
  }
  return current;
}

type YamlNode = NonNullable<Document['contents']>;

/** Offset of the deepest node that exists along `path` (the value, or its key when it is empty). */
function valueOffset(doc: Document, path: readonly PropertyKey[]): number {
  let node: unknown = doc.contents;
  let offset = (doc.contents as YamlNode | null)?.range?.[0] ?? 0;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      const valueNode = pair.value as YamlNode | null;
      // An empty value (`key:` and nothing) is a zero-width node at the line's end; point at the key.
      if (valueNode?.range && valueNode.range[1] > valueNode.range[0]) {
        node = valueNode;
        offset = valueNode.range[0];
      } else {
        offset = (pair.key as YamlNode).range?.[0] ?? offset;
        break;
      }
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment] as YamlNode | undefined;
      if (!item?.range) break;
      node = item;
      offset = item.range[0];
    } else break;
  }
  return offset;
}

/** Offset of `key` inside the mapping at `path`. */
function keyOffset(doc: Document, path: readonly PropertyKey[], key: string): number {
  let node: unknown = doc.contents;
  for (const segment of path) {
    if (isMap(node)) node = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(segment))?.value;
    else if (isSeq(node) && typeof segment === 'number') node = node.items[segment];
    else break;
  }
  if (isMap(node)) {
    const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === key);
    const keyNode = pair?.key as YamlNode | undefined;
    if (keyNode?.range) return keyNode.range[0];
  }
  return valueOffset(doc, path);
}

interface SchemaDef {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  options?: z.ZodType[];
  discriminator?: string;
  values?: unknown[];
}

function defOf(schema: z.ZodType): SchemaDef {
  return (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
}

/** Strip wrappers (optional, default, ...) and pick a discriminated union's branch from the data. */
function resolveSchema(schema: z.ZodType, data: unknown): z.ZodType {
  let current = schema;
  for (;;) {
    const def = defOf(current);
    if (def.innerType && ['optional', 'default', 'prefault', 'nullable', 'readonly', 'catch', 'nonoptional'].includes(def.type)) current = def.innerType;
    else if (def.type === 'pipe' && def.in) current = def.in;
    else if (def.type === 'union' && def.discriminator && def.options) {
      const tag = isRecord(data) ? data[def.discriminator] : undefined;
      const branch = def.options.find((option) => {
        const literal = defOf(resolveSchema(option, undefined)).shape?.[def.discriminator as string];
        return literal !== undefined && (defOf(literal).values ?? []).includes(tag);
      });
      if (!branch) return current;
      current = branch;
    } else return current;
  }
}

/** The keys the schema allows for the mapping at `path`: the candidates for "did you mean". */
function knownKeys(schema: z.ZodType, data: unknown, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  let value = data;
  for (const segment of path) {
    const def = defOf(resolveSchema(current, value));
    if (def.type === 'object' && def.shape) current = def.shape[String(segment)];
    else if (def.type === 'array' && def.element) current = def.element;
    else return [];
    if (!current) return [];
    value = valueAt(value, [segment]);
  }
  const def = defOf(resolveSchema(current, value));
  return def.type === 'object' && def.shape ? Object.keys(def.shape) : [];
}
