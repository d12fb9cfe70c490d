// `npm run demo:campaign`: a campaign over three generated npm repositories (one the task changes,
// one already migrated, one whose policy disables the agent) through `draftsman campaign run
// --publish`, then its final table. No AWS, no GitHub, no network.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../src/app/cli/run-cli.js';
import { CAMPAIGN_SPEC, makeCampaignRepos, writeCampaignSpec } from '../test/fixtures/campaign-repos.js';

export interface CampaignDemoIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** Generates the three repositories and the spec under `root`, runs the campaign, prints its table; the exit code. */
export async function campaignDemo(root: string, io: CampaignDemoIo, isTty = false): Promise<number> {
  const repos = makeCampaignRepos(join(root, 'repos'), 3, { prefix: 'demo', kinds: ['changed', 'migrated', 'disabled'] });
  const spec = writeCampaignSpec(root);
  io.stderr(`draftsman demo: generated ${repos.map((r) => `${r.name} (${r.kind})`).join(', ')} under ${join(root, 'repos')}\n`);
  io.stderr(`draftsman demo: campaign.yaml:\n${CAMPAIGN_SPEC.replace(/^/gm, '    ')}\n`);
  const code = await runCli(
    ['campaign', 'run', spec, ...repos.flatMap((r) => ['--repos', r.path]), '--concurrency', '2', '--publish', '--out', join(root, 'state')],
    {
      stdout: io.stdout,
      stderr: io.stderr,
      env: process.env,
      cwd: root,
      clock: { now: () => Date.now() },
      isTty,
    },
  );
  const changed = repos.find((r) => r.kind === 'changed')!;
  io.stderr(`\ndraftsman demo: each run's artifacts under ${join(root, 'state')}\n`);
  const branches = execFileSync('git', ['--git-dir', changed.path, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/agent/'], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  for (const branch of branches) io.stderr(`draftsman demo: inspect the change with: git --git-dir ${changed.path} log -p main..${branch}\n`);
  return code;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = mkdtempSync(join(tmpdir(), 'draftsman-campaign-demo-'));
  process.exitCode = await campaignDemo(
    root,
    { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) },
    Boolean(process.stderr.isTTY),
  );
}
