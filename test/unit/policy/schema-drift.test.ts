import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { generatedSchemaFiles } from '../../../scripts/generated-schema-files.js';
import { AgentPolicy, defaultPolicy } from '../../../src/core/policy/agent-policy.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const generated = generatedSchemaFiles();

describe('generated schema files', () => {
  it.each(Object.keys(generated))('%s matches the zod schema (run `node --import tsx scripts/gen-schemas.ts`)', (path) => {
    const committed = readFileSync(join(root, path), 'utf8');
    expect(committed).toBe(generated[path]);
  });

  it('documents a default for every policy key that has one, and a description for every leaf', () => {
    const reference = generated['docs/policy-reference.md'];
    const rows = reference.split('\n').filter((line) => line.startsWith('| `'));
    const byKey = new Map(rows.map((row) => [row.split('|')[1].trim().replace(/`/g, ''), row.split('|').map((c) => c.trim())]));
    for (const key of [
      'agent.enabled',
      'agent.forbiddenPaths',
      'ingestion.maxRepoSizeMb',
      'triggers.minPermission',
      'limits.runsPerHour',
      'baseMovementPolicy',
      'editRules.lockfiles.default',
    ]) {
      expect(byKey.get(key)?.[3], key).not.toBe('');
      expect(byKey.get(key)?.[4], key).not.toBe('');
    }
    expect(byKey.get('ingestion.maxRepoSizeMb')?.[3]).toBe('`500`');
    expect(byKey.get('triggers.minPermission')?.[3]).toBe('`write`');
    expect(byKey.get('version')?.[3]).toBe('required');
  });

  it('the JSON Schema carries the same defaults as the zod schema', () => {
    const schema = JSON.parse(generated['schema/agent-policy.schema.json']) as {
      required: string[];
      additionalProperties: boolean;
      properties: Record<string, { properties: Record<string, { default?: unknown }> }>;
    };
    const defaults = defaultPolicy();
    expect(schema.required).toEqual(['version']);
    expect(schema.additionalProperties).toBe(false);
    for (const section of ['agent', 'ingestion', 'triggers', 'limits'] as const) {
      for (const [key, property] of Object.entries(schema.properties[section].properties)) {
        // Sections default to `{}` as input and are filled in by their own keys' defaults.
        const isSection = typeof property.default === 'object' && property.default !== null && !Array.isArray(property.default);
        if ('default' in property && !isSection) expect(property.default, `${section}.${key}`).toEqual((defaults[section] as Record<string, unknown>)[key]);
      }
    }
    expect(Object.keys(schema.properties).sort()).toEqual(Object.keys(AgentPolicy.shape).sort());
  });
});
