import { describe, expect, it } from 'vitest';
import { FileContents } from '../../../src/core/repomap/file-contents.js';
import { keywordSearch } from '../../../src/core/targets/keyword-search.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

describe('keywordSearch', () => {
  it('respects identifier boundaries and numbers lines', async () => {
    const r = await createMemoryRepo({ 'a.ts': 'const fooBar = 1;\nfoo();\n// foo\n', 'b.bin': new Uint8Array([0, 1, 2, 102, 111, 111]) });
    const { hits, searched } = await keywordSearch(new FileContents(r.workspace), ['a.ts', 'b.bin'], ['foo']);
    expect(searched).toBe(1);
    expect(hits.get('a.ts')!.map((h) => h.line)).toEqual([2, 3]);
  });
});
