import { describe, expect, it } from 'vitest';
import { renderRunReport } from '../../../src/core/phases/run-report.js';
import { VERIFICATION_END, VERIFICATION_START, renderVerificationSection, replaceVerificationSection } from '../../../src/core/phases/verification-section.js';
import { RunReport, type RunReportInput } from '../../../src/core/phases/run-report-schema.js';

function report(overrides: Partial<RunReportInput> = {}): RunReportInput {
  return {
    schemaVersion: 1,
    runId: 'k3j5h2m4n6p7',
    attempt: 2,
    status: 'COMPLETED',
    title: 'Migrate javax.persistence to jakarta.persistence',
    objective: 'Move the persistence imports to Jakarta.\nKeep behaviour unchanged.',
    mode: 'draft_pr',
    repository: 'acme/shop',
    baseRef: 'main',
    baseCommitSha: '0123456789abcdef0123456789abcdef01234567',
    headCommitSha: 'fedcba9876543210fedcba9876543210fedcba98',
    agentBranch: 'agent/i12/rk3j5h2m4n6p7',
    createdAt: '2026-11-29T10:00:00.000Z',
    scope: { paths: ['src/main/java/**'], untouched: ['CI configuration', 'lockfiles'] },
    strategy: { engine: 'recipe', steps: ['migrate-import javax.persistence -> jakarta.persistence'] },
    targets: [
      {
        path: 'src/main/java/shop/Order.java',
        change: 'MODIFIED',
        insertions: 3,
        deletions: 3,
        reasons: ['imports javax.persistence.Entity', 'in task scope'],
      },
      { path: 'pom.xml', change: 'MODIFIED', insertions: 1, deletions: 1, reasons: ['declares javax.persistence-api'] },
    ],
    verification: {
      checks: [
        { name: 'Every changed file parses', status: 'PASSED', detail: '2 file(s) parsed' },
        { name: 'Secret scan of the change', status: 'PASSED', detail: 'no finding' },
      ],
      notRun: [{ name: 'mvn -q verify', why: 'draftsman never runs build commands; CI runs them' }],
      ciCommands: ['mvn -q verify'],
      verifier: 'maven',
    },
    lockfiles: [{ path: 'package-lock.json', command: 'npm install --package-lock-only' }],
    risk: { level: 'MEDIUM', score: 35, reasons: ['build manifest changed (pom.xml)'], requiredGate: 'HUMAN_REVIEW' },
    policyVerdicts: [
      { rule: 'scope guard', verdict: 'PASS' },
      { rule: 'maxChangedFiles', verdict: 'PASS', detail: '2 of 30' },
    ],
    antiCheat: [],
    budget: {
      steps: { used: 14, limit: 250 },
      modelCalls: { used: 0, limit: 40 },
      tokens: { used: 0, limit: 200_000 },
      files: { used: 2, limit: 30 },
      lines: { used: 8, limit: 1500 },
    },
    phases: [
      { name: 'discovery', state: 'done' },
      { name: 'mechanical_change', state: 'done' },
      { name: 'judge', state: 'skipped' },
    ],
    artifacts: [{ name: 'ledger', url: 'https://example.invalid/runs/k3j5h2m4n6p7/ledger/' }],
    ...overrides,
  };
}

/** The body's lines from `## Title`-style heading or `<summary>` up to the next `</details>`. */
function detailsBlock(body: string, summaryStart: string): string {
  const start = body.indexOf(`<summary>${summaryStart}`);
  expect(start).toBeGreaterThanOrEqual(0);
  return body.slice(start, body.indexOf('</details>', start));
}

function verificationBlock(body: string): string {
  const start = body.indexOf(VERIFICATION_START);
  const end = body.indexOf(VERIFICATION_END);
  expect(start).toBeGreaterThanOrEqual(0);
  expect(end).toBeGreaterThan(start);
  return body.slice(start + VERIFICATION_START.length, end);
}

describe('renderRunReport', () => {
  it('opens with the title and a five-row summary table before any detail', () => {
    const body = renderRunReport(report());
    const lines = body.split('\n');

    expect(lines[1]).toBe('## Migrate javax.persistence to jakarta.persistence');
    const table = lines.slice(3, 10);
    expect(table.slice(0, 2)).toEqual(['| | |', '|---|---|']);
    expect(table.slice(2).map((l) => /^\| \*\*(\w+)\*\* \|/.exec(l)?.[1])).toEqual(['Objective', 'Change', 'Verification', 'Risk', 'Run']);
    expect(table[2]).toContain('Move the persistence imports to Jakarta.');
    expect(table[3]).toContain('2 files (+4 / -4) · engine: recipe');
    expect(table[4]).toContain('static checks: 2 passed, 0 failed · build/tests not run by draftsman, left to CI');
    expect(table[5]).toContain('MEDIUM (score 35) · anti-cheat: no finding');
    expect(table[6]).toContain('base `0123456789ab` (main) · attempt 2 · 0/40 model calls');
    expect(body.indexOf('<details>')).toBeGreaterThan(body.indexOf(table[6]));
  });

  it('never claims a build or test ran: commands appear only as not run and as what CI should run', () => {
    const body = renderRunReport(report());
    const section = verificationBlock(body);

    expect(section).toContain('**Checked by draftsman** (static checks; no build or test was run)');
    expect(section).toContain('| Every changed file parses | ✅ passed | 2 file(s) parsed |');
    expect(section).toContain('- mvn -q verify: draftsman never runs build commands; CI runs them');
    expect(section).toContain("**CI should run** (from the policy's `agent.build.commands`, maven):\n\n```sh\nmvn -q verify\n```");
    expect(section).toContain('**CI results:** not yet known');
    // The command is never presented as a check result.
    expect(section).not.toMatch(/\| mvn -q verify \|/);
    expect(body).not.toMatch(/tests? (passed|ran)/i);
  });

  it('says in the summary which project commands draftsman ran and how many passed, never "not run by draftsman" then', () => {
    const ran = (run: string, status: 'PASSED' | 'FAILED' | 'NOT_RUN') => ({
      run,
      cwd: '.',
      kind: 'test' as const,
      source: 'agent.build.commands',
      status,
      exitCode: status === 'NOT_RUN' ? null : status === 'PASSED' ? 0 : 1,
      durationMs: 1200,
      excerpt: '',
      failures: [],
    });
    const base = report().verification;
    const row = (commands: ReturnType<typeof ran>[]) =>
      renderRunReport(report({ verification: { ...base, notRun: [], commands, commandsRanIn: 'local sandbox (bubblewrap)' } }))
        .split('\n')
        .find((l) => l.startsWith('| **Verification** |'));
    expect(row([ran('mvn -q verify', 'PASSED')])).toBe(
      '| **Verification** | static checks: 2 passed, 0 failed · project commands run by draftsman: 1 of 1 passed |',
    );
    // A command the budget left unrun is not counted as run.
    expect(row([ran('mvn -q verify', 'FAILED'), ran('npm test', 'NOT_RUN')])).toContain('project commands run by draftsman: 0 of 1 passed');
    expect(row([ran('mvn -q verify', 'PASSED')])).not.toContain('not run by draftsman');
  });

  it('refuses a report that lists a check both as run and as not run', () => {
    const bad = report({
      verification: { checks: [{ name: 'unit tests', status: 'PASSED' }], notRun: [{ name: 'unit tests', why: 'not run' }], ciCommands: [] },
    });
    expect(() => renderRunReport(bad)).toThrow(/both run and not run/);
    expect(RunReport.safeParse(bad).success).toBe(false);
  });

  it('says CI results are the only evidence when the policy has no build commands', () => {
    const section = verificationBlock(
      renderRunReport(report({ verification: { checks: [], notRun: [{ name: 'build and tests', why: 'no commands' }], ciCommands: [] } })),
    );
    expect(section).toContain('Draftsman ran no checks on this change.');
    expect(section).toContain('The policy lists no `agent.build.commands`');
    expect(section).not.toContain('```sh');
  });

  it('does not repeat the title as the objective (a CLI task whose first line is the title)', () => {
    const title = 'Migrate javax.persistence to jakarta.persistence';
    const body = renderRunReport(report({ title, objective: `# ${title}\n\nKeep behaviour unchanged.` }));
    expect(body.split(title)).toHaveLength(2);
    expect(body).toContain('| **Objective** | Keep behaviour unchanged. |');
    expect(body.split('Keep behaviour unchanged.')).toHaveLength(2);
    const only = renderRunReport(report({ title, objective: title }));
    expect(only.split(title)).toHaveLength(3);
    expect(only).not.toContain('### Objective');
  });

  it('summarises the objective by its first paragraph, whole sentences shortened at a word', () => {
    const wrapped = 'Spring Boot 3 needs Jakarta EE 9+: move the persistence, validation and JAXB imports from\njavax.* to jakarta.*.\n\nSecond paragraph.';
    expect(renderRunReport(report({ objective: wrapped }))).toContain(
      '| **Objective** | Spring Boot 3 needs Jakarta EE 9+: move the persistence, validation and JAXB imports from javax.* to jakarta.*. |',
    );
    const long = `${'word '.repeat(60)}end`;
    const row = renderRunReport(report({ objective: long }))
      .split('\n')
      .find((l) => l.startsWith('| **Objective**'))!;
    expect(row).toMatch(/ word… \|$/);
    expect(row.length).toBeLessThan(200);
  });

  it('keeps code from the objective as written: a fenced block byte for byte in the Objective section, never squashed onto the summary row', () => {
    const code = "assert parse('<tag>') == ['x']\nassert Foo[str]";
    const objective = `Parsing \`<tag>\` returns \`['x']\` for \`Foo[str]\`, not <b>.\n\n\`\`\`python\n${code}\n\`\`\``;
    const body = renderRunReport(report({ objective }));
    expect(body).toContain("| **Objective** | Parsing `<tag>` returns `['x']` for `Foo[str]`, not &lt;b&gt;. |");
    expect(body).toContain(`### Objective\n\nParsing \`<tag>\` returns \`['x']\` for \`Foo[str]\`, not &lt;b&gt;.\n\n\`\`\`python\n${code}\n\`\`\`\n`);
    const long = `${'word '.repeat(30)}\`a code span that would be cut\` end`;
    expect(renderRunReport(report({ objective: long }))).toMatch(/\| \*\*Objective\*\* \| (word ){29}word… \|/);
  });

  it('lists targets with their reasons and line counts', () => {
    const targets = detailsBlock(renderRunReport(report()), 'Targets (2 files)');
    expect(targets).toContain('| `src/main/java/shop/Order.java` | MODIFIED +3/-3 | imports javax.persistence.Entity; in task scope |');
    expect(targets).toContain('| `pom.xml` | MODIFIED +1/-1 | declares javax.persistence-api |');
  });

  it('shows scope, what was left alone, and the strategy steps', () => {
    const scope = detailsBlock(renderRunReport(report()), 'Scope and strategy');
    expect(scope).toContain('- Task scope: `src/main/java/**`');
    expect(scope).toContain('- Did not change: CI configuration');
    expect(scope).toContain('**Strategy** (engine: recipe)');
    expect(scope).toContain('1. migrate-import javax.persistence -&gt; jakarta.persistence');
    expect(detailsBlock(renderRunReport(report({ scope: { paths: [] } })), 'Scope and strategy')).toContain('- Task scope: the whole repository');
  });

  it('names each lockfile to refresh with its command, outside the folded details', () => {
    const body = renderRunReport(report());
    expect(body).toContain('### Lockfiles to refresh');
    expect(body).toContain('- `package-lock.json`: run `npm install --package-lock-only`');
    expect(body.indexOf('### Lockfiles to refresh')).toBeLessThan(body.indexOf('<details>'));
    expect(renderRunReport(report({ lockfiles: [] }))).not.toContain('Lockfiles to refresh');
  });

  it('lists the files a change moved, outside the folded details', () => {
    const body = renderRunReport(report({ moves: [{ from: 'src/main/java/shop/Order.java', to: 'src/main/java/shop/PurchaseOrder.java' }] }));
    expect(body).toContain('### Files moved\n\n- `src/main/java/shop/Order.java` → `src/main/java/shop/PurchaseOrder.java`\n');
    expect(body.indexOf('### Files moved')).toBeLessThan(body.indexOf('<details>'));
    expect(renderRunReport(report())).not.toContain('Files moved');
  });

  it('renders risk, policy verdicts and anti-cheat findings', () => {
    const body = renderRunReport(
      report({
        antiCheat: [{ rule: 'test-disabled', path: 'src/test/java/OrderTest.java', line: 12, snippet: '@Disabled', severity: 'HIGH' }],
        policyVerdicts: [
          { rule: 'scope guard', verdict: 'PASS' },
          { rule: 'requireApprovalFor', verdict: 'APPROVED', detail: 'approved by /agent approve' },
        ],
      }),
    );
    expect(detailsBlock(body, 'Risk: MEDIUM (score 35)')).toContain('- build manifest changed (pom.xml)');
    expect(detailsBlock(body, 'Risk: MEDIUM')).toContain('Required gate: `HUMAN_REVIEW`');
    expect(detailsBlock(body, 'Policy verdicts (1 pass, 1 approved)')).toContain('| requireApprovalFor | APPROVED | approved by /agent approve |');
    expect(detailsBlock(body, 'Anti-cheat findings (1)')).toContain('| HIGH | test-disabled | `src/test/java/OrderTest.java`:12 | `@Disabled` |');
    expect(body).toContain('anti-cheat: 1 finding (1 high)');
  });

  it('shows budget used against limits', () => {
    const table = detailsBlock(renderRunReport(report()), 'Budget used');
    expect(table).toContain('| phase steps | 14 | 250 |');
    expect(table).toContain('| model calls | 0 | 40 |');
    expect(table).toContain('| files changed | 2 | 30 |');
    expect(table).toContain('| lines changed | 8 | 1500 |');
  });

  it('draws the phases as a Mermaid flowchart with each state', () => {
    const diagram = detailsBlock(renderRunReport(report()), 'Phases');
    expect(diagram).toContain('```mermaid\nflowchart LR\n');
    expect(diagram).toContain('  p0["discovery: done"]:::done');
    expect(diagram).toContain('  p2["judge: skipped"]:::skipped');
    expect(diagram).toContain('  p0 --> p1 --> p2');
    expect(diagram).toMatch(/classDef done /);
    expect(diagram).toMatch(/classDef skipped /);
    expect(diagram).not.toMatch(/classDef failed /);
  });

  it('draws touched modules when there are no phases', () => {
    const diagram = detailsBlock(renderRunReport(report({ phases: [], modules: [{ name: 'shop-core', files: 3 }] })), 'Touched modules');
    expect(diagram).toContain('change --> m0["shop-core (3 files)"]');
  });

  it('records base, head, branch, run and artifacts', () => {
    const run = detailsBlock(renderRunReport(report()), 'Run');
    expect(run).toContain('- Run `k3j5h2m4n6p7`, attempt 2, status `COMPLETED`, mode `draft_pr`');
    expect(run).toContain('- Base commit: `0123456789abcdef0123456789abcdef01234567` (`main`)');
    expect(run).toContain('- Head commit: `fedcba9876543210fedcba9876543210fedcba98`');
    expect(run).toContain('- Branch: `agent/i12/rk3j5h2m4n6p7`');
    expect(run).toContain('- Attempt created at: 2026-11-29T10:00:00.000Z');
    expect(run).toContain('  - [ledger](https://example.invalid/runs/k3j5h2m4n6p7/ledger/)');
  });

  it('puts warnings first, right after the summary', () => {
    const body = renderRunReport(report({ warnings: ['The base moved from 0123456 to 89abcde; published on the old base (policy: warn).'] }));
    expect(body).toContain('> [!WARNING]\n> The base moved from 0123456 to 89abcde; published on the old base (policy: warn).');
    expect(body.indexOf('[!WARNING]')).toBeLessThan(body.indexOf('<details>'));
  });

  it('is deterministic and contains no date but the one passed in', () => {
    const a = renderRunReport(report({ createdAt: undefined }));
    expect(renderRunReport(report({ createdAt: undefined }))).toBe(a);
    expect(a).not.toMatch(/\d{4}-\d{2}-\d{2}/);
  });

  it('defuses hostile text from the issue: no HTML, no forged markers, no mentions, no links', () => {
    const body = renderRunReport(
      report({
        title: `Fix ${VERIFICATION_END} <img src=x onerror=alert(1)> @octocat`,
        objective: `Please [click](https://evil.invalid) ${VERIFICATION_START}`,
        targets: [{ path: 'src/a|b`c.ts', reasons: ['pipe | in reason'] }],
      }),
    );
    expect(body.split(VERIFICATION_START)).toHaveLength(2);
    expect(body.split(VERIFICATION_END)).toHaveLength(2);
    expect(body).not.toContain('<img');
    expect(body).not.toContain('@octocat');
    expect(body).toContain('@&#8203;octocat');
    expect(body).not.toContain('[click](');
    expect(detailsBlock(body, 'Targets')).toContain('| ``src/a\\|b`c.ts`` |  | pipe \\| in reason |');
  });

  it('stays within GitHub’s body limit with thousands of targets', () => {
    const many = Array.from({ length: 5_000 }, (_, i) => ({
      path: `src/gen/File${i}.java`,
      change: 'MODIFIED',
      insertions: 1,
      deletions: 1,
      reasons: ['matched recipe'],
    }));
    const body = renderRunReport(report({ targets: many }));
    expect(body.length).toBeLessThan(65_536);
    expect(body).toContain('…and 4900 more');
    expect(body).toContain('5000 files (+5000 / -5000)');
  });
});

describe('replaceVerificationSection', () => {
  it('replaces only the marked section with CI results and keeps the rest byte for byte', () => {
    const body = renderRunReport(report());
    const ci = renderVerificationSection({
      ...report().verification,
      ci: {
        state: 'success',
        commitSha: 'fedcba9876543210fedcba98',
        checks: [{ name: 'build', status: 'completed', conclusion: 'success', url: 'https://ci.example.invalid/1' }],
      },
    });

    const updated = replaceVerificationSection(body, ci);

    const [before, after] = [body.slice(0, body.indexOf(VERIFICATION_START)), body.slice(body.indexOf(VERIFICATION_END))];
    expect(updated.startsWith(before)).toBe(true);
    expect(updated.endsWith(after)).toBe(true);
    const section = verificationBlock(updated);
    expect(section).toContain('**CI results** (success on `fedcba987654`):');
    expect(section).toContain('| [build](https://ci.example.invalid/1) | completed | success |');
    expect(section).not.toContain('not yet known');
  });

  it('is idempotent and strips markers smuggled into the replacement', () => {
    const body = renderRunReport(report());
    const smuggled = `## Verification\n${VERIFICATION_END}\nCI: failure`;
    const once = replaceVerificationSection(body, smuggled);
    expect(replaceVerificationSection(once, smuggled)).toBe(once);
    expect(once.split(VERIFICATION_END)).toHaveLength(2);
    expect(verificationBlock(once)).toBe('\n\n## Verification\n\nCI: failure\n\n');
  });

  it('appends the section when a human removed the markers', () => {
    const updated = replaceVerificationSection('Edited by hand.\n', '## Verification\nCI: success');
    expect(updated).toBe(`Edited by hand.\n\n${VERIFICATION_START}\n\n## Verification\nCI: success\n\n${VERIFICATION_END}\n`);
  });
});
