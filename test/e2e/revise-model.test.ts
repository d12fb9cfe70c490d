import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATION_CHANGED_FILES, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { parentsOf } from '../helpers/push-commit.js';
import { answer, callTools } from '../helpers/scripted-model-server.js';

/**
 * A free-text `/agent revise` on a pull request recipes made: with a model configured it is a
 * model task on top of the branch, whose targets are the PR's changed files (the instructions
 * name none of them); without a model the PR is told so, with the `agent` block form.
 */

const ISSUE = 1;
const SERVICE = MIGRATION_CHANGED_FILES[1];
const JAVADOC = '/** Persists orders through Jakarta Persistence. */';
const INSTRUCTIONS = 'Add a one-line Javadoc to the order service class saying it now uses Jakarta Persistence.';

async function publishedRecipePr(h: AppHarness) {
  await h.deliver('issues', h.payloads.labeled(ISSUE));
  await h.drain();
  const latest = await h.json(`issues/acme/orders/${ISSUE}/latest.json`);
  const prefix = `runs/acme/orders/${latest.runId}/`;
  const published = await h.json(`${prefix}publish.json`);
  return { prefix, branch: published.branch as string, prNumber: published.prNumber as number, head: published.publishedCommitSha as string };
}

describe('revise with a model: free text on a recipe-made pull request', () => {
  let h: AppHarness;
  let pr: Awaited<ReturnType<typeof publishedRecipePr>>;
  let edited = '';

  beforeAll(async () => {
    h = await startAppHarness({
      model: {
        // Write the service once, then finish: the last message is a tool result after the write.
        script: (body) =>
          body.messages.at(-1)?.role === 'tool'
            ? answer('Added a Javadoc line to OrderService.')
            : callTools({ name: 'file_write', arguments: { path: SERVICE, content: edited } }),
      },
    });
    pr = await publishedRecipePr(h);
  }, 90_000);

  afterAll(async () => h?.stop());

  it('the recipe PR reached no model; the free-text revise is one model task and one commit on top', async () => {
    expect(h.model!.requests).toHaveLength(0);
    const service = (await h.standin.readFile(h.fullName, pr.branch, SERVICE))!.toString();
    edited = service.replace(/^public class /m, `${JAVADOC}\npublic class `);
    expect(edited).not.toBe(service);

    await h.deliver('issue_comment', h.payloads.prComment(pr.prNumber, `/agent revise ${INSTRUCTIONS}`, { commentId: 93_001 }));
    await h.drain();

    expect(h.model!.problems()).toEqual([]);
    expect(h.model!.requests.length).toBeGreaterThanOrEqual(2);
    const first = JSON.parse(h.model!.requests[0].raw);
    const prompt = first.messages.map((m: { content: string }) => m.content).join('\n');
    expect(prompt).toContain(INSTRUCTIONS);
    // The PR's changed files are named to the model (and to discovery) although the instructions name none of them.
    const named = prompt.split('\n').find((l: string) => l.startsWith('Files this pull request changes: '));
    expect(named).toBeDefined();
    for (const path of MIGRATION_CHANGED_FILES) expect(named).toContain(`\`${path}\``);
    const targets = (await h.json(`${pr.prefix}attempts/2/target-selection.json`)) as { selectedFiles: { path: string; reasons: string[] }[] };
    expect(targets.selectedFiles.find((f) => f.path === SERVICE)?.reasons.join(' ')).toContain('named in the task');

    const published = await h.json(`${pr.prefix}publish.json`);
    expect(published).toMatchObject({ attempt: 2, prNumber: pr.prNumber });
    const head = (await h.standin.resolve(h.fullName, pr.branch))!;
    expect(head).toBe(published.publishedCommitSha);
    expect(parentsOf(h, head)).toEqual([pr.head]);
    expect((await h.standin.readFile(h.fullName, pr.branch, SERVICE))!.toString()).toContain(JAVADOC);
    // The comment is quoted in the commit message.
    const message = (await h.standin.repo(h.fullName).git.readCommit(head))!.message;
    expect(message).toContain(`> ${INSTRUCTIONS}`);
    expect(
      h
        .comments(pr.prNumber)
        .map((c) => c.body)
        .join('\n'),
    ).not.toContain('changed nothing');
  }, 90_000);
});

describe('revise without a model: free text says what is needed', () => {
  let h: AppHarness;

  beforeAll(async () => {
    h = await startAppHarness();
  }, 60_000);

  afterAll(async () => h?.stop());

  it('the PR is told that free text needs a model, with an agent block example; nothing is committed', async () => {
    const pr = await publishedRecipePr(h);
    await h.deliver('issue_comment', h.payloads.prComment(pr.prNumber, `/agent revise ${INSTRUCTIONS}`, { commentId: 93_002 }));
    await h.drain();
    expect(await h.standin.resolve(h.fullName, pr.branch)).toBe(pr.head);
    const note = h.comments(pr.prNumber).at(-1)!.body;
    expect(note).toContain('no model is configured');
    expect(note).toContain('```agent');
    expect(note).toContain('recipe:');
    expect(note).not.toContain('changed nothing');
    expect(await h.json(`${pr.prefix}run.json`)).toMatchObject({ attempt: 2, reason: 'REVISION_NEEDS_MODEL' });
  }, 90_000);
});
