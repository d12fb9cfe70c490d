import { describe, expect, it } from 'vitest';
import { formatCommitMessage, MAX_SUBJECT } from '../../../src/core/git/commit-message.js';

const base = {
  type: 'refactor' as const,
  task: 'Move the persistence imports',
  intent: 'mechanical import change',
  verification: { status: 'NOT_RUN' as const, checks: [], notRun: [] },
  risk: [],
  runId: 'k3j5h2m4n6p7',
  taskId: 'sha256:abc',
};

describe('formatCommitMessage', () => {
  it('a long summary is shortened at a word boundary to a 72-character subject, never refused', () => {
    const summary = 'migrate imports from org.springframework.boot.autoconfigure.orm.jpa to org.springframework.boot.autoconfigure.data.jpa';
    const subject = formatCommitMessage({ ...base, scope: 'order-service', summary }).split('\n')[0];
    expect(subject.length).toBeLessThanOrEqual(MAX_SUBJECT);
    expect(subject).toBe('refactor(order-service): migrate imports from…');
  });

  it('a summary that fits is kept byte for byte', () => {
    expect(formatCommitMessage({ ...base, summary: 'rename total to sum' }).split('\n')[0]).toBe('refactor: rename total to sum');
  });

  it.each([
    ['a 300-character summary', 'x'.repeat(3) + ' word'.repeat(60), 'build', 'deps'],
    ['a 300-character single word', 'y'.repeat(300), 'docs', undefined],
    ['a long scope', 'move imports', 'refactor', 'module-with-a-name-long-enough-to-leave-no-room-for-the-summary-at-all'],
  ] as const)('%s gives a subject of at most 72 characters, never an error', (_name, summary, type, scope) => {
    const subject = formatCommitMessage({ ...base, type, scope, summary }).split('\n')[0];
    expect(subject.length).toBeLessThanOrEqual(MAX_SUBJECT);
    expect(subject.startsWith(`${type}${scope && scope.length < 30 ? `(${scope})` : ''}: `)).toBe(true);
  });

  it('marks a breaking change with ! after the scope', () => {
    expect(formatCommitMessage({ ...base, type: 'fix', scope: 'cart', breaking: true, summary: 'reject empty carts' }).split('\n')[0]).toBe(
      'fix(cart)!: reject empty carts',
    );
  });
});
