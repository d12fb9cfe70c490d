import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBundledApp, type BundledApp } from '../../helpers/bundle/bundled-app.js';

let app: BundledApp;
beforeAll(async () => {
  app = await startBundledApp();
}, 120_000);
afterAll(async () => app?.stop());

describe('bundle smoke', () => {
  it('bundle: label to draft PR', async () => {
    const labeled = app.payloads.labeled(1);
    const ack = await app.processes.webhook.invoke(await app.webhookEvent('issues', labeled));
    console.log(JSON.stringify(ack));
    const ran = await app.drain();
    console.log(JSON.stringify(ran, null, 1));
    for (const p of Object.values(app.processes)) console.log(p.name, p.logs.slice(-5).join('\n'));
    expect(ack.ok).toBe(true);
  }, 120_000);
});
