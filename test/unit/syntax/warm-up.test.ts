import { describe, expect, it, vi } from 'vitest';
import { createNodeGrammarLoader } from '../../../src/app/local/node-grammar-loader.js';
import { createSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import * as extractTags from '../../../src/core/syntax/extract-tags.js';
import type { SyntaxLanguage } from '../../../src/core/syntax/types.js';
import { WARM_UP_RUNS, WARM_UP_SAMPLES } from '../../../src/core/syntax/warm-up-samples.js';

const LANGUAGES = Object.keys(WARM_UP_SAMPLES) as SyntaxLanguage[];

describe('warm syntax service', () => {
  it('each warm-up sample parses without errors and yields definitions, references and calls', async () => {
    const syntax = await createSyntaxService(createNodeGrammarLoader());
    for (const language of LANGUAGES) {
      const source = WARM_UP_SAMPLES[language];
      expect(
        syntax.withTree(language, source, (tree) => tree.rootNode.hasError),
        language,
      ).toBe(false);
      const kinds = new Set(syntax.withTree(language, source, (tree) => extractTags.extractTagsFromTree(language, tree, source)).map((t) => t.kind));
      expect([...kinds].sort(), language).toEqual(expect.arrayContaining(['call', 'definition', 'import', 'reference']));
    }
  });

  it('tags every sample at load when asked to, and only then', async () => {
    const spy = vi.spyOn(extractTags, 'extractTagsFromTree');
    try {
      await createSyntaxService(createNodeGrammarLoader(), { languages: ['go', 'tsx'] });
      expect(spy).not.toHaveBeenCalled();
      await createSyntaxService(createNodeGrammarLoader(), { languages: ['go', 'tsx'], warm: true });
      expect(spy).toHaveBeenCalledTimes(2 * WARM_UP_RUNS);
      expect(new Set(spy.mock.calls.map(([language]) => language))).toEqual(new Set(['go', 'tsx']));
      expect(new Set(spy.mock.calls.map(([, , source]) => source))).toEqual(new Set([WARM_UP_SAMPLES.go, WARM_UP_SAMPLES.tsx]));
    } finally {
      spy.mockRestore();
    }
  });
});
