/**
 * A campaign through the CLI (docs/campaigns.md, "From the CLI"): `draftsman campaign run
 * campaign.yaml --repos ... --concurrency 2 --publish` over generated npm repositories (a mix:
 * changed, already migrated, no match, a policy that disables the agent;
 * test/fixtures/campaign-repos.ts), against the sum of single `draftsman run --publish` runs of
 * the same repositories (a second, identical copy of each) with the same task, in the same
 * process, measured just before. Everything goes through `runCli` in this process, after one
 * warm-up run, so neither side pays the imports or the first compilation.
 * Runnable alone:
 *   node --import tsx bench/campaign.bench.ts [--json] [--repos N]
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../src/app/cli/run-cli.js';
import { campaignTask } from '../src/app/campaign/campaign-task.js';
import { parseCampaign } from '../src/core/campaign/parse-campaign.js';
import { CAMPAIGN_SPEC, makeCampaignRepos, writeCampaignSpec, type CampaignRepo } from '../test/fixtures/campaign-repos.js';
import type { BenchRecord } from './bench-record.js';

const round = (n: number, digits = 0): number => Number(n.toFixed(digits));

/** One `draftsman` command through runCli here: exit code, stdout, wall time. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; ms: number }> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const key of Object.keys(env)) if (key.startsWith('DRAFTSMAN_')) delete env[key];
  let stdout = '';
  const start = performance.now();
  const code = await runCli(args, {
    stdout: (text) => void (stdout += text),
    stderr: () => undefined,
    env,
    cwd: process.cwd(),
    clock: { now: () => Date.now() },
    isTty: false,
  });
  return { code, stdout, ms: performance.now() - start };
}

/** The campaign over `repos` generated repositories at concurrency 2, and the sum of single runs of the same repositories. */
export async function runCampaignBench(options: { repos?: number; concurrency?: number } = {}): Promise<BenchRecord[]> {
  const count = options.repos ?? 100;
  const concurrency = options.concurrency ?? 2;
  const root = mkdtempSync(join(tmpdir(), 'bench-campaign-'));
  const records: BenchRecord[] = [];
  try {
    const genStart = performance.now();
    const singles = makeCampaignRepos(join(root, 'single'), count);
    const fleet = makeCampaignRepos(join(root, 'campaign'), count);
    const [warm] = makeCampaignRepos(join(root, 'warm'), 1);
    const generateMs = performance.now() - genStart;
    const specFile = writeCampaignSpec(root);
    const task = campaignTask(parseCampaign(CAMPAIGN_SPEC, 'campaign.yaml'));
    mkdirSync(join(root, 'state'), { recursive: true });
    const single = (repo: CampaignRepo) =>
      cli(['run', repo.path, '--task', task, '--out', join(root, 'state', 'single', repo.name), '--run-id', `single-${repo.name}`, '--publish', '--json']);

    await single(warm);
    let sum = 0;
    const singleMs: number[] = [];
    const singleStatus = new Map<string, number>();
    for (const repo of singles) {
      const r = await single(repo);
      sum += r.ms;
      singleMs.push(r.ms);
      const status = /"status":"(\w+)"/.exec(r.stdout)?.[1] ?? `exit ${r.code}`;
      singleStatus.set(status, (singleStatus.get(status) ?? 0) + 1);
    }
    const repoArgs = fleet.flatMap((r) => ['--repos', r.path]);
    const campaign = await cli([
      'campaign',
      'run',
      specFile,
      ...repoArgs,
      '--concurrency',
      String(concurrency),
      '--publish',
      '--out',
      join(root, 'state', 'campaign'),
      '--json',
    ]);
    const result = JSON.parse(campaign.stdout.trim().split('\n').pop() ?? '{}') as {
      counts?: Record<string, number>;
      repositories?: { repository: string; outcome: string }[];
    };
    const byPath = new Map((result.repositories ?? []).map((r) => [r.repository, r.outcome]));
    const unexpected = fleet.filter((r) => byPath.get(r.path) !== r.expected);
    const outcome = `exit ${campaign.code}; ${JSON.stringify(result.counts ?? {})}; ${
      unexpected.length === 0
        ? `all ${count} as expected`
        : `${unexpected.length} not as expected (${unexpected
            .slice(0, 3)
            .map((r) => `${r.name}: ${byPath.get(r.path) ?? 'missing'}`)
            .join(', ')})`
    }`;
    singleMs.sort((a, b) => a - b);
    records.push(
      {
        name: 'campaign.cli.wall',
        size: count,
        value: round(campaign.ms),
        unit: 'ms',
        baseline: round(sum),
        ratio: round(campaign.ms / sum, 2),
        note: `draftsman campaign run --concurrency ${concurrency} --publish over ${count} generated npm repositories (changed, migrated, no match, agent disabled); baseline = the sum of single draftsman run --publish of identical copies, same task, same process, just before; ${outcome}`,
      },
      {
        name: 'campaign.cli.singleRun.p50',
        size: count,
        value: round(singleMs[Math.floor(singleMs.length / 2)]),
        unit: 'ms',
        note: `one draftsman run --publish; p90 ${round(singleMs[Math.floor(singleMs.length * 0.9)])} ms; statuses ${JSON.stringify(Object.fromEntries(singleStatus))}; generating the ${2 * count + 1} repositories took ${round(generateMs)} ms`,
      },
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
  return records;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reposIndex = process.argv.indexOf('--repos');
  const records = await runCampaignBench({ repos: reposIndex >= 0 ? Number(process.argv[reposIndex + 1]) : undefined });
  for (const r of records)
    process.stdout.write(
      process.argv.includes('--json')
        ? `${JSON.stringify(r)}\n`
        : `${r.name}: ${r.value} ${r.unit}${r.ratio ? ` (${r.ratio}x of ${r.baseline})` : ''} — ${r.note}\n`,
    );
  process.exit(0);
}
