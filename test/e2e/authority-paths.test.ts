import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mavenMultiModuleRepo } from '../fixtures/realistic-repos.js';
import { DEFAULT_POLICY, startAppHarness, type AppHarness } from '../helpers/app-harness.js';

/**
 * A custom `forbiddenPaths` entry holds whatever the case of the path (docs/trust-chain.md,
 * "Forbidden paths ignore case"): `Secrets/Legacy.java` is as forbidden as `secrets/**` says, so
 * a migration that would edit it publishes without it, and the refusal says which path and rule.
 */
describe('forbidden paths ignore case', () => {
  let h: AppHarness;

  beforeAll(async () => {
    const files = {
      ...mavenMultiModuleRepo(),
      'Secrets/Legacy.java': 'package secrets;\n\nimport javax.persistence.Entity;\n\n@Entity\npublic class Legacy {}\n',
    };
    const policy = DEFAULT_POLICY.replace('    - .github/workflows/**\n', '    - .github/workflows/**\n    - secrets/**\n');
    expect(policy).toContain('- secrets/**');
    h = await startAppHarness({ files, policy });
    await h.deliver('issues', h.payloads.labeled(1));
    await h.drain();
  }, 120_000);

  afterAll(async () => h?.stop());

  it('never publishes a file under Secrets/ when the policy forbids secrets/**', async () => {
    const keys = (await h.objects()).map((o) => o.key);
    const candidates = await Promise.all(keys.filter((k) => k.endsWith('/candidate/pr-candidate.json')).map((k) => h.json(k)));
    const changed = candidates.flatMap((c: { files: { path: string }[] }) => c.files.map((f) => f.path));
    expect(changed.filter((p) => p.toLowerCase().startsWith('secrets/'))).toEqual([]);
    const published = [...h.standin.repo(h.fullName).pulls.values()];
    for (const pr of published) expect(pr.body).not.toMatch(/Secrets\/Legacy\.java.*(changed|modified)/i);
    // The run still publishes what it may change.
    expect(changed).toContain('pom.xml');
  });
});
