/**
 * The free-text tasks of `npm run eval:model`: each a small generated repository, an issue-like
 * task with no recipe block, the files a correct fix changes (and nothing else), and a predicate
 * on each changed file's content. The predicates accept any reasonable fix, not one spelling.
 */
export interface ModelEvalTask {
  id: string;
  /** The issue text, as a maintainer would write it. */
  task: string;
  /** The repository before the change: path -> content. */
  files: Record<string, string>;
  /** Exactly the files a correct change touches. */
  changes: string[];
  /** Why the content of a changed file is wrong, or undefined when it is right. */
  check(path: string, content: string): string | undefined;
}

const README = '# Sample\n\nA small project used to measure a model on free-text tasks.\n';

/** A few files every repository has, so "nothing else touched" has something to leave alone. */
function withDistractors(files: Record<string, string>): Record<string, string> {
  return { 'README.md': README, 'docs/notes.md': 'Nothing here needs changing.\n', ...files };
}

const must = (ok: boolean, why: string) => (ok ? undefined : why);

export const MODEL_EVAL_TASKS: readonly ModelEvalTask[] = [
  {
    id: 'off-by-one-total',
    task: 'Fix the off-by-one in `total` in billing/invoice.py: the first line item is never counted.',
    files: withDistractors({
      'billing/__init__.py': '',
      'billing/invoice.py':
        'class Item:\n    def __init__(self, price, qty):\n        self.price = price\n        self.qty = qty\n\n\ndef total(items):\n    return sum(item.price * item.qty for item in items[1:])\n',
      'billing/tax.py': 'RATE = 0.2\n\n\ndef tax(amount):\n    return amount * RATE\n',
      'tests/test_invoice.py': 'from billing.invoice import Item, total\n\n\ndef test_total():\n    assert total([Item(2, 3), Item(1, 1)]) == 7\n',
    }),
    changes: ['billing/invoice.py'],
    check: (_path, content) =>
      must(/def total\(/.test(content) && !/\bitems\[/.test(content) && /\bin items\s*\)/.test(content), 'total still skips the first item'),
  },
  {
    id: 'rename-parameter',
    task: 'Rename the parameter `n` of `fib` in mathutil/sequences.py to `count`; the body must use the new name.',
    files: withDistractors({
      'mathutil/__init__.py': '',
      'mathutil/sequences.py':
        'def fib(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n    return a\n\n\ndef squares(n):\n    return [i * i for i in range(n)]\n',
    }),
    changes: ['mathutil/sequences.py'],
    check: (_path, content) => {
      const fib = /def fib\([^)]*\):[\s\S]*?(?=\n\S|$)/.exec(content)?.[0] ?? '';
      if (!/def fib\(count\)/.test(fib)) return 'fib does not take `count`';
      if (/\bn\b/.test(fib.replace(/def fib\(count\)/, ''))) return 'fib still uses `n`';
      return must(/def squares\(n\)/.test(content), 'squares was changed too');
    },
  },
  {
    id: 'null-check',
    task: 'displayName in src/user.ts crashes when there is no user. Add a null check: return an empty string when `user` is null.',
    files: withDistractors({
      'package.json': '{\n  "name": "users",\n  "version": "1.0.0"\n}\n',
      'src/user.ts': 'export interface User {\n  name: string;\n}\n\nexport function displayName(user: User | null): string {\n  return user.name.trim();\n}\n',
      'src/index.ts': "export { displayName } from './user';\n",
    }),
    changes: ['src/user.ts'],
    check: (_path, content) =>
      must(/user\s*===?\s*null|!user\b|user\s*\?\?|user\?\./.test(content) && content.includes('displayName'), 'no null check in displayName'),
  },
  {
    id: 'comparison-boundary',
    task: 'isAdult in lib/age.js says 18-year-olds are not adults. Fix the comparison so that 18 counts as adult.',
    files: withDistractors({
      'lib/age.js': 'function isAdult(age) {\n  return age > 18;\n}\n\nmodule.exports = { isAdult };\n',
      'lib/format.js': 'function years(n) {\n  return `${n} years`;\n}\n\nmodule.exports = { years };\n',
    }),
    changes: ['lib/age.js'],
    check: (_path, content) => must(/age\s*>=\s*18|18\s*<=\s*age|age\s*>\s*17\b/.test(content) && !/age\s*>\s*18\b/.test(content), 'isAdult still excludes 18'),
  },
  {
    id: 'greeting-text',
    task: 'Greeter.greet in src/main/java/demo/Greeter.java should say "Hello, <name>!" with a capital H and an exclamation mark.',
    files: withDistractors({
      'pom.xml':
        '<project>\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>demo</groupId>\n  <artifactId>greeter</artifactId>\n  <version>1.0</version>\n</project>\n',
      'src/main/java/demo/Greeter.java':
        'package demo;\n\npublic class Greeter {\n    public String greet(String name) {\n        return "hello, " + name;\n    }\n}\n',
      'src/main/java/demo/Main.java':
        'package demo;\n\npublic class Main {\n    public static void main(String[] args) {\n        System.out.println(new Greeter().greet("world"));\n    }\n}\n',
    }),
    changes: ['src/main/java/demo/Greeter.java'],
    check: (_path, content) => must(content.includes('"Hello, "') && /name\s*\+\s*"!"/.test(content), 'greet does not return "Hello, <name>!"'),
  },
  {
    id: 'config-default',
    task: 'Requests time out too early. Raise the default TIMEOUT_SECONDS in service/config.py from 5 to 30.',
    files: withDistractors({
      'service/__init__.py': '',
      'service/config.py': 'TIMEOUT_SECONDS = 5\nRETRIES = 3\n',
      'service/client.py':
        'from service.config import RETRIES, TIMEOUT_SECONDS\n\n\ndef settings():\n    return {"timeout": TIMEOUT_SECONDS, "retries": RETRIES}\n',
    }),
    changes: ['service/config.py'],
    check: (_path, content) =>
      must(/^TIMEOUT_SECONDS\s*=\s*30\s*$/m.test(content) && /^RETRIES\s*=\s*3\s*$/m.test(content), 'TIMEOUT_SECONDS is not 30 (or RETRIES changed)'),
  },
];
