import * as codebuild from '@aws-sdk/client-codebuild';

/**
 * Checks a JSON value against a shape of an AWS service model as the AWS SDK ships it (the
 * schema arrays every v3 client exports, here CodeBuild's by default and SQS's for the run
 * queue's stand-in: `[3, ns, name, traits, members, schemas,
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

/**
 * The input and output shapes of an operation (`StartBuild`, `BatchGetBuilds`; with the SQS
 * client's module, `SendMessage`) from the client's operation schema `[9, ns, name, traits,
 * input, output]`, whatever the service names its shapes (`…Input`, `…Request`).
 */
export function operationShapes(operation: string, service: object = codebuild): { input: Schema; output: Schema } {
  const op = resolve((service as Record<string, Schema>)[`${operation}$`]);
  if (!Array.isArray(op) || op[0] !== 9) throw new Error(`the SDK's model has no operation ${operation}`);
  return { input: op[4], output: op[5] };
}
