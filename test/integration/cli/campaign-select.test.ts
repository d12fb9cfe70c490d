import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git } from '../../fixtures/make-repo.js';
import { removeRoot, tempRoot } from '../pipeline/pipeline-harness.js';
import { cli, makeWorkingCopy } from './cli-harness.js';

/**
 * `draftsman campaign run` applies the spec's `repositories` to its --repos (docs/campaigns.md,
 * "From the CLI"): each checkout named by its origin remote, kept when listed or when it passes
 * `select.names` and `select.hasFile` on its HEAD commit; the others reported `unselected`, not run.
 */
const SPEC = `version: 1
name: jakarta
title: Move to Jakarta Persistence
task:
  steps:
    - recipe: replace
      find: javax.persistence
      replace: jakarta.persistence
      paths: [src]
repositories:
  list: [acme/legacy]
  select:
    names: ['acme/*-service']
    topics: [java]
    hasFile: { path: '**/pom.xml', contains: javax.persistence }
`;
const JAVA = { 'src/Order.java': 'import javax.persistence.Entity;\n' };

let root: string;
/** A working copy at `dir` with `files` committed and `origin` set to `remote`. */
function checkout(dir: string, files: Record<string, string>, remote: string): void {
  makeWorkingCopy(join(root, dir), files);
  git(['remote', 'add', 'origin', remote], { cwd: join(root, dir) });
}

beforeAll(() => {
  root = tempRoot('cli-campaign-select');
  writeFileSync(join(root, 'campaign.yaml'), SPEC);
  // Matches names and hasFile (the pom in a module, found by **/pom.xml).
  checkout('orders', { ...JAVA, 'svc/pom.xml': '<dependency>javax.persistence</dependency>\n' }, 'git@github.com:acme/orders-service.git');
  // Has the file, but its name is not acme/*-service.
  checkout('web', { ...JAVA, 'pom.xml': '<dependency>javax.persistence</dependency>\n' }, 'https://github.com/acme/web.git');
  // Matches names; its committed pom is migrated already. The working copy's edit does not count.
  checkout('billing', { ...JAVA, 'pom.xml': '<dependency>jakarta.persistence</dependency>\n' }, 'ssh://git@github.com/acme/billing-service');
  writeFileSync(join(root, 'billing', 'pom.xml'), '<dependency>javax.persistence</dependency>\n');
  // In the list only: neither the names nor hasFile would take it.
  checkout('legacy', JAVA, 'file:///srv/git/acme/legacy.git');
});
afterAll(() => removeRoot(root));

describe('draftsman campaign run with repositories', () => {
  it('runs the listed and selected repositories, reports the others unselected, and says what it cannot evaluate', async () => {
    const repos = ['orders', 'web', 'billing', 'legacy'].flatMap((r) => ['--repos', join(root, r)]);
    const out = join(root, 'out');
    const result = await cli(['campaign', 'run', 'campaign.yaml', ...repos, '--out', out, '--json'], { cwd: root });
    const byName = Object.fromEntries((result.json!.repositories as { name: string }[]).map((r) => [r.name, r]));
    expect(Object.keys(byName)).toEqual(['acme/orders-service', 'acme/web', 'acme/billing-service', 'acme/legacy']);
    expect(byName['acme/orders-service']).toMatchObject({ outcome: 'changed', status: 'COMPLETED' });
    expect(byName['acme/legacy']).toMatchObject({ outcome: 'changed', status: 'COMPLETED' });
    expect(byName['acme/web']).toMatchObject({
      outcome: 'unselected',
      condition: 'names',
      detail: 'names: acme/web matches none of acme/*-service',
      exitCode: 0,
    });
    expect(byName['acme/billing-service']).toMatchObject({
      outcome: 'unselected',
      condition: 'hasFile.contains',
      detail: expect.stringMatching(/^hasFile\.contains: /),
    });
    expect(result.json!.counts).toEqual({ changed: 2, unchanged: 0, declined: 0, failed: 0, unselected: 2 });
    expect(result.code).toBe(0);
    // A repository left out is not run: no run directory.
    expect(existsSync(join(out, 'web'))).toBe(false);
    expect(existsSync(join(out, 'billing'))).toBe(false);
    expect(existsSync(join(out, 'orders'))).toBe(true);
    // One sentence for the conditions only GitHub knows; a progress line per repository.
    expect(result.stderr.match(/GitHub metadata/g)).toHaveLength(1);
    expect(result.stderr).toContain('repositories.select.topics is GitHub metadata the CLI cannot evaluate');
    expect(result.stderr).toMatch(/\[\d\/4\] .*web: unselected \(names: acme\/web matches none of acme\/\*-service\)/);
  }, 240_000);

  it('shows unselected repositories in the table; a URL is named by its path and not read for hasFile', async () => {
    const result = await cli(['campaign', 'run', 'campaign.yaml', '--repos', join(root, 'web'), '--repos', 'https://127.0.0.1:9/acme/api-service.git'], {
      cwd: root,
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^campaign jakarta: 0 changed, 0 unchanged, 0 declined, 0 failed, 2 unselected/);
    expect(result.stdout).toMatch(/\| .*web \| unselected \| UNSELECTED \| +\| names: acme\/web matches none/);
    expect(result.stdout).toMatch(/\| https:\/\/127\.0\.0\.1:9\/acme\/api-service\.git \| unselected \| UNSELECTED \| +\| hasFile: not evaluated on a URL/);
  });
});
