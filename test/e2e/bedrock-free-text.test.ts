import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { HARNESS_BEDROCK_MODEL, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { answer, callTools, type ScriptedReply } from '../helpers/scripted-model-server.js';

/**
 * A free-text issue (no recipe block) labelled `agent:run` goes through the App with the worker's
 * model on Amazon Bedrock: the worker builds it with the same factory the Lambda handler uses,
 * signs with the (fixed, fake) role credentials, and talks Converse over HTTP/2 to the loopback
 * Bedrock runtime, which rejects any request that is not well formed. The draft PR's diff is the
 * model's edit and nothing else.
 */
const ISSUE = 3;
const SERVICE = 'order-service/src/main/java/com/acme/order/OrderService.java';
const ORIGINAL = mavenMultiModuleRepo()[SERVICE];
const EDITED = ORIGINAL.replace('legacyAuthClient.exchangeToken(code)', 'legacyAuthClient.exchangeToken(code.trim())');
const TASK =
  'OrderService passes the authorization code to LegacyAuthClient.exchangeToken untrimmed; codes pasted with a trailing newline fail. Trim it first.';

describe('a free-text issue becomes a draft PR with the model on Bedrock', () => {
  let h: AppHarness;
  let runPrefix: string;
  let candidate: any;

  beforeAll(async () => {
    expect(EDITED).not.toBe(ORIGINAL);
    const script: ScriptedReply[] = [
      callTools({ name: 'file_read', arguments: { path: SERVICE } }),
      callTools({ name: 'file_write', arguments: { path: SERVICE, content: EDITED } }),
      callTools({ name: 'git_diff', arguments: {} }),
      answer('Trimmed the code before exchanging it.'),
    ];
    h = await startAppHarness({ modelProvider: 'bedrock', model: { script: (_chat, index) => script[index] ?? answer('done') } });
    h.standin.setIssue(h.fullName, ISSUE, { title: 'Login fails when the code has a trailing newline', body: TASK });
    expect((await h.deliver('issues', h.payloads.labeled(ISSUE))).statusCode).toBe(202);
    await h.drain();
    const latest = await h.json(`issues/acme/orders/${ISSUE}/latest.json`);
    runPrefix = `runs/acme/orders/${latest.runId}/`;
    candidate = await h.json(`${runPrefix}candidate/pr-candidate.json`);
  }, 60_000);

  afterAll(async () => h?.stop());

  it('every request the worker sent was well-formed Converse, signed, for the configured model', () => {
    const bedrock = h.bedrock!;
    expect(bedrock.problems()).toEqual([]);
    expect(bedrock.requests.length).toBe(4);
    for (const r of bedrock.requests) {
      expect(r.url).toBe(`/model/${encodeURIComponent(HARNESS_BEDROCK_MODEL)}/converse`);
      expect(String(r.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDLOOPBACKTEST0001\/\d{8}\/us-east-1\/bedrock\/aws4_request, /);
    }
    const first = bedrock.requests[0].body;
    expect(first.system.map((b: any) => b.text).join('\n')).toContain('Only these files may change');
    // The issue's free text reaches the model in the first user turn.
    expect(first.messages[0].role).toBe('user');
    expect(JSON.stringify(first.messages[0].content)).toContain('trailing newline');
    const specs = first.toolConfig.tools.filter((t: any) => t.toolSpec);
    expect(specs.map((t: any) => t.toolSpec.name)).toEqual(expect.arrayContaining(['file_read', 'file_write']));
    for (const t of specs) expect(t.toolSpec.inputSchema.json.type).toBe('object');
    // A Claude model: the tool definitions end with a cache point (the stable prefix).
    expect(first.toolConfig.tools.at(-1)).toEqual({ cachePoint: { type: 'default' } });
    // The file the model asked for came back as a toolResult in the next user turn.
    const second = bedrock.requests[1].body;
    const results = second.messages.at(-1).content.filter((b: any) => b.toolResult);
    expect(results).toHaveLength(1);
    expect(results[0].toolResult.content[0].text).toContain('legacyAuthClient.exchangeToken(code)');
  });

  it('the draft PR changes exactly the file the model wrote, with the model’s content', async () => {
    const pulls = [...h.standin.repo(h.fullName).pulls.values()];
    expect(pulls).toHaveLength(1);
    expect(pulls[0]).toMatchObject({ draft: true, state: 'open', base: 'main' });
    expect(candidate.files.map((f: { path: string }) => f.path)).toEqual([SERVICE]);
    const gitdir = join(h.standin.gitRoot, 'acme', 'orders.git');
    const diff = execFileSync('git', ['--git-dir', gitdir, 'diff', '--name-only', candidate.baseCommitSha, `refs/heads/${pulls[0].head}`], {
      encoding: 'utf8',
    });
    expect(diff.trim().split('\n')).toEqual([SERVICE]);
    expect((await h.standin.readFile(h.fullName, `refs/heads/${pulls[0].head}`, SERVICE))?.toString('utf8')).toBe(EDITED);
  });

  it('no secret reached the model, the logs, S3 or GitHub', async () => {
    expect(await h.leaks()).toEqual([]);
  });
});
