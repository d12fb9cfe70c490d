import { describe, expect, it } from 'vitest';
import { withInvocationLogging } from '../../../src/app/aws/lambda-logging.js';
import { bindLogScope, CapturingLogger, REDACTED, withLogScope } from '../../../src/app/logger.js';

const GHS = 'ghs_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

describe('invocation log scope', () => {
  it('every line of an invocation carries awsRequestId and coldStart, true on the first invocation only', async () => {
    const logger = new CapturingLogger({ bindings: { fn: 'worker' } });
    const handler = withInvocationLogging(async (event: { n: number }, _context: { awsRequestId: string }) => {
      logger.info('start', { n: event.n });
      await Promise.resolve();
      logger.child({ part: 'inner' }).warn('later');
      return event.n;
    });
    expect(await handler({ n: 1 }, { awsRequestId: 'req-1' })).toBe(1);
    await handler({ n: 2 }, { awsRequestId: 'req-2' });
    logger.info('outside');
    expect(logger.entries().map((e) => [e.msg, e.fn, e.awsRequestId, e.coldStart])).toEqual([
      ['start', 'worker', 'req-1', true],
      ['later', 'worker', 'req-1', true],
      ['start', 'worker', 'req-2', false],
      ['later', 'worker', 'req-2', false],
      ['outside', 'worker', undefined, undefined],
    ]);
  });

  it('run id and repository once known, installation when bound later; concurrent runs keep theirs', async () => {
    const logger = new CapturingLogger();
    const run = (runId: string, installationId: number) =>
      withLogScope({ runId, repository: 'o/r' }, async () => {
        logger.info('leased');
        await new Promise((resolve) => setImmediate(resolve));
        expect(bindLogScope({ installationId })).toBe(true);
        logger.info('token');
      });
    const handler = withInvocationLogging(async (_e: unknown, _c: { awsRequestId: string }) => {
      logger.info('before the run');
      await Promise.all([run('r1', 11), run('r2', 22)]);
    });
    await handler({}, { awsRequestId: 'req-9' });
    const seen = logger.entries().map((e) => `${e.msg}|${e.awsRequestId}|${e.runId ?? '-'}|${e.repository ?? '-'}|${e.installationId ?? '-'}`);
    expect(seen).toEqual(['before the run|req-9|-|-|-', 'leased|req-9|r1|o/r|-', 'leased|req-9|r2|o/r|-', 'token|req-9|r1|o/r|11', 'token|req-9|r2|o/r|22']);
    expect(bindLogScope({ installationId: 1 })).toBe(false);
  });

  it('bound fields are redacted like any other: registered secrets, patterns and credential keys', async () => {
    const secret = 'scope-secret-value-77';
    const logger = new CapturingLogger({ secrets: [secret] });
    await withLogScope({ runId: `r-${secret}`, repository: `https://x-access-token:${GHS}@github.com/o/r`, apiToken: 'plain' }, async () => {
      logger.info('bound');
    });
    const [entry] = logger.entries();
    expect(entry).toMatchObject({ runId: `r-${REDACTED}`, repository: `https://x-access-token:${REDACTED}@github.com/o/r`, apiToken: REDACTED });
    expect(logger.captured.text()).not.toContain(secret);
    expect(logger.captured.text()).not.toContain(GHS);
  });

  it('metadata and the logger bindings win over the scope; the fixed fields cannot be forged by it', async () => {
    const logger = new CapturingLogger({ bindings: { fn: 'publisher' } });
    await withLogScope({ fn: 'forged', msg: 'fake', runId: 'r1' }, async () => logger.info('real', { runId: 'r2' }));
    expect(logger.entries()[0]).toMatchObject({ fn: 'publisher', msg: 'real', runId: 'r2', 'meta.msg': 'fake' });
  });
});
