import type { ManifestDependency } from './manifest-schema.js';
import type { ParsedManifest } from './parse-util.js';

export function parseGoMod(text: string): ParsedManifest {
  const lines = text.replace(/\/\/.*$/gm, '').split('\n');
  let name: string | undefined;
  const facts: Record<string, string> = {};
  const dependencies: ManifestDependency[] = [];
  let block: string | undefined;
  const directive = (verb: string, rest: string): void => {
    const parts = rest.trim().split(/\s+/).filter(Boolean);
    if (parts.length === 0) return;
    if (verb === 'require') dependencies.push({ name: parts[0], version: parts[1], kind: 'dependency' });
    else if (verb === 'replace') {
      const arrow = parts.indexOf('=>');
      const target = parts[arrow + 1];
      if (arrow > 0 && target && (target.startsWith('./') || target.startsWith('../'))) dependencies.push({ name: parts[0], kind: 'path', target });
    }
  };
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (block) {
      if (line === ')') block = undefined;
      else directive(block, line);
      continue;
    }
    const m = /^(\w+)\s*(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === 'module') name = m[2].trim().replace(/^"|"$/g, '');
    else if (m[1] === 'go') facts.go = m[2].trim();
    else if (m[2].trim() === '(') block = m[1];
    else directive(m[1], m[2]);
  }
  if (!name) throw new Error('go.mod has no module directive');
  return { name, dependencies, facts };
}

export function parseGoWork(text: string): ParsedManifest {
  const src = text.replace(/\/\/.*$/gm, '');
  const members: string[] = [];
  for (const m of src.matchAll(/\buse\s*\(([^)]*)\)/g)) members.push(...m[1].split(/\s+/).filter(Boolean));
  for (const m of src.matchAll(/^\s*use\s+([^\s(]+)\s*$/gm)) members.push(m[1]);
  return { members: members.map((m) => m.replace(/^"|"$/g, '')), dependencies: [] };
}
