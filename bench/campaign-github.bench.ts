/**
 * GitHub content-creating requests of a campaign through the App (docs/campaigns.md, "Limits"):
 * the campaign state machine executed offline with the real campaign function and the App's run
 * chain behind it (test/integration/campaign/campaign-fleet.ts), against the GitHub stand-in
 * answering every call after `latencyMs` (default 150 ms, what real GitHub takes), over a fleet
 * of mixed policies (plain migrations, disabled, approval, forbidden paths, already migrated, no
 * match, a sender without permission). Reports the content-creating requests (POST, PATCH, PUT,
 * DELETE under /repos/) per repository by kind, and the peak per minute and per hour against
 * GitHub's secondary limits (80 a minute, 500 an hour) on the campaign's clock: the harness
 * clock, moved only by what the state machine's waits would have waited (the waits themselves
 * take 0 ms here, so the wall clock of this process compresses hours of pace into a minute and
 * says nothing about the limits). A run takes no time on that clock, so all of a run's calls land
 * in the minute it is looked at: an upper bound of the real rate.
 * Runnable alone:
 *   node --import tsx bench/campaign-github.bench.ts [--json] [--repos N] [--latency MS]
 */
import { fileURLToPath } from 'node:url';
import { ADMIN, startFleet } from '../test/integration/campaign/campaign-fleet.js';
import type { BenchRecord } from './bench-record.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const round = (n: number, digits = 0): number => Number(n.toFixed(digits));

/** Content-creating: a mutation of a repository's content, issues or pulls (token mints are not). */
const contentCreating = (call: { method: string; path: string }) => call.method !== 'GET' && call.method !== 'HEAD' && call.path.startsWith('/repos/');

/** The most events in any window of `width` ms, from (time, count) samples in time order. */
function peak(samples: { at: number; n: number }[], width: number): number {
  let best = 0;
  let sum = 0;
  let from = 0;
  for (let i = 0; i < samples.length; i++) {
    sum += samples[i].n;
    while (samples[i].at - samples[from].at >= width) sum -= samples[from++].n;
    best = Math.max(best, sum);
  }
  return best;
}

export async function runCampaignGithubBench(options: { repos?: number; latencyMs?: number; concurrency?: number } = {}): Promise<BenchRecord[]> {
  const count = options.repos ?? 10;
  const latencyMs = options.latencyMs ?? 150;
  const concurrency = options.concurrency ?? 2;
  const f = await startFleet(count, { concurrency, startsPerMinute: 10, githubLatencyMs: latencyMs });
  const records: BenchRecord[] = [];
  try {
    const contentSoFar = () => f.h.standin.calls.filter(contentCreating).length;
    // The campaign's clock: calls between two moves of the clock happened at the earlier time.
    const onClock: { at: number; n: number }[] = [];
    let counted = 0;
    const mark = () => {
      const total = contentSoFar();
      onClock.push({ at: f.h.clock.now(), n: total - counted });
      counted = total;
    };
    const advance = f.h.clock.advance.bind(f.h.clock);
    f.h.clock.advance = (ms: number) => {
      mark();
      advance(ms);
    };
    const clockStart = f.h.clock.now();
    const t0 = performance.now();
    await f.h.deliver('issues', f.h.payloads.labeled(1, { label: 'agent:campaign', sender: ADMIN }));
    const result = (await f.execute()) as { outcomes: { repository: string; state: string }[] };
    const ms = performance.now() - t0;
    mark();

    const calls = f.contentCalls();
    const states = Object.fromEntries(result.outcomes.map((o) => [o.repository, o.state]));
    const byKind = new Map<string, number[]>();
    for (const t of f.targets) byKind.set(t.kind, [...(byKind.get(t.kind) ?? []), calls.get(t.name) ?? 0]);
    const home = calls.get(f.h.fullName) ?? 0;
    const all = f.targets.map((t) => calls.get(t.name) ?? 0);
    const size = `${count} repositories, GitHub latency ${latencyMs} ms, concurrency ${concurrency}`;
    const stateCounts: Record<string, number> = {};
    for (const s of Object.values(states)) stateCounts[s] = (stateCounts[s] ?? 0) + 1;
    records.push({
      name: 'campaign.github.contentCallsPerRepo.max',
      size,
      value: Math.max(...all),
      unit: 'requests',
      note: `mean ${round(all.reduce((a, b) => a + b, 0) / all.length, 1)}; by kind (max): ${[...byKind].map(([k, v]) => `${k} ${Math.max(...v)}`).join(', ')}; the home issue (tracking comment) ${home} in all; outcomes ${JSON.stringify(stateCounts)}; ${round(ms / 1000)} s wall`,
    });
    const hours = (f.h.clock.now() - clockStart) / HOUR;
    records.push(
      {
        name: 'campaign.github.peakPerMinute.campaignClock',
        size,
        value: peak(onClock, MINUTE),
        unit: 'requests/min',
        note: `content-creating requests in any minute of the campaign's clock (runs take no time on it: an upper bound); ${round(hours, 2)} h of simulated pace`,
      },
      {
        name: 'campaign.github.peakPerHour.campaignClock',
        size,
        value: peak(onClock, HOUR),
        unit: 'requests/h',
        note: `content-creating requests in any hour of the campaign's clock; ${contentSoFar()} in all`,
      },
    );
  } finally {
    await f.h.stop();
  }
  return records;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : undefined);
  const records = await runCampaignGithubBench({ repos: arg('--repos'), latencyMs: arg('--latency') });
  for (const r of records) process.stdout.write(process.argv.includes('--json') ? `${JSON.stringify(r)}\n` : `${r.name}: ${r.value} ${r.unit} — ${r.note}\n`);
  process.exit(0);
}
