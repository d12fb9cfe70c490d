import { describe, expect, it } from 'vitest';
import { redactSecrets, scanLines } from '../../../src/core/git/secret-scan.js';
import { CANARIES, canaryFile, KEY_BODY } from '../../fixtures/secret-canaries.js';

describe('secret rules for connection URLs, GitLab, DigitalOcean, Mailgun, Twilio, SSH2/PuTTY keys and .npmrc', () => {
  it.each(CANARIES.map((c) => [c.rule, c.line, c] as const))('finds %s in %s', (rule, _line, canary) => {
    const findings = scanLines(canary.path, [{ line: 3, text: canary.line }]);
    expect(findings.map((f) => f.rule)).toContain(rule);
    for (const f of findings) expect(f.redactedPreview).not.toContain(canary.value);
    expect(redactSecrets(canary.line, canary.path).text).not.toContain(canary.value);
  });

  it('redacts a URL password only, keeping scheme, user and host readable', () => {
    expect(redactSecrets(CANARIES[0].line, 'config/app.yml').text).toBe('url: postgres://orders:****@db.internal:5432/orders');
  });

  it('redacts the body of SSH2 and PuTTY key blocks, not only their first line', () => {
    const { text } = redactSecrets(canaryFile(), 'notes.txt');
    for (const c of CANARIES) expect(text).not.toContain(c.value);
    for (const line of KEY_BODY) expect(text).not.toContain(line);
    expect(text).toContain('Private-MAC: ****');
    expect(text.endsWith('done: true\n')).toBe(true);
  });

  it.each([
    ['a URL with a user and no password', 'src/a.ts', 'git clone https://deploy@github.com/acme/orders.git'],
    ['an SSH remote', '.gitmodules', 'url = git@github.com:acme/orders.git'],
    ['an XML namespace', 'pom.xml', '<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">'],
    ['a schema location pair', 'pom.xml', 'xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd"'],
    ['an integrity hash', 'index.html', '<script src="https://cdn.example.com/x.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"></script>'],
    ['a lockfile integrity', 'package-lock.json', '"integrity": "sha512-JhPBZVDLvD8IUH2WeKdWOsgzCQUQG8yT1gbQHA6G1T4+cmXafR4r5F8oRm3rJ6J0yT5wQm1GFNi1Jrm8wqA1hA=="'],
    ['a URL with a port', 'config/app.yml', 'url: http://localhost:8080/orders?x=1'],
    ['a placeholder password in a URL', 'config/app.yml', 'url: postgres://orders:${DB_PASSWORD}@db:5432/orders'],
    ['a mail address', 'README.md', 'Write to mailto:ops@example.com or https://example.com/contact@team'],
    ['an npm registry without auth', '.npmrc', 'registry=https://registry.npmjs.org/'],
    ['an npm auth from the environment', '.npmrc', '//npm.internal/:_auth=${NPM_AUTH}'],
    ['a word that starts like a key', 'src/a.ts', 'const key-value-store-configuration-name = 1;'],
  ])('does not flag %s', (_name, path, text) => {
    expect(scanLines(path, [{ line: 1, text }])).toEqual([]);
  });

  it('stays linear on long adversarial lines', () => {
    const lines = ['a.'.repeat(200_000), `x://${':'.repeat(200_000)}`, `${'password'.repeat(30_000)}`, `twilio${'-'.repeat(200_000)}`];
    for (const text of lines) expect(scanLines('a.env', [{ line: 1, text }]).every((f) => f.rule === 'high-entropy-string' || f.rule === 'password-assignment')).toBe(true);
  }, 20_000);
});
