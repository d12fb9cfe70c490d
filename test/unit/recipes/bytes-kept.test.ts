import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { applyRecipeToFile } from '../../../src/core/engines/recipe/apply-recipe-to-file.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const migrate = (from: string, to: string, path: string, text: string) =>
  applyRecipeToFile(RecipeStep.parse({ recipe: 'migrate-import', from, to }), { path, text }, { syntax })?.text;

/** Moving and inserting lines must not change how the file writes its bytes. */
describe('import placement keeps the file’s bytes', () => {
  it('line endings: a CRLF file stays CRLF, including a new group and its blank separator', () => {
    const before = 'import requests\r\nfrom mock.mock import patch\r\n\r\n\r\ndef test():\r\n    patch("x")\r\n';
    expect(migrate('mock.mock', 'unittest.mock', 'tests/test_api.py', before)).toBe(
      'from unittest.mock import patch\r\n\r\nimport requests\r\n\r\n\r\ndef test():\r\n    patch("x")\r\n',
    );
  });

  it('line endings: a LF file gets no CR', () => {
    const after = migrate('mock.mock', 'unittest.mock', 't.py', 'import requests\nfrom mock.mock import patch\n');
    expect(after).toBe('from unittest.mock import patch\n\nimport requests\n');
  });

  it('indentation: a moved multi-line import keeps its own indentation (four spaces)', () => {
    const before = "import { a } from '@acme/alpha';\nimport {\n    legacyClient,\n    type LegacyOptions,\n} from '@acme/old';\nimport { z } from 'zod';\n";
    expect(migrate('@acme/old', '@acme/beta', 'src/x.ts', before)).toBe(
      "import { a } from '@acme/alpha';\nimport {\n    legacyClient,\n    type LegacyOptions,\n} from '@acme/beta';\nimport { z } from 'zod';\n",
    );
    expect(migrate('@acme/old', 'zzz', 'src/x.ts', before)).toBe(
      "import { a } from '@acme/alpha';\nimport { z } from 'zod';\nimport {\n    legacyClient,\n    type LegacyOptions,\n} from 'zzz';\n",
    );
  });

  it('indentation: Go import specs keep their tab', () => {
    const before = 'package a\n\nimport (\n\t"fmt"\n\n\t"github.com/x/old"\n\t"github.com/x/zeta"\n)\n';
    expect(migrate('github.com/x/old', 'github.com/x/zz', 'a.go', before)).toBe(
      'package a\n\nimport (\n\t"fmt"\n\n\t"github.com/x/zeta"\n\t"github.com/x/zz"\n)\n',
    );
  });

  it('final newline: its absence is kept when the last line moves up', () => {
    expect(migrate('z.old', 'a', 'm.py', 'import os\n\nfrom b import y\nfrom z.old import x')).toBe('import os\n\nfrom a import x\nfrom b import y');
  });

  it('final newline: its presence is kept when the last line moves up', () => {
    expect(migrate('z.old', 'a', 'm.py', 'from b import y\nfrom z.old import x\n')).toBe('from a import x\nfrom b import y\n');
  });

  it('byte order mark: stays first when the first import moves down', () => {
    expect(migrate('a.old', 'zz', 'A.java', '\uFEFFimport a.old.X;\nimport b.Y;\n\nclass A {}\n')).toBe('\uFEFFimport b.Y;\nimport zz.X;\n\nclass A {}\n');
  });
});
