import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

/** A replace step through the recipe engine, which leaves a Go file as gofmt prints it. */
async function replace(find: string, by: string, text: string, path = 'pkg/api/types.go') {
  const run = await runRecipeStep(syntax, { [path]: text }, { recipe: 'replace', find, replace: by });
  return { text: await run.text(path), notes: run.result.notes };
}
const go = (...lines: string[]) => ['package api', '', ...lines, ''].join('\n');

describe('gofmt parity after an edit', () => {
  const podSpec = (a: string, b: string, c: string, d: string) =>
    go('type PodSpec struct {', a, b, c, d, '}', '', 'type Unrelated struct {', '\tA  int', '\tBB int', '}');

  it('a renamed field that gets shorter: names and types realigned, tags follow (kubernetes-style struct)', async () => {
    const before = podSpec(
      '\tContainers         []Container `json:"containers"`',
      '\tRestartPolicy      string      `json:"restartPolicy,omitempty"`',
      '\tServiceAccountName string      `json:"serviceAccountName,omitempty"`',
      '\tNodeName           string      `json:"nodeName,omitempty"`',
    );
    const result = await replace('ServiceAccountName', 'ServiceAccount', before);
    expect(result.text).toBe(
      podSpec(
        '\tContainers     []Container `json:"containers"`',
        '\tRestartPolicy  string      `json:"restartPolicy,omitempty"`',
        '\tServiceAccount string      `json:"serviceAccountName,omitempty"`',
        '\tNodeName       string      `json:"nodeName,omitempty"`',
      ),
    );
    expect(result.notes).toContain('formatted as gofmt leaves them: pkg/api/types.go');
  });

  it('a renamed field that gets longer: trailing comments move out; the section after the blank line is untouched', async () => {
    const before = go(
      'type Options struct {',
      '\tAddr    string        // listen address',
      '\tTimeout time.Duration // request timeout',
      '\tRetries int           // attempts before giving up',
      '',
      '\tLogger *log.Logger',
      '}',
    );
    expect((await replace('Addr', 'ListenAddress', before)).text).toBe(
      go(
        'type Options struct {',
        '\tListenAddress string        // listen address',
        '\tTimeout       time.Duration // request timeout',
        '\tRetries       int           // attempts before giving up',
        '',
        '\tLogger *log.Logger',
        '}',
      ),
    );
  });

  it('a const group: the value column and comment column follow the longest name', async () => {
    const before = go(
      'const (',
      '\tDefaultTimeout  = 30 * time.Second // per request',
      '\tDefaultRetries  = 3                // per call',
      '\tMaxIdleConnsPer = 10',
      ')',
    );
    expect((await replace('MaxIdleConnsPer', 'MaxIdle', before)).text).toBe(
      go('const (', '\tDefaultTimeout = 30 * time.Second // per request', '\tDefaultRetries = 3                // per call', '\tMaxIdle        = 10', ')'),
    );
  });

  it('a typed var group keeps its type column', async () => {
    const before = go('var (', '\terrNotFound error = errors.New("not found") // 404', '\tcount             = 0                       // calls', ')');
    expect((await replace('errNotFound', 'ErrMissing', before)).text).toBe(
      go('var (', '\tErrMissing error = errors.New("not found") // 404', '\tcount            = 0                       // calls', ')'),
    );
  });

  it('statements with trailing comments in a function body', async () => {
    const before = go('func run() {', '\tx := compute() // first', '\tyy := other()  // second', '\tzzz := 3', '}');
    expect((await replace('other', 'otherValue', before)).text).toBe(
      go('func run() {', '\tx := compute()     // first', '\tyy := otherValue() // second', '\tzzz := 3', '}'),
    );
  });

  it('embedded fields and a nested struct keep gofmt sections', async () => {
    const before = go(
      'type Server struct {',
      '\t*http.Server        // embedded',
      '\tName         string // display name',
      '\tInner        struct {',
      '\t\tX int',
      '\t}',
      '\tPort int',
      '}',
    );
    expect((await replace('Name', 'DisplayName', before)).text).toBe(
      go(
        'type Server struct {',
        '\t*http.Server        // embedded',
        '\tDisplayName  string // display name',
        '\tInner        struct {',
        '\t\tX int',
        '\t}',
        '\tPort int',
        '}',
      ),
    );
  });

  it('leaves a file that was not gofmt-clean before the edit, so lines the change did not touch never move', async () => {
    const before = go('type T struct {', '\tName string // hand-aligned', '\tLongerName    int // kept as is', '}');
    const result = await replace('Name', 'Title', before);
    expect(result.text).toBe(go('type T struct {', '\tTitle string // hand-aligned', '\tLongerName    int // kept as is', '}'));
    expect(result.notes.join('\n')).not.toContain('gofmt');
  });

  it('leaves a change gofmt cannot parse as the recipe wrote it', async () => {
    const before = go('func f() {', '\tx := 1', '\t_ = x', '}');
    expect((await replace('x := 1', 'x := (1', before)).text).toBe(before.replace('x := 1', 'x := (1'));
  });

  it('keyed composite literals align values after the longest key, and a case clause body aligns its comments', async () => {
    const before = go(
      'var defaults = Config{',
      '\tQPS:   5,',
      '\tBurst: 10,',
      '\tUserAgent: "client-go", // identifies the caller',
      '}',
      '',
      'func pick(k string) int {',
      '\tswitch k {',
      '\tcase "q":',
      '\t\tn := 1   // few',
      '\t\tBurst := 2 // many',
      '\t\treturn n + Burst',
      '\t}',
      '\treturn 0',
      '}',
    );
    // The source above is not gofmt-clean in the literal (UserAgent is not aligned): the file stays as the edit left it.
    expect((await replace('Burst', 'MaxBurst', before)).text).toBe(before.replaceAll('Burst', 'MaxBurst'));
    const clean = before
      .replace('\tQPS:   5,\n\tBurst: 10,\n\tUserAgent: "client-go",', '\tQPS:       5,\n\tBurst:     10,\n\tUserAgent: "client-go",')
      .replace('\t\tn := 1   // few', '\t\tn := 1     // few');
    expect((await replace('Burst', 'MaxBurst', clean)).text).toBe(
      go(
        'var defaults = Config{',
        '\tQPS:       5,',
        '\tMaxBurst:  10,',
        '\tUserAgent: "client-go", // identifies the caller',
        '}',
        '',
        'func pick(k string) int {',
        '\tswitch k {',
        '\tcase "q":',
        '\t\tn := 1        // few',
        '\t\tMaxBurst := 2 // many',
        '\t\treturn n + MaxBurst',
        '\t}',
        '\treturn 0',
        '}',
      ),
    );
  });

  it('keeps CRLF line endings and a missing final newline while formatting', async () => {
    const before = 'package api\r\n\r\ntype T struct {\r\n\tA    int // a\r\n\tBbbb int // b\r\n}';
    expect((await replace('Bbbb', 'B', before)).text).toBe('package api\r\n\r\ntype T struct {\r\n\tA int // a\r\n\tB int // b\r\n}');
  });
});
