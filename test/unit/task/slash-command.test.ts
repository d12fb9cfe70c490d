import { describe, expect, it } from 'vitest';
import { parseSlashCommand } from '../../../src/core/task/slash-command.js';

describe('parseSlashCommand', () => {
  it.each([
    ['/agent run', { command: 'run', args: '' }],
    ['/agent analyze', { command: 'analyze', args: '' }],
    ['/agent analyse', { command: 'analyze', args: '' }],
    ['/agent approve option-2', { command: 'approve', args: 'option-2' }],
    ['/agent cancel', { command: 'cancel', args: '' }],
    ['/agent retry   with more budget  ', { command: 'retry', args: 'with more budget' }],
    ['/agent status', { command: 'status', args: '' }],
    ['/agent help', { command: 'help', args: '' }],
    ['/agent RUN', { command: 'run', args: '' }],
    ['/agent', { command: 'help', args: '' }],
    ['  /agent run  ', { command: 'run', args: '' }],
    ['/agent\trun', { command: 'run', args: '' }],
    ['/agent deploy prod', { command: 'help', args: 'prod', unknown: 'deploy' }],
    ['Thanks!\n\n/agent run\n/agent cancel', { command: 'run', args: '' }],
    ['first line\r\n/agent approve\r\n', { command: 'approve', args: '' }],
  ])('%j', (body, expected) => {
    expect(parseSlashCommand(body)).toEqual(expected);
  });

  it.each([
    ['no command', 'Looks good to me'],
    ['prefix glued to a word', '/agentrun'],
    ['prefix in the middle of a line', 'please /agent run this'],
    ['quoted reply', '> /agent run'],
    ['inside a code block', 'Use it like this:\n```\n/agent run\n```'],
    ['empty body', ''],
  ])('ignores %s', (_name, body) => {
    expect(parseSlashCommand(body)).toBeUndefined();
  });

  it('honours a custom prefix from the policy', () => {
    expect(parseSlashCommand('/bot run', '/bot')).toEqual({ command: 'run', args: '' });
    expect(parseSlashCommand('/agent run', '/bot')).toBeUndefined();
  });
});
