import { describe, expect, it } from 'vitest';
import { redactSecrets, SCAN_WINDOW, scanChanges, scanLines, shannonEntropy } from '../../../src/core/secrets/secret-scan.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

// Key-shaped strings are assembled at test time so that no literal secret is ever committed.
const j = (...parts: string[]) => parts.join('');
const AWS_ID = j('AKIA', 'Q3MZT7WBV', 'N2KD4PJ');
const AWS_SECRET = j('q8Rk2Vn/Tz5Lw+Xb7Yc1Md', '9Pf4Hs6Gj3Ua0Ee8Ni');
// The pair AWS publishes in its documentation as keys that never work.
const AWS_DOC_ID = j('AKIA', 'IOSFODNN7', 'EXAMPLE');
const AWS_DOC_SECRET = j('wJalrXUtnFEMI/K7MDENG/', 'bPxRfiCYEXAMPLEKEY');
const GHP = j('ghp', '_', 'aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5');
const PAT = j('github', '_pat_', '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz');
const SLACK = j('xox', 'b-', '1234567890-abcdefghijklmn');
const STRIPE = j('sk', '_live_', '4eC39HqLyjWDarjtT1zdp7dc');
const RANDOM = j('Zq8Xv2Lm', '9Tr4Kp7Wn3', 'Bs6Yh1Gd5Fj0');

const scan = (path: string, text: string) => scanLines(path, [{ line: 7, text }], defaultPathRules());

describe('secret scanner', () => {
  const utf16 = (text: string, le: boolean, bom: boolean) => {
    const out = new Uint8Array((text.length + (bom ? 1 : 0)) * 2);
    const units = [...(bom ? [0xfeff] : []), ...Array.from(text, (c) => c.charCodeAt(0))];
    units.forEach((u, i) => {
      out[2 * i + (le ? 0 : 1)] = u & 0xff;
      out[2 * i + (le ? 1 : 0)] = u >> 8;
    });
    return out;
  };
  it.each([
    ['UTF-16LE with a byte-order mark', utf16(`# settings\ntoken = "${GHP}"\n`, true, true)],
    ['UTF-16LE without one', utf16(`# settings\ntoken = "${GHP}"\n`, true, false)],
    ['UTF-16BE', utf16(`# settings\ntoken = "${GHP}"\n`, false, true)],
    ['text behind a NUL byte', new TextEncoder().encode(`\0\0binary?\ntoken = "${GHP}"\n`)],
  ])('finds a token in %s at publication, where a NUL byte once hid the file', (_name, bytes) => {
    expect(scanChanges([{ path: 'config/settings.txt', newBytes: bytes }], defaultPathRules()).map((f) => f.rule)).toContain('github-token');
  });

  it.each([
    ['far along a long line', 30_000],
    ['across the edge of a scan window', SCAN_WINDOW - 20],
    ['in the last window of a very long line', 5 * SCAN_WINDOW + 7],
  ])('finds and redacts a token %s', (_name, column) => {
    const line = `${'a'.repeat(column)} t="${GHP}" ${'b'.repeat(100)}`;
    expect(scan('src/bundle.js', line).map((f) => f.rule)).toEqual(['github-token']);
    const { text } = redactSecrets(`${line}\n`);
    expect(text).not.toContain(GHP);
    expect(text.length).toBeGreaterThan(column);
  });

  it.each([
    ['src/a.ts', `const id = "${AWS_ID}";`, 'aws-access-key-id'],
    ['config/aws.yml', `aws_secret_access_key: ${AWS_SECRET}`, 'aws-secret-access-key'],
    ['src/a.ts', `token = '${GHP}'`, 'github-token'],
    ['src/a.ts', `const t = "${PAT}"`, 'github-token'],
    ['key.pem', j('-----BEGIN RSA ', 'PRIVATE KEY-----'), 'private-key'],
    ['key.pem', j('-----BEGIN ', 'PRIVATE KEY-----'), 'private-key'],
    ['src/a.py', `SLACK = "${SLACK}"`, 'slack-token'],
    ['src/a.rb', `Stripe.api_key = "${STRIPE}"`, 'stripe-key'],
    ['config/app.yml', 'password: hunter2hunter2', 'password-assignment'],
    ['app.properties', 'db.secret=s3cr3tValue', 'password-assignment'],
    ['src/Db.java', 'String password = "correct-horse-battery";', 'password-assignment'],
    ['src/a.ts', `const blob = "${RANDOM}";`, 'high-entropy-string'],
  ])('finds %s: %s', (path, text, rule) => {
    const findings = scan(path, text);
    expect(findings.map((f) => f.rule)).toContain(rule);
    const finding = findings.find((f) => f.rule === rule)!;
    expect(finding).toMatchObject({ path, line: 7 });
    for (const secret of [AWS_ID, AWS_SECRET, GHP, PAT, SLACK, STRIPE, RANDOM, 'hunter2hunter2', 's3cr3tValue', 'correct-horse-battery']) {
      expect(finding.redactedPreview).not.toContain(secret);
    }
  });

  it.each([
    ['package-lock.json', '"integrity": "sha512-JhPBZVDLvD8IUH2WeKdWOsgzCQUQG8yT1gbQHA6G1T4+cmXafR4r5F8oRm3rJ6J0yT5wQm1GFNi1Jrm8wqA1hA=="'],
    ['package-lock.json', '"resolved": "git+ssh://git@github.com/o/r.git#9fceb02d0ae598e95dc970b74767f19372d61af8"'],
    ['src/a.ts', 'const id = "123e4567-e89b-12d3-a456-426614174000";'],
    ['src/a.ts', 'export function getUserAccountSettingsForCurrentTenant() {}'],
    ['config/app.yml', 'password: ${DB_PASSWORD}'],
    ['config/app.yml', 'api_key: <your-api-key>'],
    ['.github/x.yml', 'token: ${{ secrets.GITHUB_TOKEN }}'],
    ['src/Db.java', 'String password = request.getParameter("password");'],
    ['README.md', 'Set the password in the settings page, then restart the service.'],
    ['src/a.ts', 'import { something } from "../../components/SomethingVeryLongName";'],
    ['docs/aws.md', `export AWS_ACCESS_KEY_ID=${AWS_DOC_ID}`],
    ['docs/aws.md', `aws_secret_access_key = ${AWS_DOC_SECRET}`],
    ['README.md', 'GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'],
  ])('does not flag %s: %s', (path, text) => {
    expect(scan(path, text)).toEqual([]);
  });

  it('scans only added lines and flags an added .env file', () => {
    const enc = (s: string) => new TextEncoder().encode(s);
    const old = enc(`a\nconst t = "${GHP}";\n`);
    expect(scanChanges([{ path: 'src/a.ts', oldBytes: old, newBytes: enc(`a\nb\nconst t = "${GHP}";\n`) }], defaultPathRules())).toEqual([]);
    const added = scanChanges([{ path: 'src/a.ts', oldBytes: enc('a\n'), newBytes: enc(`a\nconst t = "${GHP}";\n`) }], defaultPathRules());
    expect(added).toEqual([{ path: 'src/a.ts', line: 2, rule: 'github-token', redactedPreview: 'const t = "ghp_****";' }]);
    expect(scanChanges([{ path: '.env', newBytes: enc('DEBUG=1\n') }], defaultPathRules()).map((f) => f.rule)).toEqual(['dotenv-file']);
    expect(scanChanges([{ path: '.env.example', newBytes: enc('DEBUG=1\n') }], defaultPathRules())).toEqual([]);
  });

  it('redacts secrets from text before it goes to a model', () => {
    const { text, findings } = redactSecrets(`line one\nuse ${GHP} and ${AWS_ID}\n`);
    expect(text).toBe('line one\nuse ghp_**** and AKIA****\n');
    expect(findings.map((f) => [f.line, f.rule])).toEqual([
      [2, 'github-token'],
      [2, 'aws-access-key-id'],
    ]);
  });

  it('computes Shannon entropy in bits per character', () => {
    expect(shannonEntropy('aaaa')).toBe(0);
    expect(shannonEntropy('abcd')).toBe(2);
  });
});
