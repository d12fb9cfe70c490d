/**
 * End to end `draftsman run --publish` through the CLI entry (`runCli`), each run in its own
 * process so its wall time and peak memory are its own: on the demo repository (the generated
 * Maven service of `npm run demo`, same task) and on a generated 10k-file repository with a
 * one-file `replace` task. On the generated repository the peer is `draftsman map` (ingestion +
 * repository map) of the same repository, in a fresh process the same way, just before the run;
 * the run's own stage timings (`phases` of its --json output) give one record per stage.
 * Runnable alone:
 *   node --import tsx bench/e2e.bench.ts [--json] [--files N]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { generateLargeRepo, gitEnv } from '../test/fixtures/make-repo.js';
import { mavenMultiModuleRepo } from '../test/fixtures/realistic-repos.js';
import { DEMO_POLICY, MIGRATION_TASK as DEMO_TASK } from '../test/fixtures/migration-task.js';
import { runNodeChild, type MemoryPeak } from './child-process.js';
import { runCliTimed } from './cli-child.js';
import { createSandboxVerifier } from '../src/app/local/sandbox-verifier.js';
import type { BenchRecord } from './bench-record.js';

export type { BenchRecord };

const self = fileURLToPath(import.meta.url);

/** A `replace` of one package name that only one generated JSON file holds (file i has name `pkg<i>`, every sixth file is JSON). */
function largeRepoTask(files: number): string {
  let i = Math.floor(files / 2);
  while (i % 6 !== 5) i--;
  return `Rename package pkg${i} to pkg${i}-renamed.

\`\`\`agent
mode: draft_pr
steps:
  - recipe: replace
    find: pkg${i}
    replace: pkg${i}-renamed
\`\`\`
`;
}

interface ChildResult extends MemoryPeak {
  ms: number;
  code: number;
  status?: string;
  reason?: string;
  changedFiles?: number;
  phases?: { phase: string; state: string; ms: number }[];
}

/** The child's command line: `run --publish` with the task, or `map` (ingestion + repository map). */
function cliArgs(command: Command, repo: string, taskFile: string, out: string, policy?: string): string[] {
  const withPolicy = policy ? ['--policy', policy] : [];
  if (command === 'map') return ['map', repo, '--out', out, '--json'];
  return ['run', repo, '--task-file', taskFile, '--out', out, ...(command === 'run' ? ['--publish'] : []), '--json', ...withPolicy];
}

/** `run` publishes; `check` is the same run without publishing (the verification pair runs on an already published repository). */
type Command = 'run' | 'map' | 'check';

/**
 * The policy of the verification run: the sandbox runs one command that reads every file of the
 * checkout, so the record is what verification adds by itself (writing the checkout, starting
 * the sandbox, reading the result), not the project's own test time.
 */
const VERIFY_POLICY = 'version: 1\nagent:\n  build:\n    commands: ["find . -type f | wc -l"]\n  verify:\n    runner: local\n';

/** In the child: one `draftsman run --publish --json` (or `map --json`), timed, with its memory peak. */
async function childMain(command: Command, repo: string, taskFile: string, out: string, policy?: string): Promise<void> {
  const { ms, code, summary, ...peak } = await runCliTimed(cliArgs(command, repo, taskFile, out, policy));
  process.stdout.write(
    `${JSON.stringify({ ms, code, status: summary.status, reason: summary.reason, phases: summary.phases, ...peak } satisfies ChildResult)}\n`,
  );
}

function commitWorkingTree(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
  const run = (args: string[]) => execFileSync('git', args, { cwd: dir, env: gitEnv(), stdio: 'ignore' });
  run(['init', '-q', '-b', 'main']);
  run(['add', '-A']);
  run(['commit', '-q', '-m', 'Order service']);
}

const round = (n: number, digits = 0): number => Number(n.toFixed(digits));

/** Wall time and peak memory of `draftsman run --publish` on the demo repository and a generated large one. */
export async function runE2eBench(options: { files?: number; timeoutMs?: number } = {}): Promise<BenchRecord[]> {
  const files = options.files ?? 10_000;
  const root = mkdtempSync(join(tmpdir(), 'bench-e2e-'));
  const records: BenchRecord[] = [];
  try {
    const demoFiles = { ...mavenMultiModuleRepo(), '.agent-policy.yaml': DEMO_POLICY };
    commitWorkingTree(join(root, 'order-service'), demoFiles);
    writeFileSync(join(root, 'demo-task.md'), DEMO_TASK);
    generateLargeRepo(join(root, 'large.git'), files);
    writeFileSync(join(root, 'large-task.md'), largeRepoTask(files));
    const cases = [
      {
        name: 'e2e.run.demo',
        size: Object.keys(demoFiles).length,
        repo: join(root, 'order-service'),
        task: join(root, 'demo-task.md'),
        what: 'demo Maven service, migrate-import + bump-dependency',
        peer: false,
      },
      {
        name: 'e2e.run.generated',
        size: files,
        repo: join(root, 'large.git'),
        task: join(root, 'large-task.md'),
        what: 'generated repository, one replace step',
        peer: true,
      },
    ];
    const child = (command: 'run' | 'map', c: (typeof cases)[number]) =>
      runNodeChild<ChildResult>(self, ['--child', command, c.repo, c.task, join(root, `state-${c.name}-${command}`)], {
        timeoutMs: options.timeoutMs ?? 10 * 60_000,
      });
    for (const c of cases) {
      let peer: ChildResult | undefined;
      if (c.peer) {
        try {
          // Before the run: publishing adds a branch, and the map reads HEAD either way.
          peer = await child('map', c);
          records.push({
            name: `${c.name}.ingestAndMap`,
            size: c.size,
            value: round(peer.ms),
            unit: 'ms',
            note: `draftsman map --json in a fresh process (imports excluded); exit ${peer.code}, ${peer.status ?? 'no status'}; the peer of ${c.name}.wall`,
          });
          if (peer.code !== 0) peer = undefined;
        } catch (error) {
          records.push({ name: `${c.name}.ingestAndMap`, size: c.size, value: NaN, unit: 'ms', note: `FAILED: ${(error as Error).message}` });
        }
      }
      try {
        const r = await child('run', c);
        const outcome = `exit ${r.code}, ${r.status ?? 'no status'}${r.reason ? ` (${r.reason})` : ''}`;
        const vsPeer = peer ? { baseline: round(peer.ms), ratio: round(r.ms / peer.ms, 2) } : {};
        const peerNote = peer ? `; baseline = draftsman map (ingestion + map) of the same repository, fresh process, just before` : '';
        records.push(
          {
            name: `${c.name}.wall`,
            size: c.size,
            value: round(r.ms),
            unit: 'ms',
            ...vsPeer,
            note: `${c.what}; ${outcome}; run --publish --json in a fresh process (imports excluded)${peerNote}`,
          },
          { name: `${c.name}.peakRss`, size: c.size, value: r.maxRssMb, unit: 'MB', note: 'maxRSS of the CLI process' },
          { name: `${c.name}.peakHeap`, size: c.size, value: r.peakHeapMb, unit: 'MB', note: 'heapUsed sampled every 10 ms' },
        );
        if (c.peer) {
          const staged = (r.phases ?? []).reduce((n, p) => n + p.ms, 0);
          for (const p of r.phases ?? [])
            records.push({
              name: `${c.name}.phase.${p.phase}`,
              size: c.size,
              value: p.ms,
              unit: 'ms',
              note: `stage timing from the run's --json output (${p.state})`,
            });
          records.push({
            name: `${c.name}.phase.outsideStages`,
            size: c.size,
            value: round(r.ms - staged),
            unit: 'ms',
            note: 'wall time not inside any stage: run set-up (ref resolution, attempt records, grammars), agent branch, output',
          });
        }
      } catch (error) {
        records.push({ name: `${c.name}.wall`, size: c.size, value: NaN, unit: 'ms', note: `FAILED: ${(error as Error).message}` });
      }
    }
    records.push(...(await verificationRecords(root, cases[1], options.timeoutMs)));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return records;
}

/**
 * What verification in the sandbox adds per run: the same run on the generated repository
 * twice, side by side, without and with `agent.verify.runner: local`; the ratio is of the
 * verification stage and of the whole run.
 */
async function verificationRecords(root: string, c: { size: number; repo: string; task: string }, timeoutMs = 10 * 60_000): Promise<BenchRecord[]> {
  const available = await createSandboxVerifier().available();
  if (!available.ok) return [{ name: 'e2e.verify.generated.wall', size: c.size, value: NaN, unit: 'ms', note: `not measured: ${available.why}` }];
  const policyFile = join(root, 'verify-policy.yaml');
  writeFileSync(policyFile, VERIFY_POLICY);
  const run = (name: string, policy?: string) =>
    runNodeChild<ChildResult>(self, ['--child', 'check', c.repo, c.task, join(root, `state-verify-${name}`), ...(policy ? [policy] : [])], { timeoutMs });
  const plain = await run('off');
  const verified = await run('local', policyFile);
  const stage = (r: ChildResult) => (r.phases ?? []).find((p) => p.phase === 'regression_verification')?.ms ?? NaN;
  const outcome = (r: ChildResult) => `exit ${r.code}, ${r.status ?? 'no status'}${r.reason ? ` (${r.reason})` : ''}`;
  return [
    {
      name: 'e2e.verify.generated.wall',
      size: c.size,
      value: round(verified.ms),
      unit: 'ms',
      baseline: round(plain.ms),
      ratio: round(verified.ms / plain.ms, 2),
      note: `run (not published) with agent.verify.runner: local (one command reading the whole checkout), ${outcome(verified)}; baseline = the same run without verification, ${outcome(plain)}`,
    },
    {
      name: 'e2e.verify.generated.stage',
      size: c.size,
      value: stage(verified),
      unit: 'ms',
      baseline: stage(plain),
      ratio: round(stage(verified) / stage(plain), 2),
      note: 'the verification stage with the sandbox (checkout written, sandbox started, output read) vs static checks only',
    },
  ];
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (process.argv[2] === '--child') await childMain(process.argv[3] as Command, process.argv[4], process.argv[5], process.argv[6], process.argv[7]);
  else {
    const i = process.argv.indexOf('--files');
    const records = await runE2eBench({ files: i >= 0 ? Number(process.argv[i + 1]) : undefined });
    if (process.argv.includes('--json')) for (const r of records) console.log(JSON.stringify(r));
    else
      for (const r of records)
        console.log(
          `${r.name.padEnd(44)} ${String(r.value).padStart(8)} ${r.unit.padEnd(3)} n=${r.size}${r.ratio !== undefined ? ` ratio=${r.ratio}` : ''}${r.note ? `  (${r.note})` : ''}`,
        );
  }
}
