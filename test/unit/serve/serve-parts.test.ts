import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { deliveryKey, runKeys } from '../../../src/core/artifacts/keys.js';
import { CapturingLogger } from '../../../src/app/logger.js';
import { LocalArtifactStore } from '../../../src/app/local/local-artifact-store.js';
import { NotifyingStore } from '../../../src/app/serve/notifying-store.js';
import { SerialQueue } from '../../../src/app/serve/serial-queue.js';
import { loadDotEnv, readServeSettings, ServeError } from '../../../src/app/serve/serve-settings.js';
import { SERVE_RETRIES } from '../../../src/app/serve/start-serve.js';
import { functionForKey } from '../../../src/app/serve/trigger-route.js';

const PEM = generateKeyPairSync('rsa', {
  modulusLength: 1024,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
}).privateKey;
const BASE = { APP_ID: '31', WEBHOOK_SECRET: 'serve-secret-0123' };
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'serve-unit-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('serve settings, read the way Probot reads them', () => {
  it('serve takes PRIVATE_KEY with escaped newlines, as a one-line .env holds it', () => {
    const settings = readServeSettings({ ...BASE, PRIVATE_KEY: PEM.trim().replace(/\n/g, '\\n') }, tempDir());
    expect(settings.privateKey.trim()).toBe(PEM.trim());
    expect(settings).toMatchObject({
      APP_ID: 31,
      apiUrl: 'https://api.github.com',
      WEBHOOK_PATH: '/api/github/webhooks',
      PORT: 3000,
      HOST: '127.0.0.1',
      GITHUB_APP_SLUG: 'draftsman',
    });
  });

  it('serve reads PRIVATE_KEY_PATH relative to the working directory', () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, 'key.pem'), PEM);
    expect(readServeSettings({ ...BASE, PRIVATE_KEY_PATH: 'key.pem' }, cwd).privateKey.trim()).toBe(PEM.trim());
  });

  it('serve builds the API URL from GHE_HOST, and GITHUB_API_URL wins over it', () => {
    const cwd = tempDir();
    expect(readServeSettings({ ...BASE, PRIVATE_KEY: PEM, GHE_HOST: 'github.example.com' }, cwd).apiUrl).toBe('https://github.example.com/api/v3');
    expect(readServeSettings({ ...BASE, PRIVATE_KEY: PEM, GHE_HOST: 'github.example.com', GITHUB_API_URL: 'http://127.0.0.1:9/api/' }, cwd).apiUrl).toBe(
      'http://127.0.0.1:9/api',
    );
  });

  it('serve refuses to start without a key or a secret, naming the variable and never its value', () => {
    const noKey = (() => {
      try {
        readServeSettings(BASE, tempDir());
      } catch (error) {
        return error;
      }
    })();
    expect(noKey).toBeInstanceOf(ServeError);
    expect((noKey as ServeError).reason).toBe('SERVE_PRIVATE_KEY_MISSING');
    const short = (() => {
      try {
        readServeSettings({ APP_ID: 'x', WEBHOOK_SECRET: 'short', PRIVATE_KEY: PEM }, tempDir());
      } catch (error) {
        return error as ServeError;
      }
    })();
    expect(short?.reason).toBe('SERVE_CONFIG_INVALID');
    expect(short?.data.variables).toEqual(['APP_ID', 'WEBHOOK_SECRET']);
    expect(JSON.stringify(short)).not.toContain('short"');
  });

  it('serve reads .env under the process environment: a variable already set wins', () => {
    const cwd = tempDir();
    writeFileSync(join(cwd, '.env'), 'APP_ID=1\nWEBHOOK_SECRET="from file"\nPORT=4000\n');
    expect(loadDotEnv({ APP_ID: '2', PORT: undefined }, join(cwd, '.env'))).toEqual({ APP_ID: '2', WEBHOOK_SECRET: 'from file', PORT: '4000' });
    expect(loadDotEnv({ APP_ID: '2' }, join(cwd, 'absent.env'))).toEqual({ APP_ID: '2' });
  });
});

describe('serve routing of written keys', () => {
  const keys = runKeys('acme', 'orders', 'abcdefghijkl');
  it('serve sends stored deliveries to the intake, run triggers to the worker, candidates and CI records to the publisher, the rest nowhere', () => {
    expect(functionForKey(deliveryKey('72d3162e-cc78-11e3-81ab-4c9367dc0958'))).toBe('intake');
    expect(functionForKey('deliveries/nested/x.json')).toBeUndefined();
    expect(functionForKey(keys.request)).toBe('worker');
    expect(functionForKey(keys.attempt(2).request)).toBe('worker');
    expect(functionForKey(keys.attempt(1).continue(1))).toBe('worker');
    expect(functionForKey(keys.candidate.prCandidate)).toBe('publisher');
    expect(functionForKey(keys.ci('poll-abc'))).toBe('publisher');
    for (const other of [
      keys.run,
      keys.publish,
      keys.attempt(1).lease,
      keys.candidate.prBody,
      keys.attempt(1).request,
      'runs/acme/orders/NOT-A-RUN-ID/request.json',
    ])
      expect(functionForKey(other)).toBeUndefined();
  });
});

describe('serve store notifications', () => {
  it('serve is told of every object written, and not of a conditional write that wrote nothing', async () => {
    const seen: string[] = [];
    const store = new NotifyingStore(new LocalArtifactStore(tempDir()), (key) => seen.push(key));
    const etag = await store.put('a/one.json', '1');
    expect(await store.putIfAbsent('a/two.json', '2')).toBe(true);
    expect(await store.putIfAbsent('a/two.json', '3')).toBe(false);
    expect(await store.putIfMatch('a/one.json', '4', 'not-the-etag')).toBe(false);
    expect(await store.putIfMatch('a/one.json', '5', etag)).toBe(true);
    await store.delete('a/two.json');
    expect(seen).toEqual(['a/one.json', 'a/two.json', 'a/one.json']);
    expect(await store.list('a/')).toEqual(['a/one.json']);
  });
});

describe('serve queue', () => {
  it('serve runs tasks one at a time in order; a failing one is logged and the next still runs', async () => {
    const logger = new CapturingLogger();
    const queue = new SerialQueue(logger);
    const events: string[] = [];
    let running = 0;
    const task =
      (name: string, fail = false) =>
      async () => {
        running += 1;
        expect(running).toBe(1);
        events.push(`start ${name}`);
        await new Promise((r) => setTimeout(r, 5));
        events.push(`end ${name}`);
        running -= 1;
        if (fail) throw new Error(`${name} broke`);
      };
    queue.push('a', task('a'));
    queue.push('b', task('b', true));
    queue.push('c', async () => {
      await task('c')();
      // Work a task queues (a store write) runs after it, before idle() resolves.
      queue.push('d', task('d'));
    });
    expect(queue.size).toBe(3);
    await queue.idle();
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b', 'start c', 'end c', 'start d', 'end d']);
    expect(queue.history()).toEqual([
      { label: 'a', ok: true },
      { label: 'b', ok: false, error: 'b broke' },
      { label: 'c', ok: true },
      { label: 'd', ok: true },
    ]);
    expect(
      logger
        .entries()
        .filter((e) => e.level === 'error')
        .map((e) => e.task),
    ).toEqual(['b']);
    expect(queue.size).toBe(0);
    await queue.idle();
  });
});

describe('serve retries', () => {
  it('serve re-runs a failed intake, worker, publisher or sweeper as often as the deployment does (serverless.yml)', () => {
    // CloudFormation tags (!Sub, !GetAtt) are irrelevant here: read them as plain values.
    const tags = ['Sub', 'GetAtt', 'Ref', 'If', 'Equals', 'Not', 'Join', 'Select', 'Split', 'ImportValue'].flatMap((name) => [
      { tag: `!${name}`, resolve: (v: unknown) => v },
      { tag: `!${name}`, collection: 'seq' as const, resolve: (v: unknown) => v },
      { tag: `!${name}`, collection: 'map' as const, resolve: (v: unknown) => v },
    ]);
    const functions = (
      parse(readFileSync('serverless.yml', 'utf8'), { customTags: tags, logLevel: 'silent' }) as {
        functions: Record<string, { maximumRetryAttempts?: number }>;
      }
    ).functions;
    expect(SERVE_RETRIES).toEqual({
      intake: functions.intake.maximumRetryAttempts,
      worker: functions.worker.maximumRetryAttempts,
      publisher: functions.publisher.maximumRetryAttempts,
      sweeper: functions.sweeper.maximumRetryAttempts,
    });
  });
});
