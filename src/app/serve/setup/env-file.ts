import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** A value as a dotenv line holds it: quoted when it has spaces, quotes or line breaks (`\n` escaped, as Probot writes PRIVATE_KEY). */
function quote(value: string): string {
  if (/^[A-Za-z0-9_./:@+-]*$/.test(value)) return value;
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}

/**
 * Sets `values` in the env file at `path`: a variable already there gets its line replaced (a
 * commented-out `# NAME=` line too), the others are appended; every other line is kept as it is.
 * The file is written with mode 0600, as it holds the App's key.
 */
export function updateEnvFile(path: string, values: Record<string, string>): void {
  const lines = existsSync(path) ? readFileSync(path, 'utf8').split('\n') : [];
  if (lines.at(-1) === '') lines.pop();
  const pending = new Map(Object.entries(values));
  const out = lines.map((line) => {
    const name = /^\s*(?:#\s*)?([A-Za-z_][A-Za-z0-9_]*)\s*=/.exec(line)?.[1];
    if (name === undefined || !pending.has(name)) return line;
    const value = pending.get(name)!;
    pending.delete(name);
    return `${name}=${quote(value)}`;
  });
  for (const [name, value] of pending) out.push(`${name}=${quote(value)}`);
  writeFileSync(path, `${out.join('\n')}\n`, { mode: 0o600 });
}
