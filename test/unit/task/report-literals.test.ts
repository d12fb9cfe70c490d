import { describe, expect, it } from 'vitest';
import { MAX_FRAME_TERMS, literalFragments, stackFramePaths } from '../../../src/core/task/report-literals.js';
import { deriveSearchTerms } from '../../../src/core/task/search-terms.js';

const terms = (objective: string, title = '') => deriveSearchTerms({ title, objective, steps: [] }).map((t) => `${t.kind}:${t.term}`);

describe('stack-trace frames', () => {
  it.each([
    ['Python', '  File "/venv/lib/python3.12/site-packages/kite/transport.py", line 6, in send', ['/venv/lib/python3.12/site-packages/kite/transport.py']],
    ['Java', '\tat com.acme.auth.LegacyAuthClient.exchangeToken(LegacyAuthClient.java:17)', ['com/acme/auth/LegacyAuthClient.java']],
    [
      'Java inner class',
      'at com.google.gson.internal.bind.MapTypeAdapterFactory$Adapter.read(MapTypeAdapterFactory.java:187)',
      ['com/google/gson/internal/bind/MapTypeAdapterFactory.java'],
    ],
    ['Go', '\t/home/u/go/pkg/mod/github.com/spf13/cobra@v1.8.0/command.go:123 +0x1d', ['/home/u/go/pkg/mod/github.com/spf13/cobra@v1.8.0/command.go']],
    ['Go, bare file', 'main.go:12: panic', ['main.go']],
    ['JavaScript', '    at Object.merge (lib/core/mergeConfig.js:42:11)', ['lib/core/mergeConfig.js']],
    ['webpack URL', 'at f (webpack:///src/app.ts:3:4)', ['src/app.ts']],
    ['no frame in prose', 'See version 1.2.3 and the docs at 10:30.', []],
  ])('%s', (_name, text, expected) => {
    expect(stackFramePaths(text)).toEqual(expected);
  });

  it(`keeps at most ${MAX_FRAME_TERMS} frames, as stack-frame terms before the names of the prose`, () => {
    const trace = Array.from({ length: 40 }, (_, i) => `  File "pkg/m${i}.py", line 1, in f`).join('\n');
    const found = terms(`${trace}\nThe ParserState breaks.`);
    expect(found.filter((t) => t.startsWith('stack-frame:'))).toHaveLength(MAX_FRAME_TERMS);
    expect(found[0]).toBe('stack-frame:pkg/m0.py');
    expect(found).toContain('symbol:ParserState');
  });
});

describe('quoted literals', () => {
  it.each([
    ['an exception line of a trace', 'Traceback:\nKeyError: \'missing key "id" in payload\'', ['quoted-identifier:id', 'literal:missing key "id" in payload']],
    ['a Java exception with its package', 'java.lang.IllegalStateException: token exchange failed', ['literal:token exchange failed']],
    ['a backticked exception keeps the message', 'I get `ConfigError: Invalid config file` here', ['literal:Invalid config file']],
    ['a double-quoted message', 'It prints "url must not be empty" and exits.', ['literal:url must not be empty']],
    ['a CLI flag in prose', 'Running with --no-cache fails.', ['literal:--no-cache']],
    ['a backticked rule id with dashes', 'The rule `no-unused-vars` misfires.', ['literal:no-unused-vars']],
    ['a plain quoted word is an identifier, not a literal', 'The "timeout" setting.', ['quoted-identifier:timeout']],
    ['a URL is no literal', 'See "https://example.com/a b".', []],
  ])('%s', (_name, text, expected) => {
    expect(terms(text).filter((t) => !t.startsWith('symbol:'))).toEqual(expected);
  });

  it('splits a message at what a program fills in', () => {
    expect(literalFragments("Invalid value for '--count': 'abc' is not a valid integer")).toEqual(['Invalid value for', 'is not a valid integer']);
    expect(literalFragments('Invalid config file: expected a .yaml file')).toEqual(['Invalid config file', 'expected a .yaml file']);
    expect(literalFragments('short')).toEqual([]);
  });
});
