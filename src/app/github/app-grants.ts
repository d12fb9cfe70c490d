/**
 * What the App asks GitHub for: app.yml's `default_permissions` and `default_events`, which
 * register it (test/unit/github/app-grants.test.ts keeps the two equal). The intake holds an
 * installation's grants against these (webhook/installation-grants.ts).
 */
export const APP_PERMISSIONS: Readonly<Record<string, 'read' | 'write'>> = Object.freeze({
  contents: 'write',
  pull_requests: 'write',
  issues: 'write',
  checks: 'read',
  statuses: 'read',
  actions: 'read',
  metadata: 'read',
});

export const APP_EVENTS: readonly string[] = Object.freeze([
  'issues',
  'issue_comment',
  'pull_request_review',
  'pull_request_review_comment',
  'check_suite',
  'status',
  'pull_request',
  'push',
]);

const LEVEL: Readonly<Record<string, number>> = { read: 1, write: 2, admin: 3 };

export interface MissingGrants {
  /** Each permission granted below what the App asks for (`granted` absent: not at all), by name. */
  permissions: { name: string; wanted: 'read' | 'write'; granted?: string }[];
  /** Events the App subscribes to that the installation does not deliver, sorted. */
  events: string[];
}

/** What an installation's grants lack of the App's (empty lists: nothing). */
export function missingGrants(granted: { permissions: Record<string, string>; events: readonly string[] }): MissingGrants {
  const permissions = Object.entries(APP_PERMISSIONS)
    .filter(([name, wanted]) => (LEVEL[granted.permissions[name] ?? ''] ?? 0) < LEVEL[wanted])
    .map(([name, wanted]) => ({ name, wanted, ...(granted.permissions[name] ? { granted: granted.permissions[name] } : {}) }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
  const events = APP_EVENTS.filter((e) => !granted.events.includes(e)).sort();
  return { permissions, events };
}

export function nothingMissing(missing: MissingGrants): boolean {
  return missing.permissions.length === 0 && missing.events.length === 0;
}
