import { describe, expect, it } from 'vitest';
import { buildRunReport } from '../../../src/core/pipeline/build-run-report.js';
import type { PipelineEnv } from '../../../src/core/pipeline/pipeline-env.js';
import { Checkpoint } from '../../../src/core/phases/orchestrator.js';
import { PHASE_NAMES, type PhaseName } from '../../../src/core/phases/phase-contracts.js';
import { renderRunReport } from '../../../src/core/phases/run-report.js';
import { defaultPolicy } from '../../../src/core/policy/agent-policy.js';
import { parseTask } from '../../../src/core/task/parse-task.js';

// A body read as a reviewer reads it, built from real-shaped phase outputs rather than a hand-made report.

const BASE = '0123456789abcdef0123456789abcdef01234567';
const HEAD = 'fedcba9876543210fedcba9876543210fedcba98';
const javaFiles = Array.from({ length: 14 }, (_, i) => `services/order/src/main/java/acme/Entity${String(i).padStart(2, '0')}.java`);

const TASK_BODY = [
  'Move the persistence imports to Jakarta and bump the API artifacts.',
  '',
  '```agent',
  'steps:',
  '  - recipe: bump-dependency',
  '    package: jakarta.persistence:jakarta.persistence-api',
  '    from: 3.0.0',
  '    to: 3.1.0',
  '  - recipe: bump-dependency',
  '    package: jakarta.validation:jakarta.validation-api',
  '    to: 3.0.2',
  '  - recipe: migrate-import',
  '    from: javax.persistence',
  '    to: jakarta.persistence',
  '  - recipe: rename-symbol',
  '    from: total',
  '    to: sum',
  '    kind: field',
  '  - recipe: replace',
  '    find: "<javax>"',
  '    replace: "<jakarta>"',
  '    paths: [docs]',
  '```',
].join('\n');

const task = parseTask({ title: 'Migrate order-service to Jakarta Persistence', body: TASK_BODY, source: 'github' });

const env = {
  request: { runId: 'k3j5h2m4n6p7', issue: { number: 13, title: task.title, body: TASK_BODY, updatedAt: '2026-11-29T10:00:00Z' } },
  policy: defaultPolicy(),
  attempt: 1,
  owner: 'acme',
  repo: 'shop',
  baseRef: 'main',
  agentBranch: 'agent/i13/rk3j5h2m4n6p7',
  createdAt: '2026-11-29T10:00:00.000Z',
} as unknown as PipelineEnv;

const segments = task.steps.map((step, i) => ({ id: `step-${i + 1}-${step.recipe}`, engine: 'recipe' as const, step, paths: [] as string[] }));

function outputs(overrides: Partial<Record<PhaseName, unknown>> = {}): Partial<Record<PhaseName, unknown>> {
  const files = [...javaFiles, 'services/order/pom.xml'];
  return {
    intake: task,
    discovery: {
      mapKey: 'm',
      mapCacheHit: false,
      targets: [],
      excluded: 0,
      warnings: [],
      strategy: 'recipe',
      owners: [],
      modules: [{ path: 'services/order', name: 'com.acme:order-service', buildSystem: 'maven' }],
    },
    planning: { strategy: 'recipe', reason: '5 deterministic recipe step(s); no model is asked', segments },
    mechanical_change: {
      segments: segments.map((s, i) => ({
        id: s.id,
        engine: 'recipe',
        changedFiles: i === 0 ? [{ path: 'services/order/pom.xml', edits: 1 }] : i === 2 ? javaFiles.map((path) => ({ path, edits: 1 })) : [],
        skipped: [],
        notes:
          i === 4
            ? ['CHANGELOG.md: 3 occurrences left (history)']
            : i === 2
              ? ['add `jakarta.persistence-api` to services/order/pom.xml', 'CHANGELOG.md: 3 occurrences left (history)']
              : [],
        lockfilesToRefresh: [],
      })),
    },
    regression_verification: {
      report: {
        status: 'PASSED',
        checks: [{ name: 'Secret scan of the change', status: 'PASSED', detail: 'no finding' }],
        notRun: [{ name: 'mvn -q verify', why: 'draftsman never runs build commands' }],
      },
      cheats: [],
      secretFindings: [],
    },
    diff_boundary_review: {
      diffSummary: {
        baseCommitSha: BASE,
        headSha: HEAD,
        filesChanged: files.length,
        insertions: 15,
        deletions: 15,
        files: files.map((path) => ({ path, kind: 'MODIFIED', insertions: 1, deletions: 1, risk: 'LOW', reason: 'x', generated: false, binary: false })),
        warnings: [],
      },
      risk: {
        riskScore: 17,
        riskLevel: 'HIGH',
        reasons: [...javaFiles.map((p) => `production source file: ${p}`), 'dependency manifest: services/order/pom.xml'],
        requiredGate: 'HUMAN_APPROVAL_BEFORE_PR',
      },
      scope: {
        status: 'PASS',
        gateId: 'gate-0123456789abcdef',
        violations: [{ rule: 'HIGH_RISK', message: `risk is HIGH: ${javaFiles.map((p) => `production source file: ${p}`).join('; ')}` }],
      },
    },
    ...overrides,
  };
}

/** One checkpoint per phase, each with the steps it used. */
const checkpoints = PHASE_NAMES.slice(0, 9).map((phase, seq) =>
  Checkpoint.parse({
    schemaVersion: 1,
    runId: 'k3j5h2m4n6p7',
    attempt: 1,
    seq,
    phase,
    baseCommitSha: BASE,
    diffHash: 'h',
    summary: '',
    evidenceRefs: [],
    decisions: [],
    risks: [],
    nextPhase: null,
    patches: [],
    output: null,
    stepsUsed: 2,
    completedAt: '2026-11-29T10:00:00.000Z',
  }),
);

function body(o = outputs()): string {
  return renderRunReport(
    buildRunReport(env, task, o, checkpoints, { status: 'COMPLETED', headCommitSha: HEAD, artifacts: [], current: 'pr_preparation', currentSteps: 3 }),
  );
}

function section(text: string, summary: string): string {
  const start = text.indexOf(`<summary>${summary}`);
  expect(start).toBeGreaterThanOrEqual(0);
  return text.slice(start, text.indexOf('</details>', start));
}

describe('the PR body of a five-step recipe run', () => {
  it("does not show the pipeline's own phase steps, which a reader takes for the task's five steps", () => {
    const table = section(body(), 'Budget used');
    expect(table).not.toMatch(/\| (phase )?steps \|/);
    expect(table).toContain('| files changed |');
  });

  it('has no model rows and no model calls in the summary when no model ran', () => {
    const text = body();
    expect(text).not.toMatch(/model calls|tokens/);
  });

  it('says lockfiles were left alone only when some are listed', () => {
    const scope = section(body(), 'Scope and strategy');
    expect(scope).not.toMatch(/lockfile/i);
    expect(scope).toContain('- Did not change: paths the policy forbids: `.github/workflows/**`');
    const withLock = outputs();
    const change = withLock.mechanical_change as { segments: { lockfilesToRefresh: unknown[] }[] };
    change.segments[0].lockfilesToRefresh = [{ lockfile: 'package-lock.json', command: 'npm install --package-lock-only' }];
    change.segments[1].lockfilesToRefresh = [{ lockfile: 'package-lock.json', command: 'npm install --package-lock-only' }];
    const text = body(withLock);
    expect(section(text, 'Scope and strategy')).toContain('- Did not change: 1 lockfile (listed under Lockfiles to refresh, with the command)');
    expect(text.match(/- `package-lock.json`: run/g)).toHaveLength(1);
  });

  it('asks for no lockfile refresh when the change in the end edits no file', () => {
    const o = outputs();
    const change = o.mechanical_change as { segments: { lockfilesToRefresh: unknown[] }[] };
    change.segments[0].lockfilesToRefresh = [{ lockfile: 'package-lock.json', command: 'npm install --package-lock-only' }];
    (o.discovery as { warnings: unknown[] }).warnings = [
      { code: 'LOCKFILE_NEEDS_REFRESH', message: 'package-lock.json must be refreshed with npm install --package-lock-only', data: {} },
    ];
    const review = o.diff_boundary_review as { diffSummary: { filesChanged: number; files: unknown[] } };
    review.diffSummary = { ...review.diffSummary, filesChanged: 0, files: [] };
    const text = body(o);
    expect(text).not.toMatch(/lockfile/i);
  });

  it('prints an objective that the summary row shows whole only there', () => {
    const text = body();
    expect(text.match(/Move the persistence imports to Jakarta/g)).toHaveLength(1);
    expect(text).not.toContain('### Objective');
  });

  it('keeps the Objective section when the objective says more than the summary row shows', () => {
    const long = parseTask({
      title: task.title,
      body: `First paragraph of the objective.\n\nA second paragraph with details.\n\n${TASK_BODY.slice(TASK_BODY.indexOf('```agent'))}`,
      source: 'github',
    });
    const text = renderRunReport(buildRunReport(env, long, outputs(), checkpoints, { status: 'COMPLETED', artifacts: [] }));
    expect(text).toContain('### Objective\n\nFirst paragraph of the objective.');
    expect(text).toContain('A second paragraph with details.');
  });

  it('tabulates the dependency versions moved, a major update marked', () => {
    const o = outputs();
    const change = o.mechanical_change as { segments: { updates?: unknown[] }[] };
    change.segments[0].updates = [{ package: 'jakarta.persistence:jakarta.persistence-api', from: '3.0.0', to: '3.1.0', updateType: 'minor' }];
    change.segments[1].updates = [{ package: 'jakarta.validation:jakarta.validation-api', from: '2.0.2', to: '3.0.2', updateType: 'major' }];
    const text = body(o);
    expect(text).toContain(
      [
        '### Dependency updates',
        '',
        '| package | from | to | update |',
        '|---|---|---|---|',
        '| `jakarta.persistence:jakarta.persistence-api` | `3.0.0` | `3.1.0` | minor |',
        '| `jakarta.validation:jakarta.validation-api` | `2.0.2` | `3.0.2` | **major** |',
      ].join('\n'),
    );
    expect(body()).not.toContain('### Dependency updates');
  });

  it('warns at the top when a step left its change incomplete', () => {
    const o = outputs();
    const change = o.mechanical_change as { segments: { incomplete?: string[] }[] };
    change.segments[3].incomplete = ['rename-symbol renamed total to sum, but 1 file(s) it did not change still use total: web/Page.java'];
    const text = body(o);
    expect(text.indexOf('> [!WARNING]\n> Incomplete change: rename-symbol renamed total to sum')).toBeGreaterThan(0);
    expect(text.indexOf('[!WARNING]')).toBeLessThan(text.indexOf('<details>'));
  });

  it('states the strategy in words, never as JSON', () => {
    const scope = section(body(), 'Scope and strategy');
    expect(scope).toContain('1. bump-dependency: bump jakarta.persistence:jakarta.persistence-api from 3.0.0 to 3.1.0');
    expect(scope).toContain('3. migrate-import: move imports from javax.persistence to jakarta.persistence');
    expect(scope).toContain('4. rename-symbol: rename field total to sum');
    expect(scope).toContain('5. replace: replace "&lt;javax&gt;" with "&lt;jakarta&gt;" (in docs)');
    expect(scope).not.toMatch(/[{]"recipe"|&quot;/);
  });

  it('explains risk by group, and the scope-guard row does not list the files again', () => {
    const text = body();
    const risk = section(text, 'Risk: HIGH (score 17)');
    // Each group says which kind of edit touched its files: the imports moved in the sources, the bump in the pom.
    expect(risk).toContain('- production source file: 14 files, mechanical import change\n');
    expect(risk).toContain('- dependency manifest: 1 file, dependency version change: `services/order/pom.xml`');
    expect(risk.match(/Entity/g)).toBeNull();
    const scopeRow = text.split('\n').find((l) => l.startsWith('| Scope guard'));
    expect(scopeRow).toBe('| Scope guard (paths, policy, budgets) | ✅ passed | approved (gate-0123456789abcdef): risk is HIGH (see Risk) |');
  });

  it('gathers the recipes’ notes once each in a Notes section', () => {
    const text = body();
    const notes = text.slice(text.indexOf('### Notes'), text.indexOf('<details>'));
    expect(notes).toBe('### Notes\n\n- add `jakarta.persistence-api` to services/order/pom.xml\n- CHANGELOG.md: 3 occurrences left (history)\n\n');
  });

  it('a task without a title (only an agent block) is headed by its steps in words', () => {
    const untitled = { ...env, request: { runId: 'k3j5h2m4n6p7', task: { title: '', body: TASK_BODY } } } as unknown as PipelineEnv;
    const report = buildRunReport(untitled, { ...task, title: '' }, outputs(), checkpoints, { status: 'COMPLETED', artifacts: [] });
    expect(report.title).toBe('apply 5 recipe steps');
  });

  it('draws touched modules by their module name', () => {
    const report = buildRunReport(env, task, outputs(), checkpoints, { status: 'COMPLETED', artifacts: [] });
    expect(report.modules).toEqual([{ name: 'order-service', files: 15 }]);
  });
});

describe('a secret finding in the body', () => {
  it('is shown with rule, file and line, and the scan is never said to have passed', () => {
    const o = outputs({
      regression_verification: {
        report: { status: 'PASSED', checks: [{ name: 'Secret scan of the change', status: 'PASSED', detail: 'no finding' }], notRun: [] },
        cheats: [],
        secretFindings: [{ path: 'services/order/src/main/resources/app.properties', line: 7, rule: 'aws-access-key-id', redactedPreview: 'AKIA****' }],
      },
    });
    const text = body(o);
    const row = text.split('\n').find((l) => l.startsWith('| Secret scan'));
    expect(row).toBe('| Secret scan of the change | ❌ failed | 1 finding: aws-access-key-id at services/order/src/main/resources/app.properties:7 |');
    expect(text).toContain('| aws-access-key-id | `services/order/src/main/resources/app.properties` | 7 |');
    expect(text).not.toMatch(/Secret scan[^\n]*passed/);
    expect(text).toContain('static checks: 1 passed, 1 failed');
  });
});

describe('a model run', () => {
  it('shows model calls and tokens used against the limit', () => {
    const o = outputs({
      planning: {
        strategy: 'llm',
        reason: 'no recipe steps: the model makes the change within the selected targets',
        segments: [{ id: 'model-change', engine: 'llm', paths: javaFiles }],
      },
      mechanical_change: {
        segments: [
          {
            id: 'model-change',
            engine: 'llm',
            changedFiles: javaFiles.map((path) => ({ path, edits: 1 })),
            skipped: [],
            notes: [],
            lockfilesToRefresh: [],
            model: { calls: 3, tokens: 1200, status: 'DONE', summary: 's' },
          },
        ],
      },
    });
    const text = body(o);
    expect(section(text, 'Budget used')).toContain('| model calls | 3 | 40 |');
    expect(section(text, 'Budget used')).toContain('| tokens | 1200 | - |');
    expect(text).toContain('· 3/40 model calls |');
    expect(section(text, 'Scope and strategy')).toContain('1. the model changed 14 files (14 files in the plan)');
  });

  it('counts the files the model changed, and the final plan after its revisions, never the files it was offered', () => {
    const offered = javaFiles.slice(0, 10);
    const after = [...offered.slice(0, 8), 'services/order/src/main/java/acme/Billing.java'];
    const revised = { segment: 'model-change', revision: 1, reason: 'Billing holds the rounding', added: [after[8]], dropped: offered.slice(8), steps: [] };
    const ledger = [
      {
        schemaVersion: 1 as const,
        seq: 0,
        at: '2026-11-29T10:00:00.000Z',
        actor: 'model',
        phase: 'mechanical_change' as const,
        type: 'PLAN_REVISED',
        payload: { ...revised, before: offered, after },
        evidenceRefs: [],
      },
    ];
    const o = outputs({
      planning: { strategy: 'llm', reason: 'no recipe steps', segments: [{ id: 'model-change', engine: 'llm', paths: offered }] },
      mechanical_change: {
        segments: [
          {
            id: 'model-change',
            engine: 'llm',
            changedFiles: [after[8], offered[0]].map((path) => ({ path, edits: 1 })),
            skipped: [],
            notes: [],
            lockfilesToRefresh: [],
            model: { calls: 3, tokens: 1200, status: 'DONE', summary: 's' },
          },
        ],
      },
    });
    const report = buildRunReport(env, task, o, checkpoints, { status: 'COMPLETED', headCommitSha: HEAD, artifacts: [], ledger });
    expect(section(renderRunReport(report), 'Scope and strategy')).toContain('1. the model changed 2 files (9 files in the plan as revised 1×)');
  });

  it("carries a finished segment's final answer as the model's account, and drops its status note", () => {
    const segment = (status: string, reason: string, summary: string) => ({
      id: `model-${status}`,
      engine: 'llm' as const,
      changedFiles: [{ path: javaFiles[0], edits: 1 }],
      skipped: [],
      notes: [`model relay: ${status} (${reason})`, 'kept as a note'],
      lockfilesToRefresh: [],
      model: { calls: 2, tokens: 100, status, reason, summary },
    });
    const o = outputs({
      planning: { strategy: 'llm', reason: 'no recipe steps', segments: [{ id: 'model-change', engine: 'llm', paths: javaFiles }] },
      mechanical_change: {
        segments: [
          segment('DONE', 'MODEL_FINISHED', '  Trimmed the code. I did not run the tests.  '),
          segment('BUDGET_EXCEEDED', 'MAX_TOKENS', 'the phase ran out of tokens'),
        ],
      },
    });
    const report = buildRunReport(env, task, o, checkpoints, { status: 'COMPLETED', headCommitSha: HEAD, artifacts: [] });
    expect(report.modelAccount).toEqual([{ segment: 'model-DONE', text: 'Trimmed the code. I did not run the tests.', caveats: ['I did not run the tests.'] }]);
    expect(report.notes).toEqual(['kept as a note']);
  });
});
