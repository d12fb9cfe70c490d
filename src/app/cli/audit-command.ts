import { parseArgs } from 'node:util';
import { readRunTrail, renderRunTrail } from '../../core/phases/run-trail.js';
import { LocalArtifactStore } from '../local/local-artifact-store.js';
import { UsageError, type CliIo } from './cli-io.js';
import { bucketStore } from './replay-command.js';
import { artifactRoot } from './stage-args.js';

/**
 * `draftsman audit <run-id> [--repo OWNER/REPO] [--out DIR | --bucket NAME] [--json]`: print the
 * trail of every attempt of a run (ledger events and settled model calls) from the CLI's store or
 * the deployment's bucket, with the operator's AWS credentials. Exit 0 when a trail was found, 1
 * when none was.
 */
export async function auditCommand(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      repo: { type: 'string' },
      out: { type: 'string' },
      bucket: { type: 'string' },
      endpoint: { type: 'string' },
      region: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [runId, ...extra] = parsed.positionals;
  if (!runId || extra.length > 0) throw new UsageError('audit takes one run id');
  const { repo, out, bucket } = parsed.values;
  if (repo !== undefined && !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo)) throw new UsageError('--repo takes OWNER/REPO');
  if (out !== undefined && bucket !== undefined) throw new UsageError('audit reads --out DIR or --bucket NAME, not both');
  const store = bucket ? bucketStore(bucket, io, parsed.values) : new LocalArtifactStore(artifactRoot(out, io));
  const trails = await readRunTrail(store, runId, repo);
  io.stdout(parsed.values.json ? `${JSON.stringify({ runId, attempts: trails })}\n` : `${renderRunTrail(runId, trails)}\n`);
  return trails.length > 0 ? 0 : 1;
}
