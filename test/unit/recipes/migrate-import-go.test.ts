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

  it('a move that really changes the package name still says so', () => {
    const result = migrate('github.com/go-redis/redis/v8', 'github.com/valkey-io/valkey-go', file('github.com/go-redis/redis/v8'));
    expect(result?.notes).toEqual([
      'import "github.com/go-redis/redis/v8" becomes "github.com/valkey-io/valkey-go", whose package name is likely "valkey": code that names the package "redis" may need an import alias',
    ]);
  });
});
