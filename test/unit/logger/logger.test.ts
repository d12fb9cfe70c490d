import { describe, expect, it } from 'vitest';
import { AgentError } from '../../../src/core/errors.js';
import { CapturingLogger, CapturingSink, JsonLogger, REDACTED } from '../../../src/app/logger.js';

const GHS = 'ghs_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const GHP = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
const PAT = 'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ';
const PEM = '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAtop\nsecretline\n-----END RSA PRIVATE KEY-----';

describe('JsonLogger', () => {
  it('writes one JSON line per entry with level, time, message, bindings and metadata', () => {
    const sink = new CapturingSink();
    const logger = new JsonLogger({ sink: sink.write, clock: { now: () => Date.UTC(2025, 0, 2, 3, 4, 5) }, bindings: { fn: 'worker' } });
    logger.info('ingestion done', { files: 3 });
    expect(sink.lines).toEqual(['{"level":"info","time":"2025-01-02T03:04:05.000Z","msg":"ingestion done","fn":"worker","files":3}']);
  });

  it('drops entries below the level; debug passes when asked', () => {
    const sink = new CapturingSink();
    new JsonLogger({ sink: sink.write, level: 'warn' }).info('quiet');
    new JsonLogger({ sink: sink.write, level: 'warn' }).error('loud');
    new JsonLogger({ sink: sink.write, level: 'debug' }).debug('detail');
    expect(sink.entries().map((e) => e.msg)).toEqual(['loud', 'detail']);
  });

  it('child loggers add bindings, keep the parent sink and level', () => {
    const logger = new CapturingLogger({ level: 'info' });
    const child = logger.child({ runId: 'r1' }).child({ phase: 'edit' });
    child.debug('hidden');
    child.warn('budget', { used: 2 });
    expect(logger.entries()).toEqual([{ level: 'warn', time: '1970-01-01T00:00:00.000Z', msg: 'budget', runId: 'r1', phase: 'edit', used: 2 }]);
  });

  it('metadata cannot forge level, time or msg', () => {
    const logger = new CapturingLogger();
    logger.info('real', { level: 'error', msg: 'fake' });
    expect(logger.entries()[0]).toMatchObject({ level: 'info', msg: 'real', 'meta.level': 'error', 'meta.msg': 'fake' });
  });

  it('redacts registered secrets anywhere: message, nested metadata, arrays, keys, error messages and stacks', () => {
    const secret = 'hunter2-very-secret-value';
    const logger = new CapturingLogger({ secrets: [secret] });
    const child = logger.child({ scope: 'x' });
    const late = 'registered-later-0042';
    child.redact(late); // a child's registration protects the parent too
    logger.error(`failed with ${secret}`, {
      deep: { a: [{ b: `prefix ${secret} suffix` }], [secret]: 1 },
      err: new AgentError('X', `boom ${late}`, { detail: late }),
    });
    child.info('again', { v: late });
    const text = logger.captured.text();
    expect(text).not.toContain(secret);
    expect(text).not.toContain(late);
    const [first, second] = logger.entries();
    expect(first.msg).toBe(`failed with ${REDACTED}`);
    expect(first.deep).toEqual({ a: [{ b: `prefix ${REDACTED} suffix` }], [REDACTED]: 1 });
    expect(first.err).toMatchObject({ name: 'AgentError', reason: 'X', message: `boom ${REDACTED}`, data: { detail: REDACTED } });
    expect(second.v).toBe(REDACTED);
  });

  it('redacts the base64 form of a registered secret', () => {
    const secret = 'token-value-for-base64';
    const logger = new CapturingLogger({ secrets: [secret] });
    logger.info('blob', { content: Buffer.from(secret).toString('base64') });
    expect(logger.captured.text()).not.toContain(Buffer.from(secret).toString('base64').replace(/=+$/, ''));
  });

  it.each([
    ['installation token', `cloning with ${GHS} now`],
    ['personal token', `token ${GHP}`],
    ['fine-grained PAT', `pat=${PAT}`],
    ['token in a URL', `https://x-access-token:${GHS}@github.com/o/r.git`],
    ['password in a URL', 'https://bob:correct-horse@example.com/repo.git'],
    ['bearer header value', 'Bearer eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOjF9.c2lnbmF0dXJl'],
    ['PEM block', `key:\n${PEM}\nafter`],
    ['PEM block cut short', '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC'],
  ])('redacts by pattern: %s', (_name, text) => {
    const logger = new CapturingLogger();
    logger.info(text, { nested: { again: text } });
    const out = logger.captured.text();
    expect(out).toContain(REDACTED);
    for (const leak of [GHS, GHP, PAT, 'correct-horse', 'MIIEowIBAAKCAQEAtop', 'secretline', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', 'c2lnbmF0dXJl']) {
      expect(out).not.toContain(leak);
    }
    if (text.startsWith('key:')) expect(logger.entries()[0].msg).toBe(`key:\n${REDACTED}\nafter`);
  });

  it('redacts values under credential-named keys, whatever their shape', () => {
    const logger = new CapturingLogger();
    logger.info('request', {
      headers: { Authorization: 'token abc', 'x-github-token': 'zzz', accept: 'json' },
      token: { nested: 'object' },
      password: 'p',
      privateKey: 'not-a-pem',
      private_key: 'also',
      clientSecret: 's',
      usage: { promptTokens: 10, maxTokens: 20 },
    });
    expect(logger.entries()[0]).toMatchObject({
      headers: { Authorization: REDACTED, 'x-github-token': REDACTED, accept: 'json' },
      token: REDACTED,
      password: REDACTED,
      privateKey: REDACTED,
      private_key: REDACTED,
      clientSecret: REDACTED,
      usage: { promptTokens: 10, maxTokens: 20 },
    });
  });

  it('serialises awkward values without throwing: cycles, bytes, bigint, dates, maps, undefined', () => {
    const logger = new CapturingLogger();
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    logger.info('odd', { cyclic, bytes: new Uint8Array(5), big: 10n, at: new Date(0), m: new Map([['k', 1]]), u: undefined, s: new Set([1]) });
    expect(logger.entries()[0]).toMatchObject({
      cyclic: { name: 'a', self: '[Circular]' },
      bytes: '[5 bytes]',
      big: '10',
      at: '1970-01-01T00:00:00.000Z',
      m: { k: 1 },
      s: [1],
    });
    expect(logger.entries()[0]).not.toHaveProperty('u');
  });

  it('ignores trivially short secret values that would shred ordinary text', () => {
    const logger = new CapturingLogger({ secrets: ['', 'a'] });
    logger.info('a normal message');
    expect(logger.entries()[0].msg).toBe('a normal message');
  });

  it('writes to stdout by default', () => {
    const writes: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string) => {
      writes.push(chunk);
      return true;
    }) as typeof process.stdout.write;
    try {
      new JsonLogger({ clock: { now: () => 0 } }).info('hello', { token: GHS });
    } finally {
      process.stdout.write = original;
    }
    expect(writes).toEqual([`{"level":"info","time":"1970-01-01T00:00:00.000Z","msg":"hello","token":"${REDACTED}"}\n`]);
  });
});
