// A Lambda execution environment in miniature, run with plain `node` (no loader, no
// node_modules next to the bundle): `node lambda-runner.mjs <task root> <handler>`, where
// <handler> is serverless.yml's `src/handlers/webhook.handler`. It imports the bundle once
// (the cold start: module-scope code and top-level awaits run here), then runs one invocation
// per IPC message `{id, event, requestId, deadlineMs}` and answers `{id, ok, result}` or
// `{id, ok: false, errorType, errorMessage}`, as the Node.js runtime reports a rejected handler.
//
// An optional third argument `<n>` warps time for waits of 0.2 to 5 seconds (GitHub's write
// spacing, retry backoff): such a timer fires n times sooner and the clock (Date) jumps to the
// moment it was due, so every decision made from the clock stays what it would be, without
// the test sitting the waits out. Longer timers (request timeouts) run in real time.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const [taskRoot, handlerSpec, timeScale] = process.argv.slice(2);
const scale = Number(timeScale ?? 1);
if (scale > 1) {
  const RealDate = Date;
  const realNow = RealDate.now;
  let skipped = 0;
  const now = () => realNow() + skipped;
  class WarpedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(now());
      else super(...args);
    }
    static now() {
      return now();
    }
  }
  globalThis.Date = WarpedDate;
  const realSetTimeout = globalThis.setTimeout;
  const warped = (callback, ms, ...args) => {
    const delay = Number(ms) || 0;
    if (delay < 200 || delay > 5000 || typeof callback !== 'function') return realSetTimeout(callback, ms, ...args);
    const due = now() + delay;
    return realSetTimeout(
      (...a) => {
        skipped = Math.max(skipped, due - realNow());
        callback(...a);
      },
      delay / scale,
      ...args,
    );
  };
  warped[promisify.custom] = realSetTimeout[promisify.custom];
  globalThis.setTimeout = warped;
}

const dot = handlerSpec.lastIndexOf('.');
const file = join(taskRoot, `${handlerSpec.slice(0, dot)}.mjs`);
const exportName = handlerSpec.slice(dot + 1);

const describe = (error) => ({
  errorType: error instanceof Error ? error.name : typeof error,
  errorMessage: error instanceof Error ? error.message : String(error),
});

let handler;
try {
  const mod = await import(pathToFileURL(file).href);
  handler = mod[exportName];
  if (typeof handler !== 'function') throw new Error(`${file} exports no function named ${exportName}`);
} catch (error) {
  process.send({ type: 'init-error', ...describe(error), stack: error instanceof Error ? error.stack : undefined });
  process.exit(1);
}
process.send({ type: 'ready' });

const functionName = process.env.AWS_LAMBDA_FUNCTION_NAME;
process.on('message', async (message) => {
  const context = {
    awsRequestId: message.requestId,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${process.env.AWS_REGION}:123456789012:function:${functionName}`,
    memoryLimitInMB: process.env.AWS_LAMBDA_FUNCTION_MEMORY_SIZE,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'standin',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => Math.max(0, message.deadlineMs - Date.now()),
  };
  try {
    const result = await handler(message.event, context);
    process.send({ type: 'result', id: message.id, ok: true, result: result === undefined ? null : JSON.parse(JSON.stringify(result)) });
  } catch (error) {
    process.send({ type: 'result', id: message.id, ok: false, ...describe(error) });
  }
});
