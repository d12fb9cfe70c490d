import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APP_EVENTS, APP_PERMISSIONS, missingGrants } from '../../../src/app/github/app-grants.js';

const appYml = parse(readFileSync('app.yml', 'utf8')) as { default_permissions: Record<string, string>; default_events: string[] };

describe('the grants the App asks for', () => {
  it("are app.yml's permissions and events, which register the App", () => {
    expect(APP_PERMISSIONS).toEqual(appYml.default_permissions);
    expect([...APP_EVENTS].sort()).toEqual([...appYml.default_events].sort());
  });

  it('names each permission granted below what is asked (write covers read, admin covers write) and each event not delivered', () => {
    const missing = missingGrants({
      permissions: { ...APP_PERMISSIONS, contents: 'admin', pull_requests: 'read', actions: undefined as never },
      events: APP_EVENTS.filter((e) => e !== 'check_suite' && e !== 'push'),
    });

    expect(missing).toEqual({
      permissions: [
        { name: 'actions', wanted: 'read' },
        { name: 'pull_requests', wanted: 'write', granted: 'read' },
      ],
      events: ['check_suite', 'push'],
    });
    expect(missingGrants({ permissions: { ...APP_PERMISSIONS }, events: [...APP_EVENTS] })).toEqual({ permissions: [], events: [] });
  });
});
