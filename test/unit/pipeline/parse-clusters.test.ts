import { beforeAll, describe, expect, it } from 'vitest';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { parseClusters, topLevelModule } from '../../../src/core/pipeline/parse-clusters.js';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

describe('parseClusters', () => {
  let syntax: TreeSyntaxService;
  beforeAll(async () => {
    syntax = await createNodeSyntaxService();
  });

  it('blames the change only for problems the base did not already have', async () => {
    const { workspace } = await createMemoryRepo({
      'api/ok.json': '{"a": 1}\n',
      'api/already-broken.json': '{"a": \n',
      'svc/Main.java': 'class Main { void run() {} }\n',
      'svc/Other.java': 'class Other {}\n',
    });
    await workspace.write('api/ok.json', '{"a": 1,\n');
    await workspace.write('api/already-broken.json', '{"a": \n\n');
    await workspace.write('svc/Main.java', 'class Main { void run() { }\n');
    await workspace.write('svc/Other.java', 'class Other { int x; }\n');
    const { clusters, checked, preexisting } = await parseClusters(workspace, syntax, topLevelModule);
    expect(checked).toEqual(['api/already-broken.json', 'api/ok.json', 'svc/Main.java', 'svc/Other.java']);
    expect(Object.keys(preexisting)).toEqual(['api/already-broken.json']);
    expect(clusters.map((c) => [c.module, c.files.map((f) => f.path)])).toEqual([
      ['api', ['api/ok.json']],
      ['svc', ['svc/Main.java']],
    ]);
  });
});
