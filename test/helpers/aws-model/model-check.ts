/**
 * Checks a JSON value against a shape of an AWS service model as the AWS SDK ships it (the
 * schema arrays a client package exports, such as `@aws-sdk/client-codebuild`: `[3, ns, name, traits, members, schemas,
 * required]` for a structure, `[1, ns, name, traits, member]` for a list, `[2, …, key, value]`
 * for a map, `64 | x` a list of x, `128 | x` a map of x, 0 string, 1 number, 2 boolean, 4
 * timestamp, 21 document). Unknown members, missing required members and wrong types are errors.
 */
type Schema = unknown;

function resolve(schema: Schema): Schema {
  return typeof schema === 'function' ? resolve((schema as () => Schema)()) : schema;
}

export function checkShape(schema: Schema, value: unknown, path = '$'): string[] {
  const s = resolve(schema);
  if (typeof s === 'number') return checkScalar(s, value, path);
  // An operation without output (`DeleteMessage`): an empty object.
  if (s === 'unit') return value && typeof value === 'object' && Object.keys(value).length === 0 ? [] : [`${path}: not empty`];
  if (!Array.isArray(s)) return [`${path}: unknown schema`];
  if (s.length === 2 && !(typeof s[0] === 'number' && typeof s[1] === 'string')) return checkShape(s[0], value, path);
  switch (s[0]) {
    case 0:
      return checkScalar(s[4] as number, value, path);
    case 1:
      return Array.isArray(value) ? value.flatMap((v, i) => checkShape(s[4], v, `${path}[${i}]`)) : [`${path}: not a list`];
    case 2:
      return value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => checkShape(s[5], v, `${path}.${k}`)) : [`${path}: not a map`];
    case 3:
      return checkStructure(s, value, path);
    default:
      return [`${path}: schema kind ${String(s[0])} not checked`];
  }
}

function checkScalar(code: number, value: unknown, path: string): string[] {
  if (code & 64) return Array.isArray(value) ? value.flatMap((v, i) => checkScalar(code & 63, v, `${path}[${i}]`)) : [`${path}: not a list`];
  if (code & 128)
    return value && typeof value === 'object' ? Object.entries(value).flatMap(([k, v]) => checkScalar(code & 127, v, `${path}.${k}`)) : [`${path}: not a map`];
  const ok = code === 0 ? typeof value === 'string' : code === 1 || code === 4 ? typeof value === 'number' : code === 2 ? typeof value === 'boolean' : true;
  return ok ? [] : [`${path}: ${JSON.stringify(value)} is not of type ${code}`];
}

function checkStructure(s: unknown[], value: unknown, path: string): string[] {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return [`${path}: not a structure`];
  const names = s[4] as string[];
  const schemas = s[5] as Schema[];
  const required = typeof s[6] === 'number' ? s[6] : 0;
  const errors: string[] = [];
  for (const [k, v] of Object.entries(value)) {
    const i = names.indexOf(k);
    if (i < 0) errors.push(`${path}.${k}: not a member of ${String(s[2])}`);
    else errors.push(...checkShape(schemas[i], v, `${path}.${k}`));
  }
  for (const name of names.slice(0, required)) if (!(name in value)) errors.push(`${path}.${name}: required by ${String(s[2])}`);
  return errors;
}

/** A client package's exports: its schema arrays among them (`StartBuildInput$`, `CreateSchedule$`). */
export type SdkModel = Record<string, unknown>;

/** How a REST operation is bound to HTTP (`{ http: [method, path, code] }` in the operation's schema). */
export interface HttpBinding {
  method: string;
  /** The path template, such as `/schedules/{Name}`. */
  path: string;
  code: number;
}

/**
 * The input and output shapes of an operation (`StartBuild`, `CreateSchedule`) in `sdk`, and its
 * HTTP binding when the protocol is REST (absent for JSON 1.x protocols).
 */
export function operationShapes(sdk: SdkModel, operation: string): { input: Schema; output: Schema; http?: HttpBinding } {
  // The operation's schema `[9, ns, name, traits, input, output]` names its shapes, whatever the
  // service calls them (`…Input`, `…Request`, a shared structure, `unit`).
  const op = resolve(sdk[`${operation}$`]) as unknown[] | undefined;
  if (!Array.isArray(op) || op[0] !== 9) throw new Error(`the SDK's model has no operation ${operation}`);
  const input = op[4];
  const output = op[5];
  const http = (op?.[3] as { http?: [string, string, number] } | undefined)?.http;
  return { input, output, ...(http ? { http: { method: http[0], path: http[1], code: http[2] } } : {}) };
}

/** The operation of `operations` whose HTTP binding matches the request, with the path's labels. */
export function matchOperation(
  sdk: SdkModel,
  operations: readonly string[],
  method: string,
  path: string,
): { operation: string; labels: Record<string, string> } | undefined {
  for (const operation of operations) {
    const http = operationShapes(sdk, operation).http;
    if (!http || http.method !== method) continue;
    const names: string[] = [];
    const pattern = new RegExp(`^${http.path.replace(/\{([A-Za-z]+)\}/g, (_m, name: string) => (names.push(name), '([^/]+)'))}$`);
    const m = pattern.exec(path);
    if (m) return { operation, labels: Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])])) };
  }
  return undefined;
}

/**
 * A REST operation's input as the model sees it: members bound to the path (`httpLabel`), to the
 * query string (`httpQuery`, numbers converted) and the rest from the JSON body. A query
 * parameter the model does not bind is returned as an error.
 */
export function restInput(
  inputSchema: Schema,
  request: { labels: Record<string, string>; query: URLSearchParams; body: Record<string, unknown> },
): { input: Record<string, unknown>; errors: string[] } {
  const s = resolve(inputSchema) as unknown[];
  const names = s[4] as string[];
  const schemas = s[5] as Schema[];
  const input: Record<string, unknown> = { ...request.body };
  const errors: string[] = [];
  const bound = new Set<string>();
  names.forEach((name, i) => {
    const member = schemas[i];
    const traits = Array.isArray(member) && member.length === 2 ? member[1] : undefined;
    if (traits === 1 && name in request.labels) input[name] = request.labels[name];
    const query = traits && typeof traits === 'object' ? (traits as Record<string, unknown>).httpQuery : undefined;
    if (typeof query === 'string') {
      bound.add(query);
      const value = request.query.get(query);
      if (value !== null) input[name] = (member as unknown[])[0] === 1 ? Number(value) : value;
    }
  });
  for (const key of request.query.keys()) if (!bound.has(key)) errors.push(`query ${key}: not bound by the model`);
  return { input, errors };
}
