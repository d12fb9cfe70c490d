import { describe, expect, it } from 'vitest';
import { parsePolicy } from '../../../src/core/policy/parse-policy.js';
import { ingestionPolicy } from '../../../src/core/pipeline/ingest-stage.js';

const submodulesFor = (text: string | undefined) => ingestionPolicy(parsePolicy({ text }), false).submodules;

describe('ingestion policy: submodules', () => {
  it('keeps gitlinks opaque by default', () => {
    expect(submodulesFor(undefined)).toBe('opaque');
    expect(submodulesFor('version: 1\n')).toBe('opaque');
  });

  it('reads ingestion.submodules', () => {
    expect(submodulesFor('version: 1\ningestion:\n  submodules: block\n')).toBe('block');
  });

  it('still reads the deprecated allowSubmodules, so existing policy files keep working', () => {
    expect(submodulesFor('version: 1\ningestion:\n  allowSubmodules: false\n')).toBe('block');
    expect(submodulesFor('version: 1\ningestion:\n  allowSubmodules: true\n')).toBe('opaque');
    expect(submodulesFor('version: 1\ningestion:\n  allowSubmodules: true\n  submodules: block\n')).toBe('block');
  });
});
