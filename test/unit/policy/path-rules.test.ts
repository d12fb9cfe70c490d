import { describe, expect, it } from 'vitest';
import { defaultPolicy } from '../../../src/core/policy/agent-policy.js';
import { compilePathRules, expandGlob, matchesAny } from '../../../src/core/policy/compile-path-rules.js';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';
import { PathError } from '../../../src/core/errors.js';

const policy = parsePolicy({
  text: `version: 1
agent:
  forbiddenPaths: [secrets, "**/*.pem", "infra/prod/"]
  requireApprovalFor: [pom.xml, "db/migrations/**"]
  allowedPaths: [src, pom.xml, .config]
  riskRules:
    - {glob: "src/**", level: LOW, reason: source}
    - {glob: "src/auth/**", level: HIGH, reason: authentication}
    - {glob: "src/auth/**", level: MEDIUM, reason: later and lower}
`,
});
const rules = compilePathRules(policy);

describe('expandGlob', () => {
  it.each([
    ['src', ['src', 'src/**']],
    ['pom.xml', ['pom.xml', 'pom.xml/**']],
    ['infra/prod/', ['infra/prod/**']],
    ['./docs', ['docs', 'docs/**']],
    ['src/**/*.ts', ['src/**/*.ts']],
    ['packages/@scope/x', ['packages/@scope/x', 'packages/@scope/x/**']],
    ['src/{a,b}', ['src/{a,b}']],
  ])('%s -> %j', (glob, expected) => {
    expect(expandGlob(glob)).toEqual(expected);
  });
});

describe('compilePathRules', () => {
  it.each([
    // path, forbidden, approval, allowed
    ['secrets/prod.env', true, false, false],
    ['secrets', true, false, false],
    ['secretsauce/x', false, false, false],
    ['src/keys/server.pem', true, false, true],
    ['infra/prod/main.tf', true, false, false],
    ['infra/production/main.tf', false, false, false],
    ['pom.xml', false, true, true],
    ['module/pom.xml', false, false, false],
    ['db/migrations/001.sql', false, true, false],
    ['src/main/App.java', false, false, true],
    ['.config/tool.json', false, false, true],
    ['src/.hidden/file.ts', false, false, true],
  ])('%s: forbidden %s, approval %s, allowed %s', (path, forbidden, approval, allowed) => {
    expect(rules.isForbidden(path)).toBe(forbidden);
    expect(rules.requiresApproval(path)).toBe(approval);
    expect(rules.isAllowed(path)).toBe(allowed);
  });

  it('always forbids workflows, even when the policy list omits them, in any letter case', () => {
    expect(policy.agent.forbiddenPaths).not.toContain('.github/workflows/**');
    expect(rules.isForbidden('.github/workflows/ci.yml')).toBe(true);
    expect(rules.isForbidden('.GitHub/Workflows/ci.yml')).toBe(true);
    expect(rules.isForbidden('.github/CODEOWNERS')).toBe(false);
  });

  it('forbids workflows and the policy file itself by default', () => {
    const defaults = compilePathRules(defaultPolicy());
    expect(defaults.isForbidden('.github/workflows/deploy.yaml')).toBe(true);
    expect(defaults.isForbidden('.agent-policy.yaml')).toBe(true);
    expect(defaults.isForbidden('src/index.ts')).toBe(false);
    expect(defaults.isAllowed('anything/at/all.txt')).toBe(true);
  });

  it('matches dot files and dot directories with **', () => {
    expect(matchesAny(['**/*.env'], '.env')).toBe(true);
    expect(matchesAny(['config/**'], 'config/.secret/key')).toBe(true);
    expect(matchesAny(['*'], '.eslintrc')).toBe(true);
  });

  it('normalises before matching: ./, duplicate slashes', () => {
    expect(rules.isForbidden('./secrets//a.txt')).toBe(true);
    expect(matchesAny(['src/**'], 'src/./a/b.ts')).toBe(true);
  });

  it.each([
    ['../secrets/x', 'PATH_DOT_DOT'],
    ['src/../../etc/passwd', 'PATH_DOT_DOT'],
    ['/etc/passwd', 'PATH_ABSOLUTE'],
    ['C:/x', 'PATH_ABSOLUTE'],
    ['src/a\u0000.ts', 'PATH_NUL'],
    ['src\\a.ts', 'PATH_BACKSLASH'],
    ['.git/config', 'PATH_DOT_GIT'],
    ['', 'PATH_EMPTY'],
  ])('refuses %j before matching (%s)', (path, reason) => {
    for (const check of [rules.isForbidden, rules.isAllowed, rules.requiresApproval, rules.isLockfile, rules.isGenerated, rules.riskFor]) {
      let caught: unknown;
      try {
        check(path);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(PathError);
      expect((caught as PathError).reason).toBe(reason);
    }
    expect(() => matchesAny(['**'], path)).toThrow(PathError);
  });

  it('recognises default lockfiles and generated files at any depth', () => {
    const defaults = compilePathRules(defaultPolicy());
    for (const path of ['package-lock.json', 'web/yarn.lock', 'pnpm-lock.yaml', 'go.sum', 'crates/x/Cargo.lock', 'poetry.lock', 'Gemfile.lock', 'composer.lock', 'app/gradle.lockfile']) {
      expect(defaults.isLockfile(path)).toBe(true);
      expect(defaults.editBlock(path)).toBe('LOCKFILE');
    }
    for (const path of ['src/generated/Api.java', 'web/dist/app.js', 'static/app.min.js', 'api/v1/service.pb.go', 'models_generated.go', 'dist/index.js']) {
      expect(defaults.isGenerated(path)).toBe(true);
      expect(defaults.editBlock(path)).toBe('GENERATED');
    }
    expect(defaults.isLockfile('package.json')).toBe(false);
    expect(defaults.isGenerated('src/generator.ts')).toBe(false);
    expect(defaults.editBlock('src/index.ts')).toBeUndefined();
  });

  it('lets lockfiles and generated files through when the edit rules allow them', () => {
    const open = compilePathRules(parsePolicy({ text: 'version: 1\neditRules: {lockfiles: {default: allowed}, generatedFiles: {default: allowed}}\n' }));
    expect(open.isLockfile('package-lock.json')).toBe(true);
    expect(open.editBlock('package-lock.json')).toBeUndefined();
    expect(open.editBlock('dist/app.js')).toBeUndefined();
  });

  it('orders edit blocks: forbidden before outside-allowed before lockfile', () => {
    expect(rules.editBlock('secrets/a')).toBe('FORBIDDEN');
    expect(rules.editBlock('docs/readme.md')).toBe('OUTSIDE_ALLOWED_PATHS');
    expect(rules.editBlock('src/package-lock.json')).toBe('LOCKFILE');
  });

  it('gives the highest matching risk level, first of equals', () => {
    expect(rules.riskFor('src/auth/Login.java')).toEqual({ glob: 'src/auth/**', level: 'HIGH', reason: 'authentication' });
    expect(rules.riskFor('src/util/Strings.java')?.level).toBe('LOW');
    expect(rules.riskFor('docs/a.md')).toBeUndefined();
  });
});
