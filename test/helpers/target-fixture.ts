import { createNodeSyntaxService } from '../../src/app/local/node-grammar-loader.js';
import { buildRepoMap } from '../../src/core/repomap/build-repo-map.js';
import { FileContents } from '../../src/core/repomap/file-contents.js';
import { SymbolIndex } from '../../src/core/repomap/symbol-index.js';
import { selectTargets } from '../../src/core/targets/select-targets.js';
import type { TargetSelection } from '../../src/core/targets/target-selection-schema.js';
import { parseTask } from '../../src/core/task/parse-task.js';
import { createMemoryRepo } from './memory-repo.js';
import { pathRulesFor } from './path-rules.js';

/**
 * An in-memory repository of `files` with its map and tree-sitter symbols, and target selection
 * over it for an issue's title and body, as a run selects (default path rules).
 */
export async function targetFixture(files: Record<string, string>, name: string): Promise<{ select(title: string, body: string): Promise<TargetSelection> }> {
  const rules = pathRulesFor({});
  const syntax = await createNodeSyntaxService();
  const repo = await createMemoryRepo(files);
  const map = await buildRepoMap({ workspace: repo.workspace, owner: 'acme', repo: name, rules, policyDigest: 'p1' });
  return {
    async select(title, body) {
      const task = parseTask({ title, body, source: 'github' });
      const contents = new FileContents(repo.workspace);
      return selectTargets({ workspace: repo.workspace, task, map, rules, syntax, contents, symbols: new SymbolIndex(syntax, contents) });
    },
  };
}
