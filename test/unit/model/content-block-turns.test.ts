import { describe, expect, it } from 'vitest';
import { toBlockConversation } from '../../../src/app/model/content-block-turns.js';
import type { ChatMessage } from '../../../src/core/ports.js';

const call = (id: string, name: string, args: string) => ({ id, type: 'function' as const, function: { name, arguments: args } });

describe('toBlockConversation', () => {
  it('puts system text apart and alternates turns, tool results and a following user message sharing one user turn', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'rules' },
      { role: 'system', content: '  ' },
      { role: 'user', content: 'task' },
      { role: 'user', content: 'more context' },
      { role: 'assistant', content: 'Looking.', tool_calls: [call('a', 'file_read', '{"path":"x"}'), call('b', 'git_diff', '{}')] },
      { role: 'tool', tool_call_id: 'a', content: 'text of x' },
      { role: 'tool', tool_call_id: 'b', content: '' },
      { role: 'user', content: 'budget note' },
      { role: 'assistant', content: 'Done.' },
    ];

    expect(toBlockConversation(messages)).toEqual({
      system: ['rules'],
      turns: [
        {
          role: 'user',
          blocks: [
            { type: 'text', text: 'task' },
            { type: 'text', text: 'more context' },
          ],
        },
        {
          role: 'assistant',
          blocks: [
            { type: 'text', text: 'Looking.' },
            { type: 'tool_use', id: 'a', name: 'file_read', input: { path: 'x' } },
            { type: 'tool_use', id: 'b', name: 'git_diff', input: {} },
          ],
        },
        {
          role: 'user',
          blocks: [
            { type: 'tool_result', id: 'a', text: 'text of x' },
            { type: 'tool_result', id: 'b', text: '(no output)' },
            { type: 'text', text: 'budget note' },
          ],
        },
        { role: 'assistant', blocks: [{ type: 'text', text: 'Done.' }] },
      ],
    });
  });

  it.each([
    ['malformed JSON', '{"path": '],
    ['an array', '[1,2]'],
    ['a string', '"x"'],
  ])('replays tool arguments that are %s as an empty object', (_, args) => {
    const { turns } = toBlockConversation([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [call('a', 'file_read', args)] },
      { role: 'tool', tool_call_id: 'a', content: 'error: arguments are not valid JSON' },
    ]);

    expect(turns[1].blocks).toEqual([{ type: 'tool_use', id: 'a', name: 'file_read', input: {} }]);
  });
});
