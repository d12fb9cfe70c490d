import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, MIGRATION_CHANGED_FILES, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { parentsOf } from '../helpers/push-commit.js';
import { answer, callTools } from '../helpers/scripted-model-server.js';

/**
 * A plain failing test, reported by GitHub Actions with no annotation: the CI repair reads the
 * failed job's log (actions:read; GitHub answers 302 to a download URL), keeps a bounded excerpt
 * around the failure with secrets scrubbed, and the model gets it framed as untrusted CI output
 * and repairs the branch.
 */

const ISSUE = 2;
const SERVICE = MIGRATION_CHANGED_FILES[1];
const FIX = '// Trims the code before the exchange.';
// GitHub-token shaped, assembled at run time so no token-like literal sits in the source.
const PLANTED = ['gh', 'p_'].join('') + 'Q7z'.repeat(12);
const FAILING_LINE = 'OrderServiceTest > rejectsBlankCode() FAILED: expected <400> but was <500>';
const EARLY_LINE = 'Downloading https://repo.maven.apache.org/maven2/early-dependency-0001.pom';
const policy = DEFAULT_POLICY.replace('  maxChangedFiles: 20\n', '  maxChangedFiles: 20\n  ciRepair:\n    maxAttempts: 1\n');

/** An Actions job log as GitHub serves it: timestamped lines, a long download preamble, the test failure, the step's error marker. */
function jobLog(): string {
  const at = (n: number) => `2026-02-03T04:${String(10 + Math.floor(n / 60)).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}.0000000Z`;
  const lines = [EARLY_LINE];
  for (let i = 2; i <= 400; i++) lines.push(`Downloading https://repo.maven.apache.org/maven2/dependency-${String(i).padStart(4, '0')}.pom`);
  lines.push(`export RELEASE_TOKEN=${PLANTED}`, '[INFO] Running com.acme.order.OrderServiceTest', FAILING_LINE, '[INFO] BUILD FAILURE');
  lines.push('##[error]Process completed with exit code 1.', 'Post job cleanup.');
  return lines.map((l, i) => `${at(i)} ${l}`).join('\n');
}

describe('ci repair reads the failed job log', () => {
  let h: AppHarness;
  let edit = '';

  beforeAll(async () => {
    h = await startAppHarness({
      policy,
      model: {
        script: (body) =>
          body.messages.at(-1)?.role === 'tool' ? answer('Trimmed the code.') : callTools({ name: 'file_write', arguments: { path: SERVICE, content: edit } }),
      },
    });
  }, 60_000);

  afterAll(async () => h?.stop());

  it('a failing test with no annotation reaches the model with a scrubbed, bounded log excerpt, and the repair commits on top', async () => {
    await h.deliver('issues', h.payloads.labeled(ISSUE));
    await h.drain();
    const latest = await h.json(`issues/acme/orders/${ISSUE}/latest.json`);
    const prefix = `runs/acme/orders/${latest.runId}/`;
    const { branch, publishedCommitSha: head } = await h.json(`${prefix}publish.json`);
    expect(h.model!.requests).toHaveLength(0);
    edit = (await h.standin.readFile(h.fullName, branch, SERVICE))!.toString().replace(/^public class /m, `${FIX}\npublic class `);

    const suite = h.standin.addCheckSuite(h.fullName, {
      headSha: head,
      headBranch: branch,
      conclusion: 'failure',
      runs: [{ name: 'test', conclusion: 'failure', output: { title: 'test failed' }, log: jobLog() }],
    });
    await h.deliver('check_suite', h.payloads.checkSuiteCompleted({ id: suite.id, headSha: head, headBranch: branch, conclusion: 'failure' }));
    const failure = (await h.json(`${prefix}attempts/2/request.json`)).followUp.ciFailures.failures[0];
    expect(failure.annotations).toEqual([]);
    expect(failure.log).toContain(FAILING_LINE);
    expect(failure.log).toContain('##[error]Process completed with exit code 1.');
    expect(failure.log).not.toContain(EARLY_LINE);
    expect(failure.log).not.toMatch(/2026-02-03T/);
    expect(failure.log).not.toContain(PLANTED);
    const logCalls = h.standin.calls.filter((c) => c.operationId === 'actions/download-job-logs-for-workflow-run');
    expect(logCalls.map((c) => c.status)).toEqual([302]);
    expect(logCalls[0].tokenPermissions).toMatchObject({ actions: 'read' });

    await h.drain();
    expect(h.model!.problems()).toEqual([]);
    expect(h.model!.requests.length).toBeGreaterThanOrEqual(2);
    const prompt = JSON.parse(h.model!.requests[0].raw)
      .messages.map((m: { content: string }) => m.content)
      .join('\n');
    const framed = prompt.slice(prompt.indexOf('<<<UNTRUSTED CI failures'));
    expect(framed).toContain('Log of the failed job (excerpt)');
    expect(framed).toContain(FAILING_LINE);
    for (const r of h.model!.requests) expect(r.raw).not.toContain(PLANTED);

    const repaired = (await h.standin.resolve(h.fullName, branch))!;
    expect(parentsOf(h, repaired)).toEqual([head]);
    expect((await h.standin.readFile(h.fullName, branch, SERVICE))!.toString()).toContain(FIX);
    expect(
      h
        .comments((await h.json(`${prefix}publish.json`)).prNumber)
        .map((c) => c.body)
        .join('\n'),
    ).not.toContain('nothing more was changed');
  }, 120_000);
});
