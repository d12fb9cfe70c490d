import { describe, expect, it } from 'vitest';
import { applyReplace } from '../../../src/core/engines/recipe/replace-recipe.js';
import { recipeMatches } from '../../../src/core/engines/recipe/recipe-candidates.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep, type ReplaceStep } from '../../../src/core/task/recipe-steps.js';
import { compileUserRegex, UserRegexError, type UserRegexReason } from '../../../src/core/util/user-regex.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';

// `replace` never parses: it needs no syntax service.
const noSyntax = { syntax: {} as TreeSyntaxService };
const replace = (find: string, repl: string, flags = ''): ReplaceStep =>
  RecipeStep.parse({ recipe: 'replace', find, replace: repl, regex: true, flags }) as ReplaceStep;

describe('user regexes run in linear time', () => {
  it('a catastrophic pattern on a long non-matching input finishes, with the right result', () => {
    // With a backtracking engine `(a+)+$` on 'a'.repeat(n) + 'b' takes 2^n steps; n = 35 already never ends.
    const text = `${'a'.repeat(50_000)}b\n`;
    expect(applyReplace(replace('(a+)+$', 'X'), text)).toBeUndefined();
    expect(applyReplace(replace('(a+)+b', '[$1]'), text)?.text).toBe(`[${'a'.repeat(50_000)}]\n`);
    expect(recipeMatches(replace('(a+)+$', 'X'), { path: 'f.txt', text }, noSyntax, defaultPathRules().isLockfile)).toEqual([]);
  }, 10_000);

  it('supports the i, m, s and u flags, global replacement and $n / $& / $$ in the replacement', () => {
    expect(applyReplace(replace('^(\\w+)=(\\d+)$', '$2=$1', 'm'), 'a=1\nB=2\nc=x\n')?.text).toBe('1=a\n2=B\nc=x\n');
    expect(applyReplace(replace('foo', '<$&>', 'i'), 'Foo fOO foo')?.text).toBe('<Foo> <fOO> <foo>');
    expect(applyReplace(replace('a.b', 'X', 's'), 'a\nb a\nb')?.text).toBe('X X');
    expect(applyReplace(replace('a.b', 'X'), 'a\nb')).toBeUndefined();
    expect(applyReplace(replace('é+', '$$', 'u'), 'xééy😀é')?.text).toBe('x$y😀$');
    // An empty match steps over a whole code point, never between the halves of a surrogate pair.
    expect(applyReplace(replace('(?:)', '-'), 'a😀')?.text).toBe('-a-😀-');
    // An unmatched group expands to nothing; `$10` with one group is group 1 then "0".
    expect(applyReplace(replace('(x)|(y)', '[$2]'), 'xy')?.text).toBe('[][y]');
    expect(applyReplace(replace('(x)', '$10'), 'x')?.text).toBe('x0');
  });

  it('keeps literal replacement (not a pattern) with identifier boundaries', () => {
    const step = RecipeStep.parse({ recipe: 'replace', find: 'a.b', replace: 'c' }) as ReplaceStep;
    expect(applyReplace(step, 'a.b axb a.bc a.b')?.text).toBe('c axb a.bc c');
  });

  it.each<[string, UserRegexReason, string]>([
    ['(a)\\1', 'REGEX_BACKREFERENCE', '\\1'],
    ['(?<q>["\'])x\\k<q>', 'REGEX_BACKREFERENCE', '\\k<name>'],
    ['foo(?=bar)', 'REGEX_LOOKAHEAD', '(?='],
    ['foo(?!bar)', 'REGEX_LOOKAHEAD', '(?!'],
    ['(?<=\\$)\\d+', 'REGEX_LOOKBEHIND', '(?<='],
    ['(?<!\\w)x', 'REGEX_LOOKBEHIND', '(?<!'],
  ])('refuses %s with %s naming the construct', (find, reason, construct) => {
    const error = (() => {
      try {
        compileUserRegex(find);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UserRegexError);
    expect((error as UserRegexError).reason).toBe(reason);
    expect((error as UserRegexError).data.construct).toBe(construct);
    // A task carrying it is refused when it is parsed, with the reason in the problem.
    const parsed = RecipeStep.safeParse({ recipe: 'replace', find, replace: 'x', regex: true });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].message).toContain(reason);
  });

  it('does not mistake escaped or bracketed characters for those constructs', () => {
    expect(applyReplace(replace('[(?=]\\\\1', 'X'), '(\\1 ?\\1')?.text).toBe('X X');
  });

  it('refuses invalid and oversized patterns with their own reasons', () => {
    expect(() => compileUserRegex('(')).toThrow(expect.objectContaining({ reason: 'REGEX_INVALID' }));
    expect(() => compileUserRegex('x', 'y')).toThrow(expect.objectContaining({ reason: 'REGEX_FLAG_UNSUPPORTED' }));
    expect(() => compileUserRegex('((((a{1,1000}){1,1000}){1,1000}))')).toThrow(
      expect.objectContaining({ reason: expect.stringMatching(/REGEX_(INVALID|TOO_COMPLEX)/) }),
    );
    expect(() => compileUserRegex('[a-z]{1,900}[0-9]{1,900}')).toThrow(expect.objectContaining({ reason: 'REGEX_TOO_COMPLEX' }));
    // A mid-sized program that does match on a large input is refused instead of running for seconds.
    const big = compileUserRegex('[a-z]{1,100}[0-9]{1,100}');
    expect(() => [...big.matchAll(`${'ab'.repeat(300_000)}1`)]).toThrow(expect.objectContaining({ reason: 'REGEX_TOO_COMPLEX' }));
    expect([...big.matchAll('ab1 cd2')].map((m) => m.groups[0])).toEqual(['ab1', 'cd2']);
  });
});

describe('literal replacement on a large file', () => {
  it('is not subject to the regex matching budget', () => {
    const find = `${'x'.repeat(150)}_END`;
    const text = `${'y'.repeat(1_000_000)} ${find}\n`;
    const step = RecipeStep.parse({ recipe: 'replace', find, replace: 'done' }) as ReplaceStep;
    expect(applyReplace(step, text)?.text).toBe(`${'y'.repeat(1_000_000)} done\n`);
  });
});
