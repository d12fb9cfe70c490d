// `draftsman serve --sandbox` (or `node --import tsx scripts/serve-sandbox.ts`): the App in one
// process against the GitHub stand-in the tests use, with one sandbox repository, and a local page
// that opens and labels issues. Needs this checkout with its development dependencies (`npm ci`).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startSandbox } from '../test/helpers/sandbox/start-sandbox.js';

const { values } = parseArgs({ options: { dir: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' } }, strict: true });
const port = values.port === undefined ? 0 : Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65_535) {
  process.stderr.write(`draftsman serve --sandbox: --port ${values.port} is not a port number (0 to 65535)\n`);
  process.exit(2);
}
const dir = values.dir ? resolve(values.dir) : mkdtempSync(join(tmpdir(), 'draftsman-sandbox-'));
const sandbox = await startSandbox({
  dir,
  port,
  host: values.host,
  io: { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t) },
});
process.stderr.write(
  [
    `draftsman sandbox: a GitHub stand-in at ${sandbox.standin.url} with acme/orders (a Maven service with a policy); serve's files are in ${dir}`,
    `draftsman sandbox: open ${sandbox.pageUrl} to open and label an issue and watch the draft pull request appear, or from a shell:`,
    `  curl -s -o /dev/null -w '%{http_code}\\n' --data-urlencode 'title=Migrate' --data-urlencode 'body@task.md' ${sandbox.pageUrl}issues`,
    'draftsman sandbox: Ctrl-C stops it',
    '',
  ].join('\n'),
);
await new Promise<void>((done) => {
  process.once('SIGINT', done);
  process.once('SIGTERM', done);
});
await sandbox.stop();
