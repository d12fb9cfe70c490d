import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpRepoSource } from '../../../src/app/git/http-repo-source.js';
import { LocalRepoSource } from '../../../src/app/git/local-repo-source.js';
import type { LlmTool } from '../../../src/core/engines/llm/index.js';
import type { Ledger } from '../../../src/core/phases/ledger.js';
import type { RepoSource } from '../../../src/core/ingestion/repo-source.js';
import { historyTools } from '../../../src/core/pipeline/model-tools/history-tools.js';
import { generateHistoryRepo, type HistoryRepo } from '../../fixtures/history-repo.js';
import { startGitHttpServer, type GitHttpServer } from '../../helpers/git-http-server.js';
import { ingest, removeRoot, tempRoot } from './ingestion-harness.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

let root: string;
let repo: HistoryRepo;
let server: GitHttpServer;

beforeAll(async () => {
  root = tempRoot('history-tools');
  repo = generateHistoryRepo(`${root}/hist.git`, { commits: 8, files: 12 });
  server = await startGitHttpServer({ root, config: { 'uploadpack.allowFilter': 'true' } });
});

afterAll(async () => {
  await server.stop();
  removeRoot(root);
});

const short = (k: number) => repo.commits[k - 1].slice(0, 12);

async function toolsFor(source: RepoSource, taskText?: string) {
  const ledger: { type: string; payload: Record<string, unknown> }[] = [];
  const result = await (await ingest(source, { taskText })).run;
  const fake = { append: async (e: { type: string; payload: Record<string, unknown> }) => void ledger.push(e) } as unknown as Ledger;
  const tools = historyTools({ workspace: result.workspace, ledger: fake, phase: 'mechanical_change', rules: defaultPathRules() });
  const tool = (name: string) => tools.find((t) => t.spec.name === name) as LlmTool<any>;
  return { log: (args: object) => tool('git_log').run(args), blame: (args: object) => tool('git_blame').run(args), ledger, result };
}

/** A source that cannot deepen (the port's deepen is optional). */
function withoutDeepen(source: RepoSource): RepoSource {
  return { info: () => source.info(), resolveRef: (r) => source.resolveRef(r), fetch: (r) => source.fetch(r), currentHead: (r) => source.currentHead(r) };
}

describe('git_log and git_blame over the fetched history', () => {
  it('lists the history newest first, for the whole branch or one path', async () => {
    const { log } = await toolsFor(new LocalRepoSource(`${root}/hist.git`), 'revert the change to line 8');
    const all = (await log({})).split('\n');
    expect(all).toHaveLength(8);
    expect(all[0]).toBe(`${short(8)} 2024-01-08 Fixture Author: change line 8 of calc`);
    expect(all[7]).toBe(`${short(1)} 2024-01-01 Fixture Author: initial import`);
    expect((await log({ path: 'src/calc.ts', maxCount: 3 })).split('\n').map((l) => l.slice(0, 12))).toEqual([short(8), short(7), short(6)]);
    // file3 changes in commits 3 (3 % 10 = 3) and at creation.
    expect((await log({ path: 'src/mod3/file3.ts' })).split('\n').map((l) => l.slice(0, 12))).toEqual([short(3), short(1)]);
    expect(await log({ path: 'no/such/file.ts' })).toBe('no commit in the fetched history changed no/such/file.ts');
  });

  it('blames each line on the commit that last changed it', async () => {
    const { blame } = await toolsFor(new LocalRepoSource(`${root}/hist.git`), 'git blame line 5');
    const lines = (await blame({ path: 'src/calc.ts', startLine: 1, endLine: 8 })).split('\n');
    expect(lines).toEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map(
        (k) => `${short(k)} ${repo.dates[k - 1].slice(0, 10)} Fixture Author L${k}: export const line${k} = '${k === 1 ? 'base' : `changed in commit ${k}`}';`,
      ),
    );
    expect(await blame({ path: 'src/calc.ts', startLine: 4, endLine: 4 })).toBe(
      `${short(4)} 2024-01-04 Fixture Author L4: export const line4 = 'changed in commit 4';`,
    );
  });

  it('says the history is shallow, and marks boundary lines, when it cannot deepen', async () => {
    const { log, blame } = await toolsFor(withoutDeepen(new LocalRepoSource(`${root}/hist.git`)));
    expect(await log({ maxCount: 5 })).toBe(
      `^${short(8)} 2024-01-08 Fixture Author: change line 8 of calc\nhistory is shallow at 1 commits: older commits were not fetched`,
    );
    const lines = (await blame({ path: 'src/calc.ts', startLine: 7, endLine: 8 })).split('\n');
    expect(lines).toEqual([
      `^${short(8)} 2024-01-08 Fixture Author L7: export const line7 = 'changed in commit 7';`,
      `^${short(8)} 2024-01-08 Fixture Author L8: export const line8 = 'changed in commit 8';`,
      'history is shallow at 1 commits: older commits were not fetched',
    ]);
  });

  it('deepens over protocol v2 when the model asks for more history than was fetched, and records it', async () => {
    const { log, blame, ledger } = await toolsFor(new HttpRepoSource({ url: `${server.url}/hist.git` }));
    const lines = (await log({ maxCount: 5 })).split('\n');
    expect(lines.map((l) => l.slice(0, 12))).toEqual([short(8), short(7), short(6), short(5), short(4)]);
    expect(ledger).toEqual([
      {
        actor: 'orchestrator',
        phase: 'mechanical_change',
        type: 'HISTORY_DEEPENED',
        payload: expect.objectContaining({ tool: 'git_log', from: 1, requested: 51, depth: 51 }),
      },
    ]);
    expect(await blame({ path: 'src/calc.ts', startLine: 2, endLine: 2 })).toBe(
      `${short(2)} 2024-01-02 Fixture Author L2: export const line2 = 'changed in commit 2';`,
    );
  });

  it('bounds its arguments', async () => {
    const { result } = await toolsFor(new LocalRepoSource(`${root}/hist.git`));
    const tools = historyTools({
      workspace: result.workspace,
      ledger: { append: async () => undefined } as unknown as Ledger,
      phase: 'mechanical_change',
      rules: defaultPathRules(),
    });
    expect(tools.find((t) => t.spec.name === 'git_log')?.args.safeParse({ maxCount: 1000 }).success).toBe(false);
    const blame = tools.find((t) => t.spec.name === 'git_blame') as LlmTool<any>;
    await expect(blame.run({ path: 'src/calc.ts', startLine: 5, endLine: 2 })).rejects.toThrow(/endLine is before startLine/);
    await expect(blame.run({ path: 'missing.ts', startLine: 1, endLine: 2 })).rejects.toThrow(/no such file at the base commit/);
  });
});
