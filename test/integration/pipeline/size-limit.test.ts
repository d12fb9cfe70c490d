import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { applyRecipe } from '../../../src/core/engines/recipe/apply-recipe.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';
import { answer, callTools, startScriptedModelServer } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import { ledgerDir, LocalArtifactStore, MIGRATION_POLICY, makeMavenBare, removeRoot, runOnce, sharedSyntax, startRun, tempRoot } from './pipeline-harness.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

/** A file over the policy's `maxFileSizeMb` is never edited, even when a recipe would change it. */
const roots: string[] = [];
afterAll(() => roots.forEach(removeRoot));

const BIG = `OLD_NAME here\n${'filler line\n'.repeat(100_000)}`; // about 1.2 MB
const TASK = `Rename OLD_NAME in the notes.

\`\`\`agent
mode: draft_pr
steps:
  - recipe: replace
    find: OLD_NAME
    replace: NEW_NAME
    paths: [notes]
\`\`\`
`;

describe('the file size limit holds wherever a file is read for editing', () => {
  it('planning leaves a file over maxFileSizeMb out of the segment and says so; the small file is edited', async () => {
    const root = tempRoot('size-limit');
    roots.push(root);
    const bare = join(root, 'orders.git');
    const policy = `${MIGRATION_POLICY}ingestion:\n  maxFileSizeMb: 1\n`;
    makeMavenBare(bare, { '.agent-policy.yaml': policy, 'notes/big.txt': BIG, 'notes/small.txt': 'OLD_NAME\n' });
    const store = new LocalArtifactStore(join(root, 'store'));
    const run = await startRun(store, bare, 'sizelimit0001', TASK);
    const result = await runOnce({ store, source: bare, ...run });
    expect(result.status).toBe('COMPLETED');
    const candidate = JSON.parse(new TextDecoder().decode((await store.get(result.artifacts['pr-candidate.json']))!.body));
    expect(candidate.files.map((f: { path: string }) => f.path)).toEqual(['notes/small.txt']);
    const planning = readdirSync(join(root, 'store'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('-planning.json'));
    expect(planning).toHaveLength(1);
    const checkpoint = JSON.parse(readFileSync(join(root, 'store', planning[0]), 'utf8'));
    expect(checkpoint.output.segments[0].paths).toEqual(['notes/small.txt']);
    expect(checkpoint.decisions).toContain('not edited, over the 1 MB file size limit: notes/big.txt');
  }, 60_000);

  it('the recipe engine refuses an oversized file itself (TOO_LARGE), whatever the plan says', async () => {
    const repo = await createMemoryRepo({ 'big.txt': BIG, 'small.txt': 'OLD_NAME\n' });
    const step = RecipeStep.parse({ recipe: 'replace', find: 'OLD_NAME', replace: 'NEW_NAME' });
    const result = await applyRecipe(step, repo.workspace, {
      paths: ['big.txt', 'small.txt'],
      syntax: await sharedSyntax(),
      isEditable: () => true,
      maxFileBytes: 1024 * 1024,
      rules: defaultPathRules(),
    });
    expect(result.changedFiles.map((f) => f.path)).toEqual(['small.txt']);
    expect(result.skipped).toEqual([{ path: 'big.txt', reason: 'TOO_LARGE' }]);
  });

  it('a model segment may not write a file past the limit: the write is refused and ledgered', async () => {
    const root = tempRoot('size-limit-llm');
    roots.push(root);
    const repo = join(root, 'orders');
    const service = 'order-service/src/main/java/com/acme/order/OrderService.java';
    makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': `${MIGRATION_POLICY}ingestion:\n  maxFileSizeMb: 1\n` });
    const script = [callTools({ name: 'file_write', arguments: { path: service, content: `// ${'x'.repeat(1024 * 1024)}\n` } }), answer('done')];
    const server = await startScriptedModelServer({ apiKey: 'k', script: (_body, index) => script[index] ?? answer('done') });
    try {
      const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: 'k', maxRetries: 0 });
      const out = join(root, 'state');
      const result = await cli(
        ['run', repo, '--task', 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace', '--out', out, '--json'],
        { model },
      );
      const ledgerPath = ledgerDir(result.json!.runDir, 1);
      const refused = readdirSync(ledgerPath)
        .map((f) => JSON.parse(readFileSync(join(ledgerPath, f), 'utf8')))
        .filter((e) => e.type === 'TOOL_REFUSED');
      expect(refused.map((e) => [e.payload.tool, e.payload.reason, e.payload.message])).toEqual([
        ['file_write', 'FILE_NOT_ALLOWED', `${service} is over the 1 MB file size limit`],
      ]);
    } finally {
      await server.close();
    }
  }, 60_000);
});
