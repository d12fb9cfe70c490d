import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The dependency rule of DESIGN §3 is enforced by the linter; these tests keep the rule itself honest.
describe('architecture: src/core stays pure', () => {
  const eslint = new ESLint({ cwd: process.cwd() });

  it.each([
    ["import { promises } from 'node:fs';", 'node:fs'],
    ["import { Volume } from 'memfs';", 'memfs'],
    ["import { Probot } from 'probot';", 'probot'],
    ["import { Octokit } from '@octokit/rest';", '@octokit/rest'],
    ["import { S3Client } from '@aws-sdk/client-s3';", '@aws-sdk/client-s3'],
    ["import http from 'isomorphic-git/http/node';", 'isomorphic-git/http/node'],
  ])('refuses %s in src/core', async (source, name) => {
    const [result] = await eslint.lintText(`${source}\nexport const x = 1;\n`, { filePath: 'src/core/example.ts' });
    const messages = result.messages.filter((m) => m.ruleId === 'no-restricted-imports');
    expect(messages.length, `${name} should be refused`).toBe(1);
  });

  it('allows the same import in src/app', async () => {
    const [result] = await eslint.lintText("import { promises } from 'node:fs';\nexport const x = promises;\n", { filePath: 'src/app/example.ts' });
    expect(result.messages.filter((m) => m.ruleId === 'no-restricted-imports')).toEqual([]);
  });

  it('the real src/core has no restricted import', async () => {
    const results = await eslint.lintFiles(['src/core/**/*.ts']);
    const problems = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => `${r.filePath}:${m.line}: ${m.message}`));
    expect(problems).toEqual([]);
    expect(results.length).toBeGreaterThan(50);
  });
});

describe('architecture: src/core reads no clock and no environment', () => {
  it('has no process.env and no Date.now()', async () => {
    const { readdir, readFile } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const offenders: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      for (const entry of await readdir(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) await walk(path);
        else if (path.endsWith('.ts')) {
          const text = await readFile(path, 'utf8');
          text.split('\n').forEach((line, i) => {
            if (/process\.env|Date\.now\(\)/.test(line) && !line.trim().startsWith('//') && !line.trim().startsWith('*')) offenders.push(`${path}:${i + 1}`);
          });
        }
      }
    };
    await walk('src/core');
    expect(offenders).toEqual([]);
  });
});
