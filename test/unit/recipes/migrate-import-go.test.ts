import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { applyRecipeToFile } from '../../../src/core/engines/recipe/apply-recipe-to-file.js';
import { goPackageName } from '../../../src/core/syntax/go-package-name.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep } from '../../../src/core/task/recipe-steps.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const migrate = (from: string, to: string, text: string) =>
  applyRecipeToFile(RecipeStep.parse({ recipe: 'migrate-import', from, to }), { path: 'internal/store/store.go', text }, { syntax });
const file = (path: string) => `package store\n\nimport (\n\t"context"\n\n\t"${path}"\n)\n\nfunc get(ctx context.Context) { _ = redis.Nil }\n`;

describe('Go package names of import paths', () => {
  it.each([
    ['github.com/go-redis/redis/v8', 'redis'],
    ['github.com/redis/go-redis/v9', 'redis'],
    ['github.com/hashicorp/golang-lru', 'golang'],
    ['k8s.io/klog/v2', 'klog'],
    ['gopkg.in/yaml.v3', 'yaml'],
    ['github.com/pkg/errors', 'errors'],
    ['v2', 'v2'],
  ])('%s is package %s', (path, name) => {
    expect(goPackageName(path)).toBe(name);
  });

  it('a major-version move (/v8 to /v9 of the same module) adds no alias note', () => {
    const result = migrate('github.com/go-redis/redis/v8', 'github.com/go-redis/redis/v9', file('github.com/go-redis/redis/v8'));
    expect(result?.text).toBe(file('github.com/go-redis/redis/v9'));
    expect(result?.notes).toEqual([]);
  });

  it('a move that gains a /v3 suffix keeps the package name: no note either', () => {
    const result = migrate('github.com/cenkalti/backoff', 'github.com/cenkalti/backoff/v4', file('github.com/cenkalti/backoff'));
    expect(result?.text).toBe(file('github.com/cenkalti/backoff/v4'));
    expect(result?.notes).toEqual([]);
  });

  it('the module moving to another owner under a go- name keeps the package name', () => {
    const result = migrate('github.com/go-redis/redis/v8', 'github.com/redis/go-redis/v9', file('github.com/go-redis/redis/v8'));
    expect(result?.notes).toEqual([]);
  });

  it('a move that changes the package name moves the qualifiers too, in code and in types', () => {
    const text = file('github.com/go-redis/redis/v8').replace('{ _ = redis.Nil }', '(c *redis.Client) { _ = redis.Nil }');
    const result = migrate('github.com/go-redis/redis/v8', 'github.com/valkey-io/valkey-go', text);
    expect(result?.text).toBe(file('github.com/valkey-io/valkey-go').replace('{ _ = redis.Nil }', '(c *valkey.Client) { _ = valkey.Nil }'));
    expect(result?.notes).toEqual([]);
  });

  describe('io/ioutil to io', () => {
    const src = (imports: string, body: string) => `package store

import (
${imports})

func f(r io.Reader) {
${body}}
`;

    it('drops the import when the file imports io already, and moves the qualifiers: no duplicate import, no stale name', () => {
      const before = src('\t"io"\n\t"io/ioutil"\n', '\tb, _ := ioutil.ReadAll(r)\n\t_ = ioutil.NopCloser(r)\n\t_ = b\n');
      const result = migrate('io/ioutil', 'io', before);
      expect(result?.text).toBe(src('\t"io"\n', '\tb, _ := io.ReadAll(r)\n\t_ = io.NopCloser(r)\n\t_ = b\n'));
    });

    it('leaves what moved to os, and says where it went', () => {
      const before = src('\t"io"\n\t"io/ioutil"\n', '\t_, _ = ioutil.ReadFile("x")\n');
      const result = migrate('io/ioutil', 'io', before);
      // Nothing moves to io, so nothing changes: the import stays for the name that is left.
      expect(result?.text).toBe(before);
      expect(result?.notes).toEqual(['ioutil.ReadFile is not in "io" (it moved to "os"): left as it is, for a maintainer or a follow-up step']);
    });

    it('a file using both halves keeps io/ioutil for what moved to os and gains io; a second step to os then finishes it', async () => {
      const before = src('\t"io/ioutil"\n\t"strings"\n', '\tb, _ := ioutil.ReadAll(r)\n\t_, _ = ioutil.ReadFile(strings.TrimSpace(string(b)))\n');
      const first = migrate('io/ioutil', 'io', before);
      expect(first?.text).toBe(
        src('\t"io/ioutil"\n\t"io"\n\t"strings"\n', '\tb, _ := io.ReadAll(r)\n\t_, _ = ioutil.ReadFile(strings.TrimSpace(string(b)))\n'),
      );
      const second = migrate('io/ioutil', 'os', first!.text);
      expect(second?.text).toBe(src('\t"os"\n\t"io"\n\t"strings"\n', '\tb, _ := io.ReadAll(r)\n\t_, _ = os.ReadFile(strings.TrimSpace(string(b)))\n'));
      // A single import declaration gets its companion as a declaration of its own.
      const single = 'package store\n\nimport "io/ioutil"\n\nfunc f() {\n\t_, _ = ioutil.ReadAll(nil)\n\t_, _ = ioutil.ReadFile("x")\n}\n';
      expect(migrate('io/ioutil', 'io', single)?.text).toBe(
        'package store\n\nimport "io/ioutil"\nimport "io"\n\nfunc f() {\n\t_, _ = io.ReadAll(nil)\n\t_, _ = ioutil.ReadFile("x")\n}\n',
      );
    });
  });
});
