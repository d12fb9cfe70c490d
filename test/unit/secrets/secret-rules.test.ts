import { describe, expect, it } from 'vitest';
import { redactSecrets, scanLines } from '../../../src/core/secrets/secret-scan.js';
import { CANARIES, canaryFile, KEY_BODY } from '../../fixtures/secret-canaries.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

const rules = defaultPathRules();

describe('secret rules for connection URLs, GitLab, DigitalOcean, Mailgun, Twilio, SSH2/PuTTY keys and .npmrc', () => {
  it.each(CANARIES.map((c) => [c.rule, c.line, c] as const))('finds %s in %s', (rule, _line, canary) => {
    const findings = scanLines(canary.path, [{ line: 3, text: canary.line }], rules);
    expect(findings.map((f) => f.rule)).toContain(rule);
    for (const f of findings) expect(f.redactedPreview).not.toContain(canary.value);
    expect(redactSecrets(canary.line, { path: canary.path, rules }).text).not.toContain(canary.value);
  });

  it('redacts a URL password only, keeping scheme, user and host readable', () => {
    expect(redactSecrets(CANARIES[0].line, { path: 'config/app.yml', rules }).text).toBe('url: postgres://orders:****@db.internal:5432/orders');
  });

  it('redacts the body of SSH2 and PuTTY key blocks, not only their first line', () => {
    const { text } = redactSecrets(canaryFile(), { path: 'notes.txt', rules });
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
    [
      'an integrity hash',
      'index.html',
      '<script src="https://cdn.example.com/x.js" integrity="sha384-oqVuAfXRKap7fdgcCY5uykM6+R9GqQ8K/uxy9rx7HNQlGYl1kPzQho1wx4JwY8wC" crossorigin="anonymous"></script>',
    ],
    [
      'a lockfile integrity',
      'package-lock.json',
      '"integrity": "sha512-JhPBZVDLvD8IUH2WeKdWOsgzCQUQG8yT1gbQHA6G1T4+cmXafR4r5F8oRm3rJ6J0yT5wQm1GFNi1Jrm8wqA1hA=="',
    ],
    ['a URL with a port', 'config/app.yml', 'url: http://localhost:8080/orders?x=1'],
    ['a placeholder password in a URL', 'config/app.yml', 'url: postgres://orders:${DB_PASSWORD}@db:5432/orders'],
    ['a mail address', 'README.md', 'Write to mailto:ops@example.com or https://example.com/contact@team'],
    ['an npm registry without auth', '.npmrc', 'registry=https://registry.npmjs.org/'],
    ['an npm auth from the environment', '.npmrc', '//npm.internal/:_auth=${NPM_AUTH}'],
    ['a word that starts like a key', 'src/a.ts', 'const key-value-store-configuration-name = 1;'],
  ])('does not flag %s', (_name, path, text) => {
    expect(scanLines(path, [{ line: 1, text }], rules)).toEqual([]);
  });

  it('stays linear on long adversarial lines', () => {
    const lines = ['a.'.repeat(200_000), `x://${':'.repeat(200_000)}`, `${'password'.repeat(30_000)}`, `twilio${'-'.repeat(200_000)}`];
    for (const text of lines)
      expect(scanLines('a.env', [{ line: 1, text }], rules).every((f) => f.rule === 'high-entropy-string' || f.rule === 'password-assignment')).toBe(true);
  }, 20_000);
});

describe('what real repositories are full of is not a secret; real credentials still are', () => {
  const j = (...parts: string[]) => parts.join('');
  it.each([
    ['a pnpm packageManager integrity', 'package.json', `"packageManager": "pnpm@9.1.0+sha512.${'2c403d6594527287672b1f7056343a1f'.repeat(4)}"`],
    ['an image digest', 'Dockerfile', `FROM ghcr.io/renovatebot/base-image:13.89.1@sha256:${'98c3726a9c0b8f27e80913dfcd75346c'.repeat(2)} AS base`],
    ['a go.sum line outside a lockfile path', 'vendor/notes.txt', 'github.com/go-chi/chi/v5 v5.1.0 h1:acVI1TYaD+hhedDJ3r54HyA6sExp3HfXq7QWEEY/xMw='],
    ['an SRI hash with sha1', 'yarn.txt', 'integrity sha1-Zq8Xv2Lm9Tr4Kp7Wn3Bs6Yh1Gd5='],
    ['a pinned action (commit SHA)', '.github/workflows/ci.yml', '- uses: actions/checkout@34e114876b0b11c390a56381ad16ebd13914f8d5 # v4'],
    ['a 64-hex checksum', 'gradle/wrapper/gradle-wrapper.properties', 'distributionSha256Sum=ed1a8d686605fd7c23bdf62c7fc7add1c5b23b2bbc3721e661934ef4a4911d7c'],
    [
      'a URL with a commit hash in a comment',
      'src/a.go',
      '// See https://github.com/golang/go/blob/9fceb02d0ae598e95dc970b74767f19372d61af8/src/net/http/server.go#L100',
    ],
    ['a URL with an id in its path', 'README.md', 'https://gist.github.com/Zq8Xv2Lm9Tr4Kp7Wn3Bs6Yh1Gd5Fj0/raw/file.md'],
    [
      'an inline image in docs',
      'docs/logo.md',
      '![logo](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)',
    ],
    ['a UUID', 'src/a.ts', 'const id = "123e4567-e89b-12d3-a456-426614174000";'],
    ['a token placeholder', 'README.md', 'export GITHUB_TOKEN=<your-token>'],
    ['a filler token', 'docs/setup.md', `token: ${j('ghp_', 'x'.repeat(36))}`],
    ["AWS's documented example key id", 'docs/aws.md', `aws_access_key_id = ${j('AKIA', 'IOSFODNN7EXAMPLE')}`],
    ['a password that names an environment variable', 'src/db.ts', 'const password = "DB_PASSWORD";'],
    ['x-oauth-basic in a git URL', 'test/git.test.ts', "'git+https://hunter2:x-oauth-basic@github.com/foo/bar.git#develop'"],
    ['a shell path with a variable', 'mvnw', '      jarUrl="$MVNW_REPOURL/io/takari/maven-wrapper/0.5.6/maven-wrapper-0.5.6.jar"'],
    ['a package named like a password in a lockfile', 'pnpm-lock.yaml', "      '@inquirer/password': 5.1.1(@types/node@22.20.1)"],
    ['a word assigned to a secret-named key in config', 'tests/static/config.toml', 'SECRET_KEY="config"'],
    ['a fixed secret key in a test', 'tests.py', "        secret_key = 'predictable-key'"],
    ['an example token output in a README', 'README.rst', '    # eyJpZCI6NSwibmFtZSI6Iml0c2Rhbmdlcm91cyJ9.AmSPrPa_iZ6q-ERXXdQxt6ce8NEqt'],
  ])('does not flag %s', (_name, path, text) => {
    expect(scanLines(path, [{ line: 1, text }], rules)).toEqual([]);
  });

  it.each([
    ['a Slack webhook', 'config/alerts.json', j('"https://hooks.', 'slack.com/services/T0ABCDEF1/B0ABCDEFG2/', 'Zq8Xv2Lm9Tr4Kp7Wn3Bs6Yh1"'), 'slack-webhook'],
    ['an npm _authToken (UUID form)', '.npmrc', '//registry.npmjs.org/:_authToken=7d3f9a2c-5b1e-4c8d-9e6f-0a1b2c3d4e5f', 'npm-auth'],
    ['an npm token', '.github/workflows/publish.yml', j('NODE_AUTH_TOKEN: np', 'm_', 'Zq8Xv2Lm9Tr4Kp7Wn3Bs6Yh1Gd5Fj0Ab1Cd2'), 'npm-auth'],
    ['a Django SECRET_KEY', 'mysite/settings.py', "SECRET_KEY = 'k3#v9!x2@m7&q1(z8)w4-p6=r0+t5^y'", 'password-assignment'],
    ['a camelCase secret in code', 'src/jwt.ts', 'export const jwtSecret = "Zq8Xv2Lm/9Tr4Kp7Wn3+Bs6Yh1Gd5Fj0=";', 'password-assignment'],
    [
      'a signed URL query',
      'src/blob.ts',
      'const url = "https://acme.blob.core.windows.net/c/f?sv=2022&sig=Zq8Xv2Lm9Tr4Kp7Wn3Bs6Yh1Gd5Fj0";',
      'high-entropy-string',
    ],
    [
      'a one-line service-account key',
      'sa.json',
      j('  "private_key": "-----BEGIN ', 'PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n",'),
      'private-key',
    ],
  ])('finds %s', (_name, path, text, rule) => {
    const findings = scanLines(path, [{ line: 1, text }], rules);
    expect(findings.map((f) => f.rule)).toContain(rule);
  });

  it('leaves the body of a public key block alone, and follows a block only through consecutive lines', () => {
    const body = ['MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEApqREcFDt5vV21JVe2QNB', 'Edvzk6w36aNFhVGWN5toNJRjRJ6m4hIuG4KaXtDWVLjnvct6MYMfqhC79HAGwyF+'];
    const block = ['const key = `-----BEGIN PUBLIC KEY-----', ...body, '-----END PUBLIC KEY-----`;'].map((text, i) => ({ line: 10 + i, text }));
    expect(scanLines('src/hex.ts', block, rules)).toEqual([]);
    const gap = [block[0], { line: 20, text: body[0] }];
    expect(scanLines('src/hex.ts', gap, rules).map((f) => f.rule)).toEqual(['high-entropy-string']);
  });

  it('redacts a one-line private key up to its END marker, and the next line stays readable', () => {
    const key = j('"private_key": "-----BEGIN ', 'PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\n-----END PRIVATE KEY-----\\n",');
    const { text } = redactSecrets(`${key}\n"client_email": "a@b.iam.gserviceaccount.com"\n`, { path: 'sa.json', rules });
    expect(text).not.toContain('MIIEvQIBADANBgkqhkiG9w0BAQEFAASC');
    expect(text).toContain('"client_email": "a@b.iam.gserviceaccount.com"');
  });
});
