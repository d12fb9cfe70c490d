import { describe, expect, it } from 'vitest';
import { introducedNameProblems } from '../../../src/core/syntax/name-bindings.js';

const problems = (path: string, before: string | undefined, after: string) =>
  introducedNameProblems(path, before, after).map((p) => (p.kind === 'unresolved' ? `unresolved ${p.name}@${p.line}` : `unused ${p.name}@${p.line}`));

describe('names a change leaves unbound', () => {
  describe('Go', () => {
    const before = 'package x\n\nimport (\n\t"fmt"\n\t"io/ioutil"\n)\n\nfunc f() {\n\tb, _ := ioutil.ReadAll(r)\n\tfmt.Println(b)\n}\n';

    it('an import path changed to a package of another name while the old qualifier stays, and the new import unused', () => {
      const after = before.replace('"io/ioutil"', '"io"');
      expect(problems('x/read.go', before, after)).toEqual(['unresolved ioutil@9', 'unused io@5']);
    });

    it('the change a human makes: the qualifier follows the import', () => {
      const after = before.replace('"io/ioutil"', '"io"').replace('ioutil.ReadAll', 'io.ReadAll');
      expect(problems('x/read.go', before, after)).toEqual([]);
    });

    it('an alias, a version suffix, a blank import, and a name only in a string or comment', () => {
      const a =
        'package x\nimport (\n\tyaml "gopkg.in/yaml.v3"\n\t"github.com/x/api/v2"\n\t_ "embed"\n)\n// ioutil.ReadAll\nvar s = "ioutil.X"\nvar _ = yaml.Marshal\nvar _ = api.New\n';
      expect(problems('x/a.go', a, a)).toEqual([]);
      expect(problems('x/a.go', a, a.replace('var _ = api.New\n', ''))).toEqual(['unused api@4']);
    });

    it('reports nothing the file already had: an unused import before stays unreported', () => {
      const a = 'package x\nimport "os"\nfunc f() {}\n';
      expect(problems('x/a.go', a, `${a}// more\n`)).toEqual([]);
    });
  });

  describe('Python', () => {
    it('import a became import b while a.X stays', () => {
      const before = 'import simplejson\n\ndef f(s):\n    return simplejson.loads(s)\n';
      expect(problems('app/x.py', before, before.replace('import simplejson', 'import json'))).toEqual(['unresolved simplejson@4']);
      expect(problems('app/x.py', before, before.replace('import simplejson', 'import json as simplejson'))).toEqual([]);
    });

    it('a from-import renamed while the code still uses the old name; a docstring and a local definition do not count', () => {
      const before = 'from enum import Enum\n"""Enum docs"""\nclass Color(Enum):\n    RED = 1\n';
      expect(problems('app/c.py', before, before.replace('import Enum', 'import EnumSymbol'))).toEqual(['unresolved Enum@3']);
      const local = 'from enum import Enum\nx = Enum\n';
      expect(problems('app/c.py', local, 'class Enum:\n    pass\nx = Enum\n')).toEqual([]);
    });

    it('a parenthesised import list and a star import', () => {
      const before = 'from a import (\n    b,\n    c as d,\n)\nb(); d()\n';
      expect(problems('p.py', before, before.replace('    c as d,\n', ''))).toEqual(['unresolved d@4']);
      expect(problems('p.py', before, 'from a import *\nb(); d()\n')).toEqual([]);
    });
  });

  describe('Java and Kotlin', () => {
    it('an import rewritten to another class while the simple name stays in the code', () => {
      const before = 'package p;\n\nimport javax.persistence.Entity;\n\n@Entity\nclass Order {}\n';
      expect(problems('src/Order.java', before, before.replace('javax.persistence.Entity', 'jakarta.persistence.Entity'))).toEqual([]);
      expect(problems('src/Order.java', before, before.replace('javax.persistence.Entity', 'jakarta.persistence.Table'))).toEqual(['unresolved Entity@5']);
      expect(problems('src/Order.java', before, before.replace('javax.persistence.Entity', 'jakarta.persistence.*'))).toEqual([]);
    });

    it('Kotlin: an alias dropped', () => {
      const before = 'package p\nimport a.b.Thing as T\nfun f() = T()\n';
      expect(problems('src/F.kt', before, before.replace(' as T', ''))).toEqual(['unresolved T@3']);
    });
  });

  describe('JavaScript and TypeScript', () => {
    it('a package swapped while a named import is still used; a require destructuring', () => {
      const before = "import { debounce, throttle as t } from 'lodash';\nconst { join } = require('path');\n\nexport const f = debounce(() => t(join('a')));\n";
      const after = before.replace("{ debounce, throttle as t } from 'lodash'", "{ debounce } from 'lodash-es'");
      expect(problems('src/f.ts', before, after)).toEqual(['unresolved t@4']);
      expect(problems('src/f.ts', before, before.replace("'lodash'", "'lodash-es'"))).toEqual([]);
    });

    it('a name in a string, a comment or a property access is not a use', () => {
      const before = "import X from 'x';\nX();\n";
      expect(problems('a.js', before, "// X()\nconst s = 'X';\nobj.X = 1;\n")).toEqual([]);
    });
  });

  it('an added file and a file of another language are not checked against anything', () => {
    expect(problems('x/new.go', undefined, 'package x\nimport "fmt"\nfunc f() { fmt.Println() }\n')).toEqual([]);
    expect(problems('README.md', 'import a', 'a.b')).toEqual([]);
  });
});
