import { describe, expect, it } from 'vitest';
import { CapturingLogger, MAX_LOGGED_ITEMS, MAX_LOGGED_STRING, REDACTED } from '../../../src/app/logger.js';
import { probotLog } from '../../../src/app/webhook/probot-app.js';

describe('one log format, payloads bounded', () => {
  it('a logged string or array longer than the bound is cut after redaction, and says how much was left out', () => {
    const logger = new CapturingLogger();
    logger.redact('secret-value-123');
    const body = `${'x'.repeat(MAX_LOGGED_STRING - 5)}secret-value-123${'y'.repeat(50_000)}`;
    logger.error('x'.repeat(MAX_LOGGED_STRING + 10), { body, items: Array.from({ length: MAX_LOGGED_ITEMS + 7 }, (_, i) => i) });
    const [entry] = logger.entries() as { msg: string; body: string; items: unknown[] }[];
    expect(entry.msg).toBe(`${'x'.repeat(MAX_LOGGED_STRING)}… [10 more characters]`);
    expect(entry.body).toBe(
      `${'x'.repeat(MAX_LOGGED_STRING - 5)}${REDACTED.slice(0, 5)}… [${body.length - 16 + REDACTED.length - MAX_LOGGED_STRING} more characters]`,
    );
    expect(entry.items).toHaveLength(MAX_LOGGED_ITEMS + 1);
    expect(entry.items.at(-1)).toBe('[7 more items]');
  });

  it("Probot's log calls become the project's JSON lines, the event summarised as its id and name", () => {
    const logger = new CapturingLogger();
    const log = probotLog(logger).child({ name: 'probot' });
    const event = { id: 'd-1', name: 'issues', payload: { issue: { body: 'THE-WHOLE-ISSUE-BODY' } } };
    log.debug({ event }, 'Webhook received');
    log.error(Object.assign(new Error('GitHub failed'), { event }), 'Go to https://github.com/settings/apps/YOUR_APP');
    log.fatal('Goodbye');
    expect(logger.entries().map(({ time: _time, ...e }) => e)).toEqual([
      { level: 'debug', msg: 'Webhook received', name: 'probot', event: { id: 'd-1', name: 'issues' }, source: 'probot' },
      {
        level: 'debug',
        msg: 'Go to https://github.com/settings/apps/YOUR_APP',
        name: 'probot',
        error: { name: 'Error', message: 'GitHub failed' },
        source: 'probot',
      },
      { level: 'error', msg: 'Goodbye', name: 'probot', source: 'probot' },
    ]);
    expect(logger.captured.text()).not.toContain('THE-WHOLE-ISSUE-BODY');
  });
});
