/**
 * CloudFormation conditions as a deployment evaluates them, for templates whose parameters the
 * framework has already substituted (so every Fn::Equals compares literals). Used to read a
 * generated template the way the stack will be created: `Fn::If` takes its branch, and
 * `AWS::NoValue` disappears from lists and objects.
 */
type Json = any; // CloudFormation is untyped JSON

export function conditionEvaluator(conditions: Record<string, Json>): (name: string) => boolean {
  const memo = new Map<string, boolean>();
  const evaluate = (expr: Json): boolean => {
    if (typeof expr === 'boolean') return expr;
    if ('Condition' in expr) return byName(expr.Condition as string);
    if ('Fn::Equals' in expr) {
      const [a, b] = expr['Fn::Equals'] as Json[];
      if (typeof a !== 'string' || typeof b !== 'string') throw new Error(`Fn::Equals on non-literals: ${JSON.stringify(expr)}`);
      return a === b;
    }
    if ('Fn::Not' in expr) return !evaluate(expr['Fn::Not'][0]);
    if ('Fn::And' in expr) return (expr['Fn::And'] as Json[]).every(evaluate);
    if ('Fn::Or' in expr) return (expr['Fn::Or'] as Json[]).some(evaluate);
    throw new Error(`unsupported condition ${JSON.stringify(expr)}`);
  };
  const byName = (name: string): boolean => {
    if (!(name in conditions)) throw new Error(`no condition ${name}`);
    if (!memo.has(name)) memo.set(name, evaluate(conditions[name]));
    return memo.get(name)!;
  };
  return byName;
}

const isNoValue = (v: Json) => v && typeof v === 'object' && !Array.isArray(v) && v.Ref === 'AWS::NoValue';

/** `value` with every Fn::If decided by `condition` and AWS::NoValue removed. */
export function applyConditions(value: Json, condition: (name: string) => boolean): Json {
  if (Array.isArray(value)) return value.map((v) => applyConditions(v, condition)).filter((v) => !isNoValue(v));
  if (value && typeof value === 'object') {
    if ('Fn::If' in value) {
      const [name, yes, no] = value['Fn::If'] as [string, Json, Json];
      return applyConditions(condition(name) ? yes : no, condition);
    }
    return Object.fromEntries(
      Object.entries(value)
        .map(([k, v]) => [k, applyConditions(v, condition)] as const)
        .filter(([, v]) => !isNoValue(v)),
    );
  }
  return value;
}
