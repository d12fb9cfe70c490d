import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitTree, git } from '../../fixtures/make-repo.js';
import { DEMO_POLICY, MIGRATION_TASK } from '../../fixtures/migration-task.js';
import { mavenMultiModuleRepo } from '../../fixtures/realistic-repos.js';
import { CliBinary } from './cli-binary.js';
import { makeWorkingCopy } from './cli-harness.js';

// The CLI through its real entry point (bin/draftsman.mjs over the built bundle), as a child process.
let bin: CliBinary;
let root: string;
/** A Maven service with three modules, a binary build output (an ingestion warning) and CODEOWNERS. */
let repo: string;
let taskFile: string;
const out = (name: string) => join(root, `state-${name}`);

beforeAll(() => {
  bin = CliBinary.build();
  root = mkdtempSync(join(tmpdir(), 'draftsman-binary-'));
  repo = join(root, 'orders');
  makeWorkingCopy(repo, { ...mavenMultiModuleRepo(), '.agent-policy.yaml': DEMO_POLICY });
  taskFile = join(root, 'task.md');
  writeFileSync(taskFile, MIGRATION_TASK);
}, 120_000);

afterAll(() => {
  bin?.remove();
  rmSync(root, { recursive: true, force: true });
});

describe('help, version and usage errors', () => {
  const version = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')).version as string;
  const commands = ['ingest', 'map', 'targets', 'run', 'policy', 'replay', 'serve'];

  it('draftsman <command> --help describes each command and exits 0; draftsman --help and -h list the commands', async () => {
    const [each, long, short] = await Promise.all([Promise.all(commands.map((c) => bin.run([c, '--help']))), bin.run(['--help']), bin.run(['-h'])]);
    each.forEach((result, i) => {
      expect(result.code, commands[i]).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`^usage: draftsman ${commands[i]}\\b`));
      expect(result.stderr).toBe('');
    });
    for (const result of [long, short]) {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('usage: draftsman <command>');
      expect(result.stdout).toContain('draftsman <command> --help');
    }
  }, 60_000);

  it("draftsman --version prints package.json's version; unknown options and commands are one sentence pointing to --help, exit 2", async () => {
    const [shown, option, command] = await Promise.all([bin.run(['--version']), bin.run(['run', '.', '--frobnicate']), bin.run(['frobnicate'])]);
    expect(shown).toMatchObject({ code: 0, stdout: `draftsman ${version}\n` });
    expect(option.code).toBe(2);
    expect(option.stderr).toBe('draftsman: unknown option --frobnicate\n`draftsman run --help` lists the options\n');
    expect(command.code).toBe(2);
    expect(command.stderr).toBe('draftsman: unknown command: frobnicate\n`draftsman --help` lists the commands\n');
  }, 60_000);
});

describe('each stage prints what it found; --json has all of it under found', () => {
  it('ingest: the warnings with their paths; map: modules, build systems, languages; targets: ranked files with their reasons', async () => {
    const task = ['--task', 'Rename OrderService to OrderManager'];
    const [ingest, map, targets, ingestJson, mapJson, targetsJson] = await Promise.all([
      bin.run(['ingest', repo, '--out', out('found')]),
      bin.run(['map', repo, '--out', out('found')]),
      bin.run(['targets', repo, ...task, '--out', out('found')]),
      bin.run(['ingest', repo, '--out', out('found-json'), '--json']),
      bin.run(['map', repo, '--out', out('found-json'), '--json']),
      bin.run(['targets', repo, ...task, '--out', out('found-json'), '--json']),
    ]);
    const binary = 'target/classes/com/acme/order/OrderService.class';
    expect(ingest.code).toBe(0);
    expect(ingest.stderr).toContain('draftsman: READY_WITH_WARNINGS');
    expect(ingest.stdout).toMatch(new RegExp(`^warnings \\(1\\):\\n  BINARY_FILE  .*\\n      ${binary.replace(/\./g, '\\.')}\\n$`));
    expect(ingestJson.json!.found.warnings).toEqual([expect.objectContaining({ stage: 'ingestion', code: 'BINARY_FILE', paths: [binary] })]);

    expect(map.code).toBe(0);
    expect(map.stdout).toContain('build systems: maven\n');
    expect(map.stdout).toMatch(/^languages: Java \d+% \(\d+\)/m);
    expect(map.stdout).toMatch(/^modules \(3\):\n  \.\s+maven .*\n  order-api\s+maven\s+Java\s+com\.acme:order-api\n  order-service\s+maven/m);
    expect(mapJson.json!.found).toMatchObject({
      buildSystems: ['maven'],
      modules: expect.arrayContaining([expect.objectContaining({ path: 'order-api', buildSystem: 'maven' })]),
    });
    expect(mapJson.json!.found.modules).toHaveLength(3);

    const selected = targetsJson.json!.found.targets.selected as { path: string; reasons: string[] }[];
    expect(selected.length).toBeGreaterThan(0);
    expect(targets.code).toBe(0);
    expect(targets.stdout).toContain(`targets (${selected.length}, `);
    expect(targets.stdout).toContain(`  1. ${selected[0]!.path}  (`);
    expect(targets.stdout).toContain(`       ${selected[0]!.reasons.slice(0, 2).join('; ')}`);
  }, 180_000);
});

describe('errors say what happened and what to do, in sentences', () => {
  it('--ref nosuchbranch and --paths nosuchdir: cause and next step, no JSON log line (the log file has it; --verbose shows it)', async () => {
    const [ref, paths, verbose] = await Promise.all([
      bin.run(['ingest', repo, '--out', out('ref'), '--ref', 'nosuchbranch']),
      bin.run(['ingest', repo, '--out', out('paths'), '--paths', 'nosuchdir']),
      bin.run(['ingest', repo, '--out', out('verbose'), '--ref', 'nosuchbranch', '--verbose']),
    ]);
    expect(ref.code).toBe(1);
    expect(ref.stderr).toContain(`draftsman: FAILED (BASE_REF_NOT_FOUND)\n  the ref nosuchbranch does not exist in ${repo}.\n  next: give an existing branch`);
    expect(paths.code).toBe(1);
    expect(paths.stderr).toContain('draftsman: FAILED (SCOPE_PATH_MISSING)\n  --paths names what the base commit does not have: nosuchdir.\n  next: ');
    for (const result of [ref, paths]) {
      expect(result.stdout + result.stderr).not.toMatch(/^\{/m);
      expect(result.stderr).toContain(`  log      ${out(result === ref ? 'ref' : 'paths')}/draftsman.log`);
    }
    expect(readFileSync(join(out('ref'), 'draftsman.log'), 'utf8')).toMatch(/^\{"level":"warn".*"reason":"BASE_REF_NOT_FOUND"/m);
    expect(verbose.stderr).toMatch(/^\{"level":"warn".*"reason":"BASE_REF_NOT_FOUND"/m);
  }, 120_000);

  it('a task block with problems prints them as lines, never as \\012', async () => {
    const task = 'Fix it\n\n```agent\nsteps:\n  - recipe: nosuch\n```\n';
    const result = await bin.run(['run', repo, '--task', task, '--out', out('task')]);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toContain('\\012');
    expect(result.stderr).toMatch(/✗ intake .* the task block is invalid: .*\n      task:5:\d+: steps\[0\]\.recipe: unknown recipe "nosuch"/);
    expect(result.stderr).toContain('draftsman: FAILED (TASK_BLOCK_INVALID)\n  the ```agent block of the task has problems (listed above).\n  next: ');
  }, 120_000);

  it('the run report on the terminal shows <, > and @, not entities; a refused publication is BLOCKED (BRANCH_NOT_OURS) with the next step', async () => {
    const argv = ['run', repo, '--task-file', taskFile, '--out', out('publish'), '--publish', '--run-id', 'binary-rerun'];
    const first = await bin.run(argv);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('<dependency><groupId>jakarta.persistence</groupId>');
    expect(first.stdout).toContain('owned by @acme/');
    expect(first.stdout).not.toMatch(/&lt;|&gt;|&#8203;|&amp;/);
    const branch = 'agent/local/rbinary-rerun';
    const ours = git(['rev-parse', `refs/heads/${branch}`], { cwd: repo });
    const human = commitTree(join(repo, '.git'), git(['rev-parse', `${ours}^{tree}`], { cwd: repo }), {
      branch,
      parent: ours,
      message: 'a fix by hand',
      date: '2026-02-03T10:00:00Z',
    });

    const [again, json] = [await bin.run(argv), await bin.run([...argv, '--json'])];
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `draftsman: BLOCKED (BRANCH_NOT_OURS)\n  the run completed, but its branch ${branch} already holds a commit this run did not make`,
    );
    expect(again.stderr).toContain('  next: keep that work under another name');
    expect(again.stderr).not.toContain('draftsman: COMPLETED');
    expect(json.code).toBe(1);
    expect(json.json).toMatchObject({
      status: 'BLOCKED',
      reason: 'BRANCH_NOT_OURS',
      runStatus: 'COMPLETED',
      message: expect.stringContaining('already holds a commit'),
    });
    expect(git(['rev-parse', `refs/heads/${branch}`], { cwd: repo })).toBe(human);
  }, 240_000);
});

describe('progress of a running stage', () => {
  it('on a terminal: the running stage and how far its fetch got, then overwritten by its result; piped: none of it', async () => {
    const [tty, piped] = await Promise.all([bin.runOnTerminal(['ingest', repo, '--out', out('tty')]), bin.run(['ingest', repo, '--out', out('piped')])]);
    expect(tty.code).toBe(0);
    expect(tty.screen).toMatch(/ {2}… ingestion\r\u001b\[K {2}… ingestion\s+copied objects: \d+\/\d+\r\u001b\[K {2}✓ ingestion/);
    expect(piped.code).toBe(0);
    expect(piped.stderr).toMatch(/^ {2}✓ ingestion/m);
    expect(piped.stderr).not.toContain('…');
    expect(piped.stderr).not.toContain('\u001b');
  }, 120_000);
});
