import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';
import { cli, makeWorkingCopy } from '../cli/cli-harness.js';
import {
  ledgerDir,
  LocalArtifactStore,
  MIGRATION_POLICY,
  dyingStore,
  loadAttempt,
  makeMavenBare,
  removeRoot,
  runOnce,
  startRun,
  tempRoot,
} from './pipeline-harness.js';

/**
 * Plan revision through the whole pipeline: the model adds a file to its segment with a reason
 * (`plan_revise`), is refused a forbidden path each refusal told
 * with its reason; accepted revisions are ledgered and shown in the PR body.
 */
const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
// Not a selected target for the task: the model has to revise the plan to change it.
const EXTRA = 'order-service/src/main/java/com/acme/order/OrderApplication.java';
// A new file: a run revises its plan as often as the evidence asks, within the scope and the budgets.
const TOKEN_GUARD = 'order-service/src/main/java/com/acme/order/TokenGuard.java';
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code';

let root: string;
let repo: string;
const servers: ScriptedModelServer[] = [];

beforeAll(() => {
  root = tempRoot('plan-revision');
  repo = join(root, 'orders');
  makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': MIGRATION_POLICY });
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

afterAll(() => removeRoot(root));

async function run(script: ScriptedReply[], out: string, task = TASK) {
  const server = await startScriptedModelServer({ script: (_body, index) => script[index] ?? answer('done') });
  servers.push(server);
  const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: 'k', maxRetries: 0 });
  const result = await cli(['run', repo, '--task', task, '--out', join(root, out), '--json'], { model });
  return { server, result };
}

function ledger(runDir: string): any[] {
  const dir = ledgerDir(runDir, 1);
  return readdirSync(dir)
    .sort()
    .map((name) => JSON.parse(readFileSync(join(dir, name), 'utf8')));
}

/** The last tool result the model received in request `index`, without its untrusted-content frame. */
function lastResult(server: ScriptedModelServer, index: number): string {
  const content = server.requests[index].body.messages.filter((m: any) => m.role === 'tool').at(-1).content as string;
  return content.startsWith('<<<UNTRUSTED') ? content.split('\n').slice(1, -1).join('\n') : content;
}

describe('plan_revise', () => {
  it('widens the segment with a reason as often as the evidence asks, refuses a forbidden path, and the PR body shows the revisions', async () => {
    const app = mavenMultiModuleRepo()[EXTRA];
    const edited = app.replace('public static void main', 'public static void main /* guarded */');
    expect(edited).not.toBe(app);
    const script: ScriptedReply[] = [
      callTools({ name: 'file_write', arguments: { path: EXTRA, content: edited } }),
      callTools({
        name: 'plan_revise',
        arguments: { reason: 'OrderApplication starts the exchange too and must stay consistent', addFiles: [EXTRA], steps: ['guard OrderApplication'] },
      }),
      callTools({ name: 'file_write', arguments: { path: EXTRA, content: edited } }),
      callTools({ name: 'plan_revise', arguments: { reason: 'CI should run the new check', addFiles: ['.github/workflows/ci.yml'] } }),
      callTools({
        name: 'plan_revise',
        arguments: { reason: 'the API module pins the client version', addFiles: ['order-api/pom.xml'], dropFiles: [SERVICE] },
      }),
      callTools({ name: 'plan_revise', arguments: { reason: 'a new TokenGuard holds the trimming rule', addFiles: [TOKEN_GUARD] } }),
      answer('Guarded OrderApplication; CI was refused.'),
    ];
    const { server, result } = await run(script, 'state-revise');

    expect(server.problems()).toEqual([]);
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    expect(server.requests[0].body.tools.map((t: any) => t.function.name)).toContain('plan_revise');
    // Before the revision the file is outside the segment; after it, the write lands.
    expect(lastResult(server, 1)).toMatch(/^error: FILE_NOT_ALLOWED: /);
    expect(lastResult(server, 2)).toMatch(/^plan revised \(revision 1\)/);
    // The write lands and its parse is checked (the repeat of the refused call carries the loop note after the block).
    expect(lastResult(server, 3)).toContain(`wrote ${EXTRA}\nparse: ok`);
    expect(lastResult(server, 4)).toMatch(/^error: PATH_NOT_EDITABLE: \.github\/workflows\/ci\.yml cannot be added/);
    expect(lastResult(server, 5)).toMatch(/^plan revised \(revision 2\)/);
    expect(lastResult(server, 6)).toMatch(/^plan revised \(revision 3\); the files you may change are now: .*TokenGuard\.java/);

    const entries = ledger(result.json!.runDir);
    const revisions = entries.filter((e) => e.type === 'PLAN_REVISED').map((e) => e.payload);
    expect(revisions).toHaveLength(3);
    expect(revisions[0]).toMatchObject({ segment: 'model-change', revision: 1, added: [EXTRA], dropped: [], steps: ['guard OrderApplication'] });
    expect(revisions[0].before).not.toContain(EXTRA);
    expect(revisions[0].after).toEqual([...revisions[0].before, EXTRA].sort());
    expect(revisions[1]).toMatchObject({ revision: 2, added: ['order-api/pom.xml'], dropped: [SERVICE] });
    expect(revisions[1].after).not.toContain(SERVICE);
    expect(revisions[2]).toMatchObject({ revision: 3, reason: 'a new TokenGuard holds the trimming rule', added: [TOKEN_GUARD] });
    expect(entries.filter((e) => e.type === 'TOOL_REFUSED').map((e) => [e.payload.tool, e.payload.reason])).toEqual([
      ['file_write', 'FILE_NOT_ALLOWED'],
      ['plan_revise', 'PATH_NOT_EDITABLE'],
    ]);

    const candidate = JSON.parse(readFileSync(result.json!.artifacts['pr-candidate.json'], 'utf8'));
    expect(candidate.files.map((f: { path: string }) => f.path)).toEqual([EXTRA]);
    const body = readFileSync(result.json!.artifacts['pr-body.md'], 'utf8');
    expect(body).toContain('### Plan revised 3×');
    expect(body).toContain(`- a new TokenGuard holds the trimming rule (added \`${TOKEN_GUARD}\` to the plan)`);
    expect(body).toContain(`- OrderApplication starts the exchange too and must stay consistent (added \`${EXTRA}\` to the plan)`);
    expect(body).toContain(`- the API module pins the client version (added \`order-api/pom.xml\` to the plan; dropped \`${SERVICE}\` from the plan)`);
  }, 30_000);

  it('refuses a revision that would take the change past the file limit, and dropping a file already changed', async () => {
    const service = mavenMultiModuleRepo()[SERVICE];
    const edited = service.replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');
    const script: ScriptedReply[] = [
      callTools({ name: 'file_write', arguments: { path: SERVICE, content: edited } }),
      callTools({ name: 'plan_revise', arguments: { reason: 'OrderApplication too', addFiles: [EXTRA] } }),
      callTools({ name: 'plan_revise', arguments: { reason: 'not needed after all', dropFiles: [SERVICE] } }),
      callTools({ name: 'plan_revise', arguments: { reason: 'nothing' } }),
      answer('Guarded OrderService only.'),
    ];
    const task = `${TASK}\n\n\`\`\`agent\nmode: draft_pr\nbudgets: {maxFiles: 1}\n\`\`\`\n`;
    const { server, result } = await run(script, 'state-limit', task);
    expect(result.json).toMatchObject({ status: 'COMPLETED' });
    expect(lastResult(server, 2)).toMatch(/^error: FILE_LIMIT_EXCEEDED: .* would be 2, over the limit of 1 changed files/);
    expect(lastResult(server, 3)).toMatch(/^error: DROP_CHANGED_FILE: /);
    expect(lastResult(server, 4)).toMatch(/^error: EMPTY_REVISION: /);
    const entries = ledger(result.json!.runDir);
    expect(entries.filter((e) => e.type === 'PLAN_REVISED')).toEqual([]);
    expect(readFileSync(result.json!.artifacts['pr-body.md'], 'utf8')).not.toContain('Plan revised');
  }, 30_000);

  it('a crash after a revision resumes by replaying it: ledgered once, the same commit as an uninterrupted run', async () => {
    const bare = join(root, 'orders.git');
    makeMavenBare(bare);
    const app = mavenMultiModuleRepo()[EXTRA];
    const edited = app.replace('public static void main', 'public static void main /* guarded */');
    const script: ScriptedReply[] = [
      callTools({ name: 'file_write', arguments: { path: EXTRA, content: edited } }),
      callTools({ name: 'plan_revise', arguments: { reason: 'OrderApplication starts the exchange too', addFiles: [EXTRA] } }),
      callTools({ name: 'file_write', arguments: { path: EXTRA, content: edited } }),
      answer('Guarded OrderApplication.'),
    ];
    const start = async (dir: string, from: number, crashAfterExchanges?: number) => {
      const server = await startScriptedModelServer({ script: (_body, index) => script[from + index] ?? answer('done') });
      servers.push(server);
      const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: 'k', maxRetries: 0 });
      const store = new LocalArtifactStore(dir);
      const started = await startRun(store, bare, 'planrevresume1', TASK);
      let exchanges = 0;
      const crashing =
        crashAfterExchanges === undefined ? store : dyingStore(store, (_key, body) => body.includes('"MODEL_EXCHANGE"') && ++exchanges > crashAfterExchanges);
      const result = await runOnce({ store: crashing, source: bare, model, ...started }).catch((error: unknown) => error as Error);
      return { server, store, started, result, dir };
    };
    const reference = await start(join(root, 'revise-reference'), 0);
    expect(reference.result).toMatchObject({ status: 'COMPLETED' });

    const crashed = await start(join(root, 'revise-crash'), 0, 2);
    expect(crashed.result).toBeInstanceOf(Error);
    expect(ledger(join(crashed.dir, crashed.started.keys.prefix)).filter((e) => e.type === 'PLAN_REVISED')).toHaveLength(1);

    const server = await startScriptedModelServer({ script: (_body, index) => script[2 + index] ?? answer('done') });
    servers.push(server);
    const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: 'k', maxRetries: 0 });
    const resumed = await runOnce({
      store: crashed.store,
      source: bare,
      model,
      keys: crashed.started.keys,
      attempt: await loadAttempt(crashed.store, crashed.started.keys, 1),
    });
    expect(resumed).toMatchObject({ status: 'COMPLETED', headCommitSha: (reference.result as { headCommitSha: string }).headCommitSha });
    expect(server.requests).toHaveLength(2);
    expect(server.problems()).toEqual([]);
    const revisions = ledger(join(crashed.dir, crashed.started.keys.prefix)).filter((e) => e.type === 'PLAN_REVISED');
    expect(revisions.map((e) => e.payload.revision)).toEqual([1]);
  }, 60_000);
});
