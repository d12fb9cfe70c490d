import { describe, expect, it } from 'vitest';
import { isRequirementsFile } from '../../../src/core/paths/requirements-file.js';
import { manifestKindFor } from '../../../src/core/manifests/manifest-kinds.js';

describe('isRequirementsFile: one rule for the repository map and the bump recipe', () => {
  it.each([
    ['requirements.txt', true],
    ['requirements-dev.txt', true],
    ['services/api/requirements_test.txt', true],
    ['constraints.txt', true],
    ['requirements/base.in', true],
    ['requirements/tests-pallets-min.in', true],
    ['requirements/ci/docs.txt', true],
    ['dev-requirements.txt', true],
    ['ci/test_requirements.txt', true],
    ['docs.requirements.in', true],
    ['nonrequirements.txt', false],
    ['docs/requirements.md', false],
    ['notes.txt', false],
    ['src/requirements.py', false],
  ] as const)('%s -> %s', (path, expected) => {
    expect(isRequirementsFile(path)).toBe(expected);
    expect(manifestKindFor(path) === 'requirements').toBe(expected);
  });
});
