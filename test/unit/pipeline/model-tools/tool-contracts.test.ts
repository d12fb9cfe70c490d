import { describe, expect, it } from 'vitest';
import { TOOL_NAME_PATTERN } from '../../../../src/core/engines/llm/index.js';
import { PHASE_CONTRACTS, PHASE_NAMES, TOOL_NAMES } from '../../../../src/core/phases/phase-contracts.js';
import { toolBench } from './tool-fixture.js';

const EDIT_TOOLS = ['file_edit', 'file_create', 'file_write'];
const NAVIGATION_TOOLS = [
  'repo_map_find_definition',
  'repo_map_find_importers',
  'repo_map_find_tests',
  'repo_map_owners',
  'repo_map_explain_path',
  'repo_map_find_files',
];

describe('model tools and the phase contracts', () => {
  it('every tool a segment offers is a contract tool, named as the model calls it; the path-substring filter is gone', async () => {
    const b = await toolBench({ 'a.ts': 'export const a = 1;\n' }, { segmentPaths: ['a.ts'] });
    const names = [...b.tools.keys()];
    for (const name of names) expect(TOOL_NAMES).toContain(name);
    for (const name of TOOL_NAMES) expect(name).toMatch(TOOL_NAME_PATTERN);
    expect(names).not.toContain('repo_map_query');
    expect(names).toEqual(expect.arrayContaining([...EDIT_TOOLS, 'file_delete', ...NAVIGATION_TOOLS, 'file_read', 'code_search', 'git_diff']));
  });

  it('edit tools only where whole-file writes are allowed; navigation wherever the model reads', () => {
    for (const phase of PHASE_NAMES) {
      const allowed = PHASE_CONTRACTS[phase].allowedTools as readonly string[];
      for (const tool of EDIT_TOOLS) expect([phase, tool, allowed.includes(tool)]).toEqual([phase, tool, allowed.includes('file_write')]);
    }
    for (const phase of ['discovery', 'planning', 'mechanical_change', 'local_repair'] as const) {
      expect(PHASE_CONTRACTS[phase].allowedTools).toEqual(expect.arrayContaining([...NAVIGATION_TOOLS, 'file_read', 'code_search']));
    }
    expect(PHASE_CONTRACTS.local_repair.allowedTools).not.toContain('file_delete');
  });
});
