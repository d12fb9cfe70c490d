import { describe, expect, it } from 'vitest';
import { wireToolName } from '../../../../src/core/engines/llm/index.js';
import { PHASE_CONTRACTS, PHASE_NAMES, TOOL_NAMES } from '../../../../src/core/phases/phase-contracts.js';
import { toolBench } from './tool-fixture.js';

const EDIT_TOOLS = ['file.edit', 'file.create', 'file.write'];
const NAVIGATION_TOOLS = [
  'repo_map.find_definition',
  'repo_map.find_importers',
  'repo_map.find_tests',
  'repo_map.owners',
  'repo_map.explain_path',
  'repo_map.find_files',
];

describe('model tools and the phase contracts', () => {
  it('every tool a segment offers is a contract tool with a distinct wire name; the path-substring filter is gone', async () => {
    const b = await toolBench({ 'a.ts': 'export const a = 1;\n' }, { segmentPaths: ['a.ts'] });
    const names = [...b.tools.keys()];
    for (const name of names) expect(TOOL_NAMES).toContain(name);
    expect(new Set(names.map(wireToolName)).size).toBe(names.length);
    expect(names).not.toContain('repo_map.query');
    expect(names).toEqual(expect.arrayContaining([...EDIT_TOOLS, 'file.delete', ...NAVIGATION_TOOLS, 'file.read', 'code_search.search', 'git.diff']));
  });

  it('edit tools only where whole-file writes are allowed; navigation wherever the model reads', () => {
    for (const phase of PHASE_NAMES) {
      const allowed = PHASE_CONTRACTS[phase].allowedTools as readonly string[];
      for (const tool of EDIT_TOOLS) expect([phase, tool, allowed.includes(tool)]).toEqual([phase, tool, allowed.includes('file.write')]);
    }
    for (const phase of ['discovery', 'planning', 'mechanical_change', 'local_repair'] as const) {
      expect(PHASE_CONTRACTS[phase].allowedTools).toEqual(expect.arrayContaining([...NAVIGATION_TOOLS, 'file.read', 'code_search.search']));
    }
    expect(PHASE_CONTRACTS.local_repair.allowedTools).not.toContain('file.delete');
  });
});
