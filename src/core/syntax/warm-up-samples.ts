import type { SyntaxLanguage } from './types.js';

/**
 * A few lines per language, in the shapes most files have (imports, a type, methods, calls), for
 * `createSyntaxService({ warm: true })`. They must parse without errors, so that warming runs the
 * grammar's ordinary paths rather than its error recovery.
 */
export const WARM_UP_SAMPLES: Record<SyntaxLanguage, string> = {
  java: `package p;\nimport java.util.List;\n@Service\npublic class A extends B implements C {\n  private final List<String> items = new ArrayList<>();\n  public String run(int n, Map<String, Long> m) {\n    for (int i = 0; i < n; i++) { items.add("x" + i); }\n    return Util.join(items, ", ").trim();\n  }\n}\n`,
  kotlin: `package p\n\nimport java.util.UUID\n\n@Service\nclass A(private val repo: Repo) : B(), C {\n    private val items = mutableListOf<String>()\n\n    fun run(n: Int, m: Map<String, Long>): String {\n        for (i in 0 until n) {\n            items.add("x$i")\n        }\n        return Util.join(items, ", ").trim()\n    }\n}\n`,
  typescript: `import { A } from './a';\nexport interface I { name: string; items?: number[] }\nexport class S<T> extends A implements I {\n  name = 'x';\n  private readonly m = new Map<string, T>();\n  async run(items: string[], n: number): Promise<T | undefined> {\n    for (let k = 0; k < n; k++) items.push(\`\${k}\`);\n    return this.m.get(items.join(', ').trim());\n  }\n}\n`,
  tsx: `import React, { useState } from 'react';\ntype P = { items: string[]; title?: string };\nexport function View({ items, title }: P) {\n  const [open, setOpen] = useState<boolean>(false);\n  return (\n    <ul className="list" onClick={() => setOpen(!open)}>\n      {items.map((x, i) => <li key={i}>{x.trim()}</li>)}\n    </ul>\n  );\n}\n`,
  javascript: `const { A } = require('./a');\nimport b from 'b';\nclass S extends A {\n  constructor() { super(); this.m = new Map(); }\n  async run(items, n) {\n    for (let k = 0; k < n; k++) items.push(\`\${k}\`);\n    return this.m.get(items.join(', ').trim()) ?? b.fallback({ n });\n  }\n}\nmodule.exports = { S };\n`,
  python: `import os\nfrom a import B\n\n\n@dataclass\nclass S(B):\n    limit: int = 3\n\n    def __init__(self, items: list) -> None:\n        self.items = [x.strip() for x in items if x]\n\n    def run(self, n: int) -> str:\n        for k in range(n):\n            self.items.append(str(k))\n        return os.path.join(*self.items)\n`,
  go: `package p\n\nimport (\n\t"fmt"\n\t"strings"\n)\n\ntype S struct {\n\tItems []string\n}\n\nfunc (s *S) Run(n int) string {\n\tfor k := 0; k < n; k++ {\n\t\ts.Items = append(s.Items, fmt.Sprint(k))\n\t}\n\treturn strings.Join(s.Items, ", ")\n}\n`,
};

/**
 * Runs of each sample when warming. The engine starts optimising a grammar's lexer after a few
 * kilobytes of input; more runs only delay the load.
 */
export const WARM_UP_RUNS = 8;
