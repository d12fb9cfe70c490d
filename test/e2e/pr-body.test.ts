import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_POLICY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';
import { pythonPackageRepo } from '../fixtures/realistic-repos.js';
import { answer, callTools } from '../helpers/scripted-model-server.js';

/**
 * The draft PR body a reviewer gets from a model run, through the whole App: a Python bug report
 * quoting code, a model that revises its plan, fixes one file and says what it did not check.
 */

const ISSUE = 1;
const INVOICE = 'src/acme_billing/invoice.py';
const EXTRA = 'src/acme_billing/__main__.py';
const SNIPPET = "total(None)  # <tag> ['x'] Foo[str]";
const ISSUE_BODY = ["Calling `total(None)` raises TypeError in invoice.py; `['x']` and `Foo[str]` too, see <tag>.", '', '```python', SNIPPET, '```', ''].join(
  '\n',
);

const ACCOUNT = [
  'Made `total` accept `None` in invoice.py (<b>bold</b>, cc @octocat).',
  '',
  '```python',
  'assert total(None) == 0  # <tag>',
  '```',
  '',
  'I did not run the tests.',
].join('\n');

describe('the PR body of a model run end to end', () => {
  let h: AppHarness;
  let body: string;

  beforeAll(async () => {
    const files: Record<string, string> = { ...pythonPackageRepo(), '.agent-policy.yaml': DEFAULT_POLICY };
    const replies = [
      callTools({ name: 'plan_revise', arguments: { reason: 'the entry point calls `total`', addFiles: [EXTRA] } }),
      callTools({ name: 'file_write', arguments: { path: INVOICE, content: 'def total(lines):\n    return sum(lines or [])\n' } }),
    ];
    h = await startAppHarness({
      files,
      model: { script: (_body, index) => replies[index] ?? answer(ACCOUNT) },
    });
    h.standin.setIssue(h.fullName, ISSUE, { title: 'total() fails on None', body: ISSUE_BODY });
    expect((await h.deliver('issues', h.payloads.labeled(ISSUE))).statusCode).toBe(202);
    await h.drain();
    const pulls = [...h.standin.repo(h.fullName).pulls.values()];
    expect(pulls).toHaveLength(1);
    body = pulls[0].body ?? '';
  }, 90_000);

  afterAll(async () => h?.stop());

  it('keeps code from the issue as written, says "added to the plan" and counts from the final plan', () => {
    expect(h.model!.problems()).toEqual([]);
    expect(body).toContain("| **Objective** | Calling `total(None)` raises TypeError in invoice.py; `['x']` and `Foo[str]` too, see &lt;tag&gt;. |");
    expect(body).toContain(`\`\`\`python\n${SNIPPET}\n\`\`\`\n`);
    expect(body).toContain(`The model added \`${EXTRA}\` to the plan.`);
    expect(body).not.toMatch(/The model added `[^`]+`\./);
    expect(body).toMatch(/1\. the model changed 1 file \(4 files in the plan as revised 1×\)/);
  });

  it("shows the model's account under What changed and why, framed and defused, and its caveat under Risk", () => {
    expect(body).toContain(
      [
        '### What changed and why',
        '',
        "In the model's own words (its final answer, not checked by draftsman: the diff, the checks and CI below say what ran):",
        '',
        '> Made `total` accept `None` in invoice.py (&lt;b&gt;bold&lt;/b&gt;, cc @&#8203;octocat).',
        '>',
        '> ```python',
        '> assert total(None) == 0  # <tag>',
        '> ```',
        '>',
        '> I did not run the tests.',
      ].join('\n'),
    );
    expect(body).not.toContain('MODEL_FINISHED');
    const risk = body.slice(body.indexOf('<summary>Risk:'));
    expect(risk.slice(0, risk.indexOf('</details>'))).toContain(
      "**The model's caveats** (what it says it did not verify or could not do, in its words):\n\n- I did not run the tests.",
    );
  });

  it('shows only warnings a reviewer weighs, and how to run the tests of the module the change touched', () => {
    expect(body).not.toContain('classpath is not resolved');
    expect(body).not.toMatch(/SELECTION_CAPPED|SYMBOL_RESOLUTION_PARTIAL|the selected files/);
    expect(body).toMatch(/### Run the tests of the change\n\nFrom the repository map, for the module the change touched:\n\n```sh\npython -m pytest -q\n```\n/);
  });
});
