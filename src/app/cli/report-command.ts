import { parseArgs } from 'node:util';
import type { ArtifactStore } from '../../core/ports.js';
import { outcomeReport } from '../../core/runs/outcomes.js';
import { LocalArtifactStore } from '../local/local-artifact-store.js';
import { readRunFacts } from '../outcomes/read-run-facts.js';
import { UsageError, type CliIo } from './cli-io.js';
import { bucketStore } from './replay-command.js';
import { renderOutcomeReport } from './report-table.js';
import { artifactRoot } from './stage-args.js';

/** `--since`: a date (`2026-11-01`, midnight UTC) or an instant (`2026-11-01T12:00:00Z`). */
export function parseSince(text: string): number {
  const ms = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(ms)) throw new UsageError(`--since takes a date (YYYY-MM-DD) or an ISO 8601 instant, not ${JSON.stringify(text)}`);
  return ms;
}

/**
 * `draftsman report [--since DATE] [--json] [--out DIR | --bucket NAME]`: the outcomes of the runs
 * in the CLI's store or the App's bucket (docs/operations.md, "Outcomes"). Exit 0, 2 on usage errors.
 */
export async function reportCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      since: { type: 'string' },
      json: { type: 'boolean', default: false },
      out: { type: 'string' },
      bucket: { type: 'string' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
  if (values.out !== undefined && values.bucket !== undefined) throw new UsageError('give --out or --bucket, not both');
  if (values.bucket === undefined && (values.endpoint !== undefined || values.region !== undefined))
    throw new UsageError('--endpoint and --region go with --bucket');
  const since = values.since === undefined ? undefined : parseSince(values.since);
  let store: ArtifactStore;
  let source: string;
  if (values.bucket !== undefined) {
    store = bucketStore(values.bucket, io, { endpoint: values.endpoint, region: values.region });
    source = `bucket ${values.bucket}`;
  } else {
    const root = artifactRoot(values.out, io);
    store = new LocalArtifactStore(root);
    source = root;
  }
  const { runs, unreadable } = await readRunFacts(store, since);
  const report = outcomeReport(runs, since);
  if (values.json) io.stdout(`${JSON.stringify({ source, ...report, unreadable })}\n`);
  else io.stdout(`${renderOutcomeReport(report, source)}${unreadable > 0 ? `\n${unreadable} run(s) skipped: request.json missing or unreadable` : ''}\n`);
  return 0;
}
