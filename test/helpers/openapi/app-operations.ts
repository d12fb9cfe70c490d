import { Octokit } from '@octokit/rest';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { githubDescription } from './github-description.js';

/**
 * The GitHub operations the App's source calls, read from the source itself: every
 * `rest.<scope>.<method>` in src/app, mapped through Octokit's endpoint table to GitHub's
 * operation id, plus the installation-token mint that @octokit/auth-app performs. Each call site
 * is attributed to the token it runs with, by the function its folder belongs to; shared
 * folders (src/app/github) take the tokens of the functions that import them.
 */

export type CallerToken = 'read' | 'write' | 'app';

/** Folder under src/app -> the token its code holds (see src/app/tokens/token-scopes.ts). */
const FOLDER_TOKEN: Record<string, CallerToken> = {
  webhook: 'read',
  worker: 'read',
  dispatch: 'read',
  sweeper: 'read',
  campaign: 'read',
  schedules: 'read',
  publisher: 'write',
  tokens: 'app',
};

export interface UsedOperation {
  operationId: string;
  method: string;
  template: string;
  tokens: CallerToken[];
  /** Source files (relative to the repository) that call it. */
  files: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

export function appOperations(root = process.cwd()): UsedOperation[] {
  const appDir = join(root, 'src/app');
  const files = sourceFiles(appDir);
  const texts = new Map(files.map((f) => [f, readFileSync(f, 'utf8')]));
  const importers = new Map<string, string[]>();
  for (const [file, text] of texts) {
    for (const m of text.matchAll(/from '(\.[^']+)\.js'/g)) {
      const target = `${resolve(dirname(file), m[1])}.ts`;
      importers.set(target, [...(importers.get(target) ?? []), file]);
    }
  }
  const tokensOf = (file: string, seen = new Set<string>()): CallerToken[] => {
    const folder = relative(appDir, file).split('/')[0];
    if (FOLDER_TOKEN[folder]) return [FOLDER_TOKEN[folder]];
    if (seen.has(file)) return [];
    seen.add(file);
    return [...new Set((importers.get(file) ?? []).flatMap((f) => tokensOf(f, seen)))];
  };

  const octokit = new Octokit();
  const description = githubDescription();
  const used = new Map<string, UsedOperation>();
  const add = (operationId: string, file: string) => {
    const operation = description.operations.get(operationId);
    if (!operation) throw new Error(`${relative(root, file)}: GitHub documents no operation ${operationId}`);
    const entry = used.get(operationId) ?? { operationId, method: operation.method, template: operation.template, tokens: [], files: [] };
    entry.tokens = [...new Set([...entry.tokens, ...tokensOf(file)])].sort();
    entry.files = [...new Set([...entry.files, relative(root, file)])].sort();
    used.set(operationId, entry);
  };
  for (const [file, text] of texts) {
    for (const m of text.matchAll(/\brest\.(\w+)\.(\w+)\b/g)) {
      const method = (octokit.rest as unknown as Record<string, Record<string, { endpoint?: { DEFAULTS: { method: string; url: string } } }>>)[m[1]]?.[m[2]];
      if (!method?.endpoint) throw new Error(`${relative(root, file)}: Octokit has no method rest.${m[1]}.${m[2]}`);
      const { method: verb, url } = method.endpoint.DEFAULTS;
      const operation = [...description.operations.values()].find((o) => o.method === verb && o.template === url);
      if (!operation) throw new Error(`${relative(root, file)}: GitHub documents no ${verb} ${url}`);
      add(operation.operationId, file);
    }
    // @octokit/auth-app mints installation tokens with the App JWT.
    if (/\bcreateAppAuth\(/.test(text)) add('apps/create-installation-access-token', file);
  }
  return [...used.values()].sort((a, b) => a.operationId.localeCompare(b.operationId));
}
