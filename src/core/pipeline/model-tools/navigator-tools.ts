import { z } from 'zod';
import { defineLlmTool, type LlmTool } from '../../engines/llm/index.js';
import { normalizeRepoPath } from '../../util/repo-path.js';
import type { ModelToolContext } from './tool-context.js';
import { explanationText, navigationText } from './navigator-text.js';

const limit = z.number().int().positive().max(50).optional();

/**
 * The repository navigator's queries as tools. Every answer is text like the other tools': the
 * query, then one result per line with a score, a reason and evidence (`path:line` of a symbol or
 * import, the CODEOWNERS rule, the map's evidence ids), and a note when a read bound stopped the
 * query early (`navigator-text.ts`).
 */
export function navigatorTools(ctx: ModelToolContext): LlmTool<any>[] {
  return [
    defineLlmTool({
      name: 'repo_map_find_definition',
      description:
        'Where a symbol (class, function, method, type, variable) is defined: definitions first, then a few references. `Type.member` narrows to members of Type.',
      args: z.object({ name: z.string().min(1).max(200), limit }),
      run: async ({ name, limit: n }) => navigationText(await (await ctx.navigator()).findDefinitions(name.trim(), ctx.symbols, n)),
    }),
    defineLlmTool({
      name: 'repo_map_find_importers',
      description: 'Files that import a module or file (JS/TS, Java/Kotlin, Python, Go), with the importing line.',
      args: z.object({ path: z.string(), limit }),
      run: async ({ path, limit: n }) => navigationText(await (await ctx.navigator()).findImporters(normalizeRepoPath(path), n)),
    }),
    defineLlmTool({
      name: 'repo_map_find_tests',
      description: 'Tests that cover a source file: by naming convention in its module, then tests that mention it.',
      args: z.object({ path: z.string(), limit }),
      run: async ({ path, limit: n }) => navigationText(await (await ctx.navigator()).findRelatedTests(normalizeRepoPath(path), n)),
    }),
    defineLlmTool({
      name: 'repo_map_owners',
      description: 'Owners of a path by CODEOWNERS (the last matching rule wins), with the rule.',
      args: z.object({ path: z.string() }),
      run: async ({ path }) => navigationText((await ctx.navigator()).findOwners(normalizeRepoPath(path))),
    }),
    defineLlmTool({
      name: 'repo_map_explain_path',
      description: 'What a path is: its module and manifest, role (source, test, config, …), owners, risk and navigation hints.',
      args: z.object({ path: z.string() }),
      run: async ({ path }) => explanationText((await ctx.navigator()).explainPath(normalizeRepoPath(path))),
    }),
    defineLlmTool({
      name: 'repo_map_find_files',
      description: 'Files whose path matches a glob (`**/*Service.java`, `src/**/test_*.py`; a bare name such as `pom.xml` matches at any depth).',
      args: z.object({ pattern: z.string().min(1).max(300), limit: z.number().int().positive().max(200).optional() }),
      run: async ({ pattern, limit: n }) => navigationText((await ctx.navigator()).findFilesByPattern(pattern, n ?? 100)),
    }),
  ];
}
