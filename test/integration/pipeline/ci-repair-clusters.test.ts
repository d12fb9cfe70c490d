import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiChatProvider } from '../../../src/app/model/openai-chat-provider.js';
import { beginAttempt } from '../../../src/core/runs/attempts.js';
import type { FollowUp } from '../../../src/core/runs/follow-up.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { answer, callTools, startScriptedModelServer, type ScriptedModelServer, type ScriptedReply } from '../../helpers/scripted-model-server.js';
import { FIXED_NOW, LocalArtifactStore, makeMavenBare, removeRoot, runOnce, startRun, tempRoot } from './pipeline-harness.js';

/**
 * A CI repair follow-up whose failing check carries annotations: the annotated files the policy
 * lets the agent edit become repair clusters of the plan, and the repair phase gives the model a
 * segment whose files are exactly those; a workflow and a missing file are left out, and a write
 * outside the cluster is refused.
 */
const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const APP = 'order-service/src/main/java/com/acme/order/OrderApplication.java';
const JOB = 'order-service/src/main/java/com/acme/order/ReportJob.java';
const TASK = 'Guard the LegacyAuthClient.exchangeToken call in OrderService against surrounding whitespace in the code';

let root: string;
let bare: string;
let head: string;
const servers: ScriptedModelServer[] = [];

beforeAll(() => {
  root = tempRoot('ci-clusters');
  bare = join(root, 'orders.git');
  head = makeMavenBare(bare);
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

afterAll(() => removeRoot(root));

function followUp(): FollowUp {
  return {
    kind: 'ci-repair',
    sender: 'github-actions',
    source: `repair-${head}`,
    instructions: '',
    reviewComments: [],
    ciFailures: {
      headSha: head,
      truncated: false,
      failures: [
        {
          kind: 'check_run',
          name: 'build',
          conclusion: 'failure',
          annotations: [
            { path: APP, startLine: 8, endLine: 8, level: 'failure', message: 'cannot find symbol: guard' },
            { path: '.github/workflows/ci.yml', startLine: 1, endLine: 1, level: 'failure', message: 'step failed' },
            { path: 'order-service/src/main/java/com/acme/order/Gone.java', startLine: 1, endLine: 1, level: 'failure', message: 'missing' },
          ],
        },
      ],
    },
    onto: { branch: 'main', headSha: head, baseBranch: 'main', pullRequest: 7 },
  };
}

/** The phase a request belongs to, from the system prompt the engine writes. */
function phaseOf(body: any): string {
  return /Phase: (\S+)/.exec(body.messages[0].content)?.[1] ?? '';
}

describe('CI failures as repair clusters', () => {
  it('the repair phase works on the annotated files only; the plan records the clusters and what it left out', async () => {
    const files = mavenMultiModuleRepo();
    const service = files[SERVICE].replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');
    const app = files[APP].replace('SpringApplication.run(OrderApplication.class, args);', 'SpringApplication.run(OrderApplication.class, args); // guarded');
    const turns = new Map<string, number>();
    const scripts: Record<string, ScriptedReply[]> = {
      mechanical_change: [callTools({ name: 'file_write', arguments: { path: SERVICE, content: service } }), answer('Guarded OrderService.')],
      local_repair: [
        callTools({ name: 'file_write', arguments: { path: JOB, content: files[JOB].replace('trim()', 'strip()') } }),
        callTools({ name: 'file_write', arguments: { path: APP, content: app } }),
        answer('Fixed the symbol CI reported in OrderApplication.'),
      ],
    };
    const server = await startScriptedModelServer({
      script: (body) => {
        const phase = phaseOf(body);
        const n = turns.get(phase) ?? 0;
        turns.set(phase, n + 1);
        return scripts[phase]?.[n] ?? answer('done');
      },
    });
    servers.push(server);
    const model = new OpenAiChatProvider({ baseUrl: server.baseUrl, model: 'scripted-1', apiKey: 'k', maxRetries: 0 });

    const store = new LocalArtifactStore(join(root, 'state'));
    const run = await startRun(store, bare, 'cirepair0001', TASK);
    const attempt = await beginAttempt(store, run.keys, run.attempt.request, {
      reason: 'ci-repair',
      followUp: followUp(),
      approvedGates: [],
      createdAt: new Date(FIXED_NOW).toISOString(),
    });
    expect(attempt.attempt).toBe(2);
    const result = await runOnce({ store, source: bare, keys: run.keys, attempt, model });

    expect(server.problems()).toEqual([]);
    expect(result.status).toBe('COMPLETED');
    const ledger = await readAll(store, run.keys.attempt(2).ledgerPrefix);
    const planned = ledger.find((e) => e.type === 'PLAN_MADE');
    expect(planned.payload.repairs).toEqual([{ id: 'ci:order-service', files: 1 }]);
    // The planning checkpoint keeps the clusters (the repair phase and a resumed attempt read them) and what was left out.
    const planning = (await readAll(store, run.keys.attempt(2).checkpointsPrefix)).find((c) => c.phase === 'planning');
    expect(planning.output.repairs).toEqual([
      {
        id: 'ci:order-service',
        module: 'order-service',
        checks: ['build'],
        files: [{ path: APP, problems: [{ line: 8, message: 'cannot find symbol: guard', check: 'build' }] }],
      },
    ]);
    expect(planning.decisions.join('\n')).toMatch(
      /\.github\/workflows\/ci\.yml \(workflow files cannot be changed.*Gone\.java \(not a file of the repository\)/,
    );

    // The repair segment: the write outside the cluster is refused, the annotated file is written.
    const repairRequests = server.requests.filter((r) => phaseOf(r.body) === 'local_repair');
    expect(repairRequests).toHaveLength(3);
    const lastTool = (i: number) => repairRequests[i].body.messages.filter((m: any) => m.role === 'tool').at(-1).content as string;
    expect(lastTool(1)).toMatch(/^error: FILE_NOT_ALLOWED: /);
    expect(lastTool(2)).toContain(`wrote ${APP}`);
    // The CI failures reached the model as untrusted data in its objective.
    expect(repairRequests[0].body.messages[1].content).toContain('cannot find symbol: guard');

    const refused = ledger.filter((e) => e.type === 'TOOL_REFUSED').map((e) => [e.phase, e.payload.tool, e.payload.reason]);
    expect(refused).toEqual([['local_repair', 'file_write', 'FILE_NOT_ALLOWED']]);
    const candidate = JSON.parse(new TextDecoder().decode((await store.get(run.keys.candidate.prCandidate))!.body));
    expect(candidate.files.map((f: { path: string }) => f.path).sort()).toEqual([APP, SERVICE].sort());
  }, 60_000);
});

/** Every JSON object under `prefix`, in key order. */
async function readAll(store: LocalArtifactStore, prefix: string): Promise<any[]> {
  const out: any[] = [];
  for (const key of (await store.list(prefix)).sort()) out.push(JSON.parse(new TextDecoder().decode((await store.get(key))!.body)));
  return out;
}
