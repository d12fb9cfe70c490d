import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { PathError } from '../../../src/core/errors.js';
import { compileGlobs, matchesAny, patternBase } from '../../../src/core/paths/glob.js';
import { compilePathRules, defaultPathRules, type PathClass } from '../../../src/core/paths/path-rules.js';
import { resolveSymlinkedPath, symlinkAliases, symlinkChain, symlinkLookup } from '../../../src/core/paths/symlinks.js';
import { DEFAULT_RISK_RULES } from '../../../src/core/risk/risk-rules.js';
import { scopePathRules, writeDenial } from '../../../src/core/paths/write-rules.js';
import {
  AgentPolicy,
  DEFAULT_CI_PATTERNS,
  DEFAULT_GENERATED_PATTERNS,
  DEFAULT_HISTORY_PATTERNS,
  DEFAULT_INFRA_PATTERNS,
  DEFAULT_LOCKFILE_PATTERNS,
  DEFAULT_TEST_PATTERNS,
  DEFAULT_VENDORED_PATTERNS,
  defaultPolicy,
} from '../../../src/core/policy/agent-policy.js';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';

/** Every (pattern, path) pair answered once, by the one glob compiler every caller uses. */
describe('compileGlobs: the one glob dialect', () => {
  it.each([
    // plain directories mean the directory and everything under it, at segment boundaries
    ['src', 'src', true],
    ['src', 'src/a.ts', true],
    ['src', 'src/deep/er/a.ts', true],
    ['src', 'srcx/a.ts', false],
    ['src', 'lib/src/a.ts', false],
    ['pom.xml', 'pom.xml', true],
    ['pom.xml', 'module/pom.xml', false],
    // trailing slashes and ./
    ['infra/prod/', 'infra/prod/main.tf', true],
    ['infra/prod/', 'infra/production/main.tf', false],
    ['dir/', 'dir', true],
    ['./docs', 'docs/a.md', true],
    ['./docs/', 'docs/a.md', true],
    // scoped npm names: `@` is literal, not an extglob
    ['packages/@scope/pkg', 'packages/@scope/pkg/index.ts', true],
    ['packages/@scope/pkg', 'packages/@scope/pkg', true],
    ['packages/@scope/pkg', 'packages/@scope/pkgx/index.ts', false],
    ['packages/@scope/*', 'packages/@scope/pkg', true],
    ['packages/@scope/**', 'packages/@scope/pkg/src/a.ts', true],
    ['**/@scope/pkg/**', 'packages/@scope/pkg/a.ts', true],
    // `+`, `(`, `)`, `!` are literal too
    ['src/a+b', 'src/a+b/x.ts', true],
    ['src/a+b', 'src/aab/x.ts', false],
    ['src/a+b/**', 'src/a+b/x.ts', true],
    ['src/a+b/**', 'src/aab/x.ts', false],
    ['src/+(a)/**', 'src/+(a)/x.ts', true],
    ['src/+(a)/**', 'src/a/x.ts', false],
    ['src/@(a|b)/*', 'src/a/x.ts', false],
    ['lib(1)/**', 'lib(1)/x.ts', true],
    ['lib(1)/**', 'lib1/x.ts', false],
    ['lib(1)/*.ts', 'lib(1)/x.ts', true],
    ['lib(1)/*.ts', 'lib1/x.ts', false],
    ['src/@(a|b)/*', 'src/@(a|b)/x.ts', true],
    ['packages/@scope/*/src', 'packages/@scope/pkg/src/index.ts', false],
    ['src/a!b/*', 'src/a!b/c', true],
    // dot directories and dot files
    ['**/*.env', '.env', true],
    ['config/**', 'config/.secret/key', true],
    ['*', '.eslintrc', true],
    ['.github', '.github/CODEOWNERS', true],
    ['**/*.ts', '.hidden/a.ts', true],
    // `**/` prefix also matches at the root; `*` never crosses a slash
    ['**/go.sum', 'go.sum', true],
    ['**/go.sum', 'a/b/go.sum', true],
    ['**/generated/**', 'generated/a.ts', true],
    ['*.md', 'docs/a.md', false],
    ['*.md', 'README.md', true],
    ['src/**/*.ts', 'src/a.ts', true],
    ['src/*', 'src/a/b.ts', false],
    // braces and classes are glob syntax
    ['**/*.{js,ts}', 'a/b.ts', true],
    ['**/*.{js,ts}', 'a/b.tsx', false],
    ['file[0-9].txt', 'file3.txt', true],
    // case-sensitive, like git
    ['Docs', 'docs/a.md', false],
    ['**/*.MD', 'a.md', false],
    ['src/Main.java', 'src/Main.java', true],
  ])('%s ~ %s -> %s', (pattern, path, expected) => {
    expect(compileGlobs([pattern])(path)).toBe(expected);
  });

  it('matches nothing with no patterns, any of several otherwise', () => {
    expect(compileGlobs([])('a')).toBe(false);
    expect(compileGlobs(['', '  '])('a')).toBe(false);
    expect(compileGlobs(['x', 'src/**'])('src/a.ts')).toBe(true);
  });

  it.each([
    ['src/main/java', 'src/main/java'],
    ['src/**/*.ts', 'src'],
    ['**/*.ts', ''],
    ['packages/@scope/pkg/', 'packages/@scope/pkg'],
    ['src/{a,b}/x', 'src'],
  ])('the literal base of %s is %j', (pattern, base) => {
    expect(patternBase(pattern)).toBe(base);
  });

  it('answers like picomatch (extglob off, dot on) for every glob of the default lists and the risk rules', () => {
    const globs = [
      ...[
        DEFAULT_LOCKFILE_PATTERNS,
        DEFAULT_GENERATED_PATTERNS,
        DEFAULT_VENDORED_PATTERNS,
        DEFAULT_TEST_PATTERNS,
        DEFAULT_HISTORY_PATTERNS,
        DEFAULT_CI_PATTERNS,
        DEFAULT_INFRA_PATTERNS,
      ].flat(),
      ...DEFAULT_RISK_RULES.map((r) => r.pattern),
      'src/**/*.ts',
      '**/*_generated.*',
      'a/{b,{c,d}}/**',
    ];
    const corpus = [
      'go.sum',
      'a/go.sum',
      'go.sum.bak',
      'x/go.sumx',
      'package-lock.json',
      'web/node_modules/x/package-lock.json',
      'dist',
      'dist/a.js',
      'src/dist/a/b.js',
      'distx/a.js',
      'a.min.js',
      'x/a.min.jsx',
      'api/x.pb.go',
      'models_generated.go',
      'a/b.generated.ts',
      'test/a.ts',
      'src/test/A.java',
      'tests',
      'atest/a.ts',
      'a/b.spec.tsx',
      'a/b.spec.tsx.snap',
      'FooTest.java',
      'src/FooTests.kt',
      'Testing.java',
      'pkg/test_a.py',
      'pkg/atest_a.py',
      'conftest.py',
      'x_test.go',
      'CHANGELOG.md',
      'CHANGELOG',
      'docs/changelog.md',
      'CHANGELOG-2.md',
      'History.tsx',
      'release-notes/1.0.md',
      '.github/workflows/ci.yml',
      '.github/actions/a/action.yml',
      '.gitlab-ci.yml',
      'sub/Jenkinsfile',
      'Jenkinsfile.groovy',
      '.circleci/config.yml',
      'azure-pipelines.yml',
      'infra/main.tf',
      'x/infra/main.tf',
      'a/b.tfvars',
      'Dockerfile',
      'svc/Dockerfile.dev',
      'db/migration/V1.sql',
      'x/db/migrations/1.sql',
      'src/auth/Login.java',
      'src/AuthService.java',
      'pom.xml',
      'requirements-dev.txt',
      'CODEOWNERS',
      'docs/CODEOWNERS',
      'src/a.ts',
      'src/a/b.ts',
      'a/c/x',
      'a/d/x',
      'a/b/x',
      'a/e/x',
      '.venv/lib/a.py',
      'vendor/a.go',
    ];
    for (const glob of globs) {
      const reference = picomatch(glob, { dot: true, noextglob: true, nonegate: true });
      const ours = compileGlobs([glob]);
      for (const path of corpus) expect([glob, path, ours(path)]).toEqual([glob, path, reference(path)]);
    }
  });

  it('normalises before matching: ./, duplicate slashes', () => {
    expect(matchesAny(['src/**'], 'src/./a/b.ts')).toBe(true);
    expect(matchesAny(['src'], './src//a.ts')).toBe(true);
  });
});

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

  it('always forbids workflows and the policy file, even when the policy list omits them, in any letter case', () => {
    const omitting = compilePathRules(AgentPolicy.parse({ version: 1, agent: { forbiddenPaths: ['secrets/**'] } }));
    const empty = compilePathRules(AgentPolicy.parse({ version: 1, agent: { forbiddenPaths: [] } }));
    for (const r of [rules, omitting, empty]) {
      expect(r.isForbidden('.github/workflows/ci.yml')).toBe(true);
      expect(r.isForbidden('.GitHub/Workflows/ci.yml')).toBe(true);
      expect(r.isForbidden('.agent-policy.yaml')).toBe(true);
      expect(r.isForbidden('.Agent-Policy.YAML')).toBe(true);
      expect(r.editBlock('.agent-policy.yaml')).toBe('FORBIDDEN');
      expect(r.isWorkflow('.github/workflows/deploy/x.yml')).toBe(true);
      expect(r.isForbidden('.github/CODEOWNERS')).toBe(false);
      expect(r.isForbidden('docs/.agent-policy.yaml')).toBe(false);
    }
    const write = scopePathRules(empty, ['.github', '.agent-policy.yaml']);
    expect(writeDenial('.agent-policy.yaml', write)?.reason).toBe('FORBIDDEN_PATH');
    expect(writeDenial('.github/workflows/ci.yml', write)?.reason).toBe('WORKFLOW_CHANGE_NOT_PERMITTED');
    expect(write.isEditable('.agent-policy.yaml')).toBe(false);
  });

  it('forbids workflows and the policy file itself by default', () => {
    const defaults = defaultPathRules();
    expect(defaults.isForbidden('.github/workflows/deploy.yaml')).toBe(true);
    expect(defaults.isForbidden('.agent-policy.yaml')).toBe(true);
    expect(defaults.isForbidden('src/index.ts')).toBe(false);
    expect(defaults.isAllowed('anything/at/all.txt')).toBe(true);
  });

  it('normalises before matching', () => {
    expect(rules.isForbidden('./secrets//a.txt')).toBe(true);
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
    for (const check of [
      rules.isForbidden,
      rules.isAllowed,
      rules.requiresApproval,
      rules.isLockfile,
      rules.isGenerated,
      rules.riskFor,
      rules.classify,
      rules.editBlock,
    ]) {
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
    const defaults = defaultPathRules();
    for (const path of [
      'package-lock.json',
      'web/yarn.lock',
      'pnpm-lock.yaml',
      'bun.lock',
      'bun.lockb',
      'go.sum',
      'crates/x/Cargo.lock',
      'poetry.lock',
      'Gemfile.lock',
      'composer.lock',
      'app/gradle.lockfile',
      'buildscript-gradle.lockfile',
      'src/App/packages.lock.json',
      'pdm.lock',
    ]) {
      expect(defaults.isLockfile(path)).toBe(true);
      expect(defaults.editBlock(path)).toBe('LOCKFILE');
    }
    for (const path of [
      'src/generated/Api.java',
      'web/dist/app.js',
      'static/app.min.js',
      'api/v1/service.pb.go',
      'models_generated.go',
      'dist/index.js',
      'target/generated-sources/A.java',
    ]) {
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

describe('classify: every file of a repository, from the default lists', () => {
  it.each([
    ['src/main/java/com/acme/App.java', 'source'],
    ['web/src/index.tsx', 'source'],
    ['src/test/java/com/acme/AppTest.java', 'test'],
    ['a/b.spec.tsx', 'test'],
    ['x/FooIT.java', 'test'],
    ['conftest.py', 'test'],
    ['pkg/test_models.py', 'test'],
    ['cmd/server_test.go', 'test'],
    ['spec/models/user_spec.rb', 'test'],
    ['src/main/java/Testing.java', 'source'],
    ['src/latest.ts', 'source'],
    ['contest.py', 'source'],
    ['src/attestation.go', 'source'],
    ['package-lock.json', 'lockfile'],
    ['node_modules/left-pad/package-lock.json', 'vendored'],
    ['vendor/github.com/x/y.go', 'vendored'],
    ['third_party/lib/a.c', 'vendored'],
    ['api/service.pb.go', 'generated'],
    ['web/dist/app.js', 'generated'],
    ['.github/workflows/ci.yml', 'ci'],
    ['.github/workflows/test/x.yml', 'ci'],
    ['.gitlab-ci.yml', 'ci'],
    ['Jenkinsfile', 'ci'],
    ['.circleci/config.yml', 'ci'],
    ['CHANGELOG.md', 'history'],
    ['CHANGELOG', 'history'],
    ['packages/a/changelog.md', 'history'],
    ['HISTORY.rst', 'history'],
    ['RELEASE_NOTES.md', 'history'],
    ['src/History.tsx', 'source'],
    ['src/Changes.java', 'source'],
    ['infra/main.tf', 'infra'],
    ['modules/vpc/vars.tfvars', 'infra'],
    ['Dockerfile', 'infra'],
    ['README.md', 'docs'],
    ['docs/guide/intro.md', 'docs'],
    ['docs/img/arch.png', 'docs'],
    ['assets/logo.png', 'binary'],
    ['config/app.yml', 'config'],
    ['tsconfig.json', 'config'],
    ['.editorconfig', 'config'],
    ['.agent-policy.yaml', 'config'],
    ['Makefile', 'config'],
    ['LICENSE', 'other'],
  ] as [string, PathClass][])('%s is %s', (path, expected) => {
    expect(defaultPathRules().classify(path)).toBe(expected);
  });

  it('follows the policy lists: a custom lockfile pattern classifies as lockfile', () => {
    const custom = compilePathRules(AgentPolicy.parse({ version: 1, editRules: { lockfilePatterns: ['**/my.lock'] } }));
    expect(custom.classify('a/my.lock')).toBe('lockfile');
    expect(custom.classify('package-lock.json')).toBe('config');
  });
});

describe('symlinked directories', () => {
  const links = symlinkLookup([
    { path: 'ci', target: '.github/workflows' },
    { path: '.github/workflows', target: '../pipelines' },
    { path: 'docs/shared', target: '../../outside' },
    { path: 'loop/a', target: 'b' },
    { path: 'loop/b', target: 'a' },
    { path: 'lib/conf', target: '../cfg' },
    { path: 'cfg', target: 'ci' },
    { path: 'meta', target: '.git' },
  ]);

  it('lists every name on the way', () => {
    expect(symlinkChain('lib/conf/x.yml', links)).toEqual(['lib/conf/x.yml', 'cfg/x.yml', 'ci/x.yml', '.github/workflows/x.yml', 'pipelines/x.yml']);
  });

  it.each([
    ['ci/deploy.yml', 'pipelines/deploy.yml'],
    ['.github/workflows/x.yml', 'pipelines/x.yml'],
    ['lib/conf/x.yml', 'pipelines/x.yml'],
    ['cfg/x.yml', 'pipelines/x.yml'],
    ['src/a.ts', 'src/a.ts'],
    ['ci', 'ci'],
    ['docs/shared/a.md', undefined],
    ['loop/a/x', undefined],
    ['meta/config', undefined],
  ])('%s resolves to %s', (path, expected) => {
    expect(resolveSymlinkedPath(path, links)).toBe(expected);
  });

  it('judges a write on the resolved target too, in both directions', () => {
    const write = scopePathRules(compilePathRules(AgentPolicy.parse({ version: 1, agent: { forbiddenPaths: ['pipelines/secret/**'] } })));
    expect(writeDenial('ci/deploy.yml', write)).toBeUndefined();
    expect(writeDenial('ci/deploy.yml', write, links)).toMatchObject({ path: 'ci/deploy.yml', reason: 'WORKFLOW_CHANGE_NOT_PERMITTED' });
    expect(writeDenial('lib/conf/deploy.yml', write, links)?.reason).toBe('WORKFLOW_CHANGE_NOT_PERMITTED');
    expect(writeDenial('.github/workflows/x.yml', write, links)?.reason).toBe('WORKFLOW_CHANGE_NOT_PERMITTED');
    expect(writeDenial('.github/workflows/secret/x.yml', write, links)?.reason).toBe('WORKFLOW_CHANGE_NOT_PERMITTED');
    expect(writeDenial('docs/shared/a.md', write, links)?.reason).toBe('PATH_THROUGH_SYMLINK');
    expect(writeDenial('loop/a/x', write, links)?.reason).toBe('PATH_THROUGH_SYMLINK');
    expect(writeDenial('src/a.ts', write, links)).toBeUndefined();
  });

  it('judges a file on the names a link pointing at its directory gives it (.github/workflows -> ../ci)', () => {
    const write = scopePathRules(compilePathRules(AgentPolicy.parse({ version: 1 })));
    const workflowsLink = symlinkLookup([{ path: '.github/workflows', target: '../ci' }]);
    expect(symlinkAliases('ci/build.yml', workflowsLink)).toEqual(['.github/workflows/build.yml']);
    expect(writeDenial('ci/build.yml', write)).toBeUndefined();
    expect(writeDenial('ci/build.yml', write, workflowsLink)?.reason).toBe('WORKFLOW_CHANGE_NOT_PERMITTED');
    expect(writeDenial('cix/build.yml', write, workflowsLink)).toBeUndefined();
  });

  it('applies forbidden paths to the resolved target', () => {
    const write = scopePathRules(compilePathRules(AgentPolicy.parse({ version: 1, agent: { forbiddenPaths: ['secrets'] } })));
    const keys = symlinkLookup([{ path: 'config/keys', target: '../secrets' }]);
    expect(writeDenial('config/keys/prod.env', write)).toBeUndefined();
    expect(writeDenial('config/keys/prod.env', write, keys)).toMatchObject({ reason: 'FORBIDDEN_PATH', message: expect.stringContaining('secrets/prod.env') });
  });
});

describe('scopePathRules', () => {
  it('narrows to every scope given; absent or empty scopes do not narrow', () => {
    const base = defaultPathRules();
    expect(scopePathRules(base).inTaskScope('anything')).toBe(true);
    expect(scopePathRules(base, [], undefined).inTaskScope('anything')).toBe(true);
    const both = scopePathRules(base, ['src'], ['src/a', 'lib']);
    expect(both.inTaskScope('src/a/x.ts')).toBe(true);
    expect(both.inTaskScope('src/b/x.ts')).toBe(false);
    expect(both.inTaskScope('lib/x.ts')).toBe(false);
    expect(both.isEditable('src/a/x.ts')).toBe(true);
    expect(both.isEditable('src/a/package-lock.json')).toBe(false);
  });

  it('keeps the policy questions of the rules it narrows', () => {
    const scoped = scopePathRules(defaultPathRules(), ['src']);
    expect(scoped.isLockfile('src/bun.lock')).toBe(true);
    expect(scoped.classify('src/a.test.ts')).toBe('test');
    expect(defaultPolicy().editRules.lockfilePatterns).toContain('**/bun.lock');
  });
});
