import { parse as parseYaml } from 'yaml';
import type { ManifestDependency } from './manifest-schema.js';
import { asArray, record, str, type ParsedManifest } from './parse-util.js';

export function parsePackageJson(text: string): ParsedManifest {
  const json = record(JSON.parse(text));
  const dependencies: ManifestDependency[] = [];
  for (const scope of ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies']) {
    for (const [name, version] of Object.entries(record(json[scope]))) {
      const v = str(version) ?? '';
      const kind = v.startsWith('workspace:') ? 'workspace' : v.startsWith('file:') || v.startsWith('link:') ? 'path' : 'dependency';
      dependencies.push({ name, version: v, scope, kind, ...(kind === 'path' ? { target: v.replace(/^(file|link):/, '') } : {}) });
    }
  }
  const ws = json.workspaces;
  const members = Array.isArray(ws) ? ws.map(String) : Array.isArray(record(ws).packages) ? (record(ws).packages as unknown[]).map(String) : undefined;
  const facts: Record<string, string> = {};
  const main = str(json.main) ?? str(json.module);
  if (main) facts.main = main;
  const bin = typeof json.bin === 'string' ? json.bin : Object.values(record(json.bin)).map(String)[0];
  if (bin) facts.bin = bin;
  if (str(json.packageManager)) facts.packageManager = str(json.packageManager)!;
  return {
    name: str(json.name),
    version: str(json.version),
    members,
    dependencies,
    scripts: Object.fromEntries(
      Object.entries(record(json.scripts))
        .filter(([, command]) => typeof command === 'string')
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([name, command]) => [name, String(command).slice(0, 300)]),
    ),
    facts,
  };
}

export function parsePnpmWorkspace(text: string): ParsedManifest {
  const doc = record(parseYaml(text));
  return { members: asArray(doc.packages as string[]).map(String), dependencies: [] };
}
