import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readmePolicySection, withPolicySection } from '../../scripts/readme-policy-reference.js';

describe('README', () => {
  const readme = readFileSync('README.md', 'utf8');

  it('starts with the two commands that work on a fresh machine', () => {
    const block = readme.split('```')[1];
    expect(block).toContain('npm ci && npm run demo');
    expect(block).toContain('npm ci && npm test');
  });

  it('carries the policy reference generated from the schema (run `node --import tsx scripts/gen-schemas.ts`)', () => {
    expect(readme).toContain(readmePolicySection());
    expect(withPolicySection(readme)).toBe(readme);
    expect(readmePolicySection()).toContain('`triggers.minPermission`');
  });

  it('.ci/run calls the README test command', () => {
    expect(readFileSync('.ci/run', 'utf8')).toContain('npm ci && npm test');
  });
});
