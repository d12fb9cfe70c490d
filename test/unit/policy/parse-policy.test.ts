import { describe, expect, it } from 'vitest';
import { AgentPolicy, MAX_POLICY_FILE_BYTES, defaultPolicy, meetsPermission } from '../../../src/core/policy/agent-policy.js';
import { formatProblems } from '../../../src/core/policy/document-problem.js';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';
import { PolicyError } from '../../../src/core/policy/policy-error.js';
import { policyDigest } from '../../../src/core/policy/policy-digest.js';
import { AgentError } from '../../../src/core/errors.js';

function policyError(text: string | Uint8Array, file?: string): PolicyError {
  try {
    parsePolicy({ text, file });
  } catch (error) {
    if (error instanceof PolicyError) return error;
    throw error;
  }
  throw new Error('expected a PolicyError');
}

const FULL = `version: 1
agent:
  enabled: false
  allowedModes: [analysis]
  requireApprovalFor: [pom.xml, "infra/**"]
  forbiddenPaths: [secrets/**]
  allowedPaths: [src]
  maxChangedFiles: 10
  maxDiffLines: 200
  build:
    defaultVerifier: maven
    commands: ["./mvnw -q test"]
  riskRules:
    - {glob: "src/auth/**", level: HIGH, reason: authentication}
ingestion: {submodules: block, allowLfs: true, maxRepoSizeMb: 100, maxFileSizeMb: 2, maxFileCount: 5000, maxPathDepth: 20, maxPathLength: 300}
editRules:
  generatedFiles: {default: allowed}
  lockfiles: {default: blocked}
  generatedPatterns: ["gen/**"]
  lockfilePatterns: ["**/my.lock"]
triggers: {label: "bot:go", commandPrefix: /bot, minPermission: maintain}
limits: {runsPerHour: 3, maxOpenPullRequests: 1}
baseMovementPolicy: fail
`;

describe('parsePolicy: valid documents', () => {
  it('gives the documented defaults when the file is missing', () => {
    const policy = parsePolicy({ text: undefined });
    expect(policy).toEqual(defaultPolicy());
    expect(policy.agent.enabled).toBe(true);
    expect(policy.agent.forbiddenPaths).toContain('.github/workflows/**');
    expect(policy.agent.allowedPaths).toBeUndefined();
    expect(policy.ingestion).toEqual({
      submodules: 'opaque',
      allowLfs: false,
      maxRepoSizeMb: 500,
      maxFileSizeMb: 5,
      maxFileCount: 100_000,
      maxPathDepth: 64,
      maxPathLength: 1024,
    });
    expect(policy.agent.maxChangedFiles).toBe(30);
    expect(policy.agent.maxDiffLines).toBe(1500);
    expect(policy.editRules.lockfiles.default).toBe('blocked');
    expect(policy.editRules.generatedFiles.default).toBe('blocked');
    expect(policy.editRules.lockfilePatterns).toEqual(expect.arrayContaining(['**/package-lock.json', '**/go.sum', '**/Cargo.lock', '**/gradle.lockfile']));
    expect(policy.triggers).toEqual({ label: 'agent:run', commandPrefix: '/agent', minPermission: 'write' });
    expect(policy.limits).toEqual({ runsPerHour: 10, maxOpenPullRequests: 5 });
    expect(policy.baseMovementPolicy).toBe('rerun');
  });

  it.each([
    ['only the version', 'version: 1\n', (p: AgentPolicy) => expect(p).toEqual(defaultPolicy())],
    [
      'a partial section keeps the other defaults',
      'version: 1\nagent:\n  maxChangedFiles: 3\n',
      (p: AgentPolicy) => {
        expect(p.agent.maxChangedFiles).toBe(3);
        expect(p.agent.maxDiffLines).toBe(1500);
        expect(p.agent.build.commands).toEqual([]);
      },
    ],
    [
      'every key set',
      FULL,
      (p: AgentPolicy) => {
        expect(p.agent.enabled).toBe(false);
        expect(p.agent.riskRules).toEqual([{ glob: 'src/auth/**', level: 'HIGH', reason: 'authentication' }]);
        expect(p.agent.build).toEqual({ defaultVerifier: 'maven', commands: ['./mvnw -q test'] });
        expect(p.ingestion.maxPathLength).toBe(300);
        expect(p.editRules.generatedFiles.default).toBe('allowed');
        expect(p.triggers.minPermission).toBe('maintain');
        expect(p.baseMovementPolicy).toBe('fail');
      },
    ],
    [
      'yes/on are strings in YAML 1.2, so label "on" stays a string',
      'version: 1\ntriggers: {label: on}\n',
      (p: AgentPolicy) => expect(p.triggers.label).toBe('on'),
    ],
    [
      'closed classes and alternatives are globs',
      'version: 1\nagent:\n  forbiddenPaths: ["src/[abc]/**", "**/*.{ts,tsx}", "a/{b,c}/{d,e}"]\n',
      (p: AgentPolicy) => expect(p.agent.forbiddenPaths).toEqual(['src/[abc]/**', '**/*.{ts,tsx}', 'a/{b,c}/{d,e}']),
    ],
    ['CRLF line endings', 'version: 1\r\nagent:\r\n  enabled: false\r\n', (p: AgentPolicy) => expect(p.agent.enabled).toBe(false)],
  ])('%s', (_name, text, check) => {
    check(parsePolicy({ text }));
  });

  it('accepts bytes as well as text', () => {
    expect(parsePolicy({ text: new TextEncoder().encode('version: 1\nlimits: {runsPerHour: 2}\n') }).limits.runsPerHour).toBe(2);
  });
});

describe('parsePolicy: invalid documents', () => {
  it.each([
    // [name, text, path, line, column, type, message fragment]
    ['unknown key with a suggestion', 'version: 1\nagent:\n  enabeld: false\n', 'agent.enabeld', 3, 3, 'SCHEMA', 'did you mean "enabled"'],
    ['unknown top-level key', 'version: 1\nextra: 1\n', 'extra', 2, 1, 'SCHEMA', 'unknown key "extra"'],
    ['missing version', 'agent:\n  enabled: true\n', 'version', 1, 1, 'SCHEMA', 'missing required key "version"'],
    ['wrong version', 'version: 2\n', 'version', 1, 10, 'SCHEMA', 'must be 1'],
    ['empty file', '# only a comment\n', '', 1, 1, 'SCHEMA', 'mapping'],
    ['a list at the top', '- a\n- b\n', '', 1, 1, 'SCHEMA', 'mapping'],
    ['negative count', 'version: 1\nagent:\n  maxChangedFiles: -3\n', 'agent.maxChangedFiles', 3, 20, 'SCHEMA', 'greater than 0'],
    ['string for a number', 'version: 1\nlimits:\n  runsPerHour: many\n', 'limits.runsPerHour', 3, 16, 'SCHEMA', 'expected a number'],
    ['absolute glob', 'version: 1\nagent:\n  forbiddenPaths:\n    - src/**\n    - /etc/**\n', 'agent.forbiddenPaths[1]', 5, 7, 'SCHEMA', 'leading slash'],
    ['dot-dot glob', 'version: 1\nagent:\n  allowedPaths: [../outside]\n', 'agent.allowedPaths[0]', 3, 18, 'SCHEMA', '".."'],
    ['negated glob', 'version: 1\nagent:\n  requireApprovalFor: ["!src/**"]\n', 'agent.requireApprovalFor[0]', 3, 24, 'SCHEMA', 'negated'],
    ['unclosed class', 'version: 1\nagent:\n  forbiddenPaths: ["src/[abc"]\n', 'agent.forbiddenPaths[0]', 3, 20, 'SCHEMA', '"[" at position 5 is never closed'],
    ['unclosed braces', 'version: 1\nagent:\n  allowedPaths: ["**/*.{sql"]\n', 'agent.allowedPaths[0]', 3, 18, 'SCHEMA', '"{" is never closed'],
    ['stray brace', 'version: 1\nagent:\n  allowedPaths: ["a}/b"]\n', 'agent.allowedPaths[0]', 3, 18, 'SCHEMA', 'closes no "{"'],
    ['empty list value', 'version: 1\nagent:\n  forbiddenPaths:\n', 'agent.forbiddenPaths', 3, 3, 'SCHEMA', 'expected a list'],
    ['enum typo', 'version: 1\ntriggers:\n  minPermission: writer\n', 'triggers.minPermission', 3, 18, 'SCHEMA', 'did you mean "write"'],
    ['base movement', 'version: 1\nbaseMovementPolicy: rebase\n', 'baseMovementPolicy', 2, 21, 'SCHEMA', 'rerun, warn, fail'],
    [
      'risk rule key typo',
      'version: 1\nagent:\n  riskRules:\n    - glob: a/**\n      level: HIGH\n      reasn: x\n',
      'agent.riskRules[0].reasn',
      6,
      7,
      'SCHEMA',
      'did you mean "reason"',
    ],
    ['bad command prefix', 'version: 1\ntriggers: {commandPrefix: agent}\n', 'triggers.commandPrefix', 2, 27, 'SCHEMA', 'slash'],
    ['unclosed flow sequence', 'version: 1\nagent: [1, 2\n', '', 3, 1, 'YAML_SYNTAX', ''],
    ['duplicate key', 'version: 1\nversion: 1\n', '', 2, 1, 'YAML_SYNTAX', 'unique'],
    ['tab indentation', 'version: 1\nagent:\n\tenabled: true\n', '', 3, 1, 'YAML_SYNTAX', ''],
    ['two documents', 'version: 1\n---\nversion: 1\n', '', 2, 1, 'YAML_SYNTAX', ''],
  ])('%s', (_name, text, path, line, column, type, fragment) => {
    const error = policyError(text);
    expect(error).toBeInstanceOf(AgentError);
    expect(error.reason).toBe('POLICY_FILE_INVALID');
    const problem = error.data.problems.find((p) => p.path === path) ?? error.data.problems[0];
    expect(problem).toMatchObject({ file: '.agent-policy.yaml', path, line, column, type });
    expect(problem.message).toContain(fragment);
  });

  it('reports every problem at once, in document order, each at its own line', () => {
    const error = policyError(
      [
        'version: 1',
        'agent:',
        '  enabeld: false',
        '  maxChangedFiles: 0',
        'triggers:',
        '  minPermission: root',
        'limits:',
        '  runsPerHour: "x"',
        'bogus: true',
        '',
      ].join('\n'),
      'repo/.agent-policy.yaml',
    );
    expect(error.data.problems.map((p) => [p.line, p.path])).toEqual([
      [3, 'agent.enabeld'],
      [4, 'agent.maxChangedFiles'],
      [6, 'triggers.minPermission'],
      [8, 'limits.runsPerHour'],
      [9, 'bogus'],
    ]);
    expect(error.data.file).toBe('repo/.agent-policy.yaml');
    const lines = error.format().split('\n');
    expect(lines).toHaveLength(5);
    expect(lines[0]).toBe('repo/.agent-policy.yaml:3:3: agent.enabeld: unknown key "enabeld" (did you mean "enabled"?)');
    expect(lines[1]).toMatch(/^repo\/\.agent-policy\.yaml:4:20: agent\.maxChangedFiles: /);
  });

  it('reports YAML syntax errors alone, without schema noise from the half-parsed document', () => {
    const error = policyError('version: 1\nagent: {enabled: true\nbogus: 1\n');
    expect(error.data.problems.every((p) => p.type === 'YAML_SYNTAX')).toBe(true);
  });

  it('refuses a file over 1 MiB before parsing it', () => {
    // Invalid YAML on purpose: a parse would report YAML_SYNTAX, the size check must come first.
    const text = `version: 1\n${'#'.repeat(MAX_POLICY_FILE_BYTES)}\n: : [\n`;
    const error = policyError(text);
    expect(error.reason).toBe('POLICY_FILE_TOO_LARGE');
    expect(error.data.sizeBytes).toBe(text.length);
  });

  it('counts bytes, not characters, against the size limit', () => {
    const text = `version: 1\n# ${'é'.repeat(MAX_POLICY_FILE_BYTES / 2)}\n`; // 2 bytes each in UTF-8
    expect(policyError(text).reason).toBe('POLICY_FILE_TOO_LARGE');
    expect(policyError(new Uint8Array(MAX_POLICY_FILE_BYTES + 1)).reason).toBe('POLICY_FILE_TOO_LARGE');
  });

  it('accepts a file of exactly 1 MiB', () => {
    const head = 'version: 1\n#';
    const text = `${head}${'x'.repeat(MAX_POLICY_FILE_BYTES - head.length)}`;
    expect(parsePolicy({ text }).version).toBe(1);
  });

  it('refuses bytes that are not UTF-8', () => {
    const error = policyError(new Uint8Array([0x76, 0x65, 0x72, 0xff, 0xfe]));
    expect(error.reason).toBe('POLICY_FILE_INVALID');
    expect(error.data.problems[0].type).toBe('YAML_SYNTAX');
  });

  it('serialises with reason and problems for artifacts and logs', () => {
    const json = policyError('version: 1\nx: 1\n').toJSON();
    expect(json).toMatchObject({ name: 'PolicyError', reason: 'POLICY_FILE_INVALID', data: { problems: [{ path: 'x', line: 2 }] } });
  });
});

describe('formatProblems', () => {
  it('sorts by line and column and prints file:line:col: path: message', () => {
    const text = formatProblems([
      { file: 'f', line: 9, column: 1, path: '', type: 'YAML_SYNTAX', message: 'late' },
      { file: 'f', line: 2, column: 5, path: 'a.b[0]', type: 'SCHEMA', message: 'early' },
    ]);
    expect(text).toBe('f:2:5: a.b[0]: early\nf:9:1: late');
  });
});

describe('policyDigest', () => {
  it('is stable across key order and changes with any value', () => {
    const a = parsePolicy({ text: 'version: 1\nlimits: {runsPerHour: 2, maxOpenPullRequests: 1}\n' });
    const b = parsePolicy({ text: 'limits: {maxOpenPullRequests: 1, runsPerHour: 2}\nversion: 1\n' });
    const c = parsePolicy({ text: 'version: 1\nlimits: {runsPerHour: 3, maxOpenPullRequests: 1}\n' });
    expect(policyDigest(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(policyDigest(a)).toBe(policyDigest(b));
    expect(policyDigest(a)).not.toBe(policyDigest(c));
    expect(policyDigest(defaultPolicy())).toBe(policyDigest(parsePolicy({ text: 'version: 1' })));
  });
});

describe('meetsPermission', () => {
  it.each([
    ['read', 'write', false],
    ['triage', 'write', false],
    ['write', 'write', true],
    ['maintain', 'write', true],
    ['admin', 'write', true],
    ['Admin', 'maintain', true],
    ['write', 'admin', false],
    ['read', 'read', true],
    ['custom-role', 'read', false],
  ] as const)('%s against %s -> %s', (role, min, expected) => {
    expect(meetsPermission(role, min)).toBe(expected);
  });
});
