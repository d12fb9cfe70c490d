import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SERVE_VARIABLES } from '../../../src/app/serve/serve-settings.js';

/** `.env.example` and the variables `serve` reads are one list: the settings schema is its truth. */
describe('.env.example', () => {
  const text = readFileSync(join(import.meta.dirname, '..', '..', '..', '.env.example'), 'utf8');
  const listed = [...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1]);

  it('.env.example lists every variable serve reads, set or commented out', () => {
    expect(SERVE_VARIABLES.filter((name) => !listed.includes(name))).toEqual([]);
  });

  it('.env.example lists no variable serve does not read, each once', () => {
    expect(listed.filter((name) => !SERVE_VARIABLES.includes(name))).toEqual([]);
    expect(listed.filter((name, at) => listed.indexOf(name) !== at)).toEqual([]);
  });
});
