import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { applyRecipeToFile } from '../../../src/core/engines/recipe/apply-recipe-to-file.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const replace = (find: string, by: string, text: string, path = 'pkg/api/types.go') =>
  applyRecipeToFile(RecipeStep.parse({ recipe: 'replace', find, replace: by }), { path, text }, { syntax });
const go = (...lines: string[]) => ['package api', '', ...lines, ''].join('\n');

describe('gofmt alignment after an edit', () => {
  const podSpec = (a: string, b: string, c: string, d: string) =>
    go('type PodSpec struct {', a, b, c, d, '}', '', 'type Unrelated struct {', '\tA  int', '\tBB int', '}');

  it('a renamed field that gets shorter: names and types realigned, tags follow (kubernetes-style struct)', () => {
    const before = podSpec(
      '\tContainers         []Container `json:"containers"`',
      '\tRestartPolicy      string      `json:"restartPolicy,omitempty"`',
      '\tServiceAccountName string      `json:"serviceAccountName,omitempty"`',
      '\tNodeName           string      `json:"nodeName,omitempty"`',
    );
    const result = replace('ServiceAccountName', 'ServiceAccount', before);
    expect(result?.text).toBe(
      podSpec(
        '\tContainers     []Container `json:"containers"`',
        '\tRestartPolicy  string      `json:"restartPolicy,omitempty"`',
        '\tServiceAccount string      `json:"serviceAccountName,omitempty"`',
        '\tNodeName       string      `json:"nodeName,omitempty"`',
      ),
    );
    // The realigned neighbours are reported too, each as its own edit.
    expect(result?.edits.map((e) => e.line)).toEqual([4, 5, 6, 7]);
  });

  it('a renamed field that gets longer: trailing comments move out; the section after the blank line is untouched', () => {
    const before = go(
      'type Options struct {',
      '\tAddr    string        // listen address',
      '\tTimeout time.Duration // request timeout',
      '\tRetries int           // attempts before giving up',
      '',
      '\tLogger *log.Logger',
      '}',
    );
    expect(replace('Addr', 'ListenAddress', before)?.text).toBe(
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

  it('a const group: the value column and comment column follow the longest name', () => {
    const before = go(
      'const (',
      '\tDefaultTimeout  = 30 * time.Second // per request',
      '\tDefaultRetries  = 3                // per call',
      '\tMaxIdleConnsPer = 10',
      ')',
    );
    expect(replace('MaxIdleConnsPer', 'MaxIdle', before)?.text).toBe(
      go('const (', '\tDefaultTimeout = 30 * time.Second // per request', '\tDefaultRetries = 3                // per call', '\tMaxIdle        = 10', ')'),
    );
  });

  it('a typed var group keeps its type column', () => {
    const before = go('var (', '\terrNotFound error = errors.New("not found") // 404', '\tcount             = 0                       // calls', ')');
    expect(replace('errNotFound', 'ErrMissing', before)?.text).toBe(
      go('var (', '\tErrMissing error = errors.New("not found") // 404', '\tcount            = 0                       // calls', ')'),
    );
  });

  it('statements with trailing comments in a function body', () => {
    const before = go('func run() {', '\tx := compute() // first', '\tyy := other()  // second', '\tzzz := 3', '}');
    expect(replace('other', 'otherValue', before)?.text).toBe(
      go('func run() {', '\tx := compute()     // first', '\tyy := otherValue() // second', '\tzzz := 3', '}'),
    );
  });

  it('embedded fields and a nested struct keep gofmt sections', () => {
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
    expect(replace('Name', 'DisplayName', before)?.text).toBe(
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

  it('leaves a block alone when it was not gofmt-aligned before the edit', () => {
    const before = go('type T struct {', '\tName string // hand-aligned', '\tLongerName    int // kept as is', '}');
    expect(replace('Name', 'Title', before)?.text).toBe(go('type T struct {', '\tTitle string // hand-aligned', '\tLongerName    int // kept as is', '}'));
  });

  it('keyed composite literals align values after the longest key, and a case clause body aligns its comments', () => {
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
    // The source above is not gofmt-clean in the literal (UserAgent is not aligned): those lines stay as the edit left them.
    expect(replace('Burst', 'MaxBurst', before)?.text).toBe(before.replaceAll('Burst', 'MaxBurst'));
    const clean = before
      .replace('\tQPS:   5,\n\tBurst: 10,\n\tUserAgent: "client-go",', '\tQPS:       5,\n\tBurst:     10,\n\tUserAgent: "client-go",')
      .replace('\t\tn := 1   // few', '\t\tn := 1     // few');
    expect(replace('Burst', 'MaxBurst', clean)?.text).toBe(
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

  it('keeps CRLF line endings and a missing final newline while realigning', () => {
    const before = 'package api\r\n\r\ntype T struct {\r\n\tA    int // a\r\n\tBbbb int // b\r\n}';
    expect(replace('Bbbb', 'B', before)?.text).toBe('package api\r\n\r\ntype T struct {\r\n\tA int // a\r\n\tB int // b\r\n}');
  });
});
