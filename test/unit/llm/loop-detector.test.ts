import { describe, expect, it } from 'vitest';
import { LoopDetector } from '../../../src/core/engines/llm/loop-detector.js';

describe('LoopDetector', () => {
  it('goes, warns once at the last allowed repeat, then stops', () => {
    const d = new LoopDetector({ maxRepeats: 3 });
    expect(d.call('file_read', '{"path":"a"}')).toEqual({ action: 'go' });
    expect(d.call('file_read', '{"path":"a"}')).toMatchObject({ action: 'warn', note: expect.stringContaining('you already called file_read') });
    expect(d.call('file_read', '{"path":"a"}')).toMatchObject({ action: 'stop', message: expect.stringContaining('3 times') });
  });

  it('compares canonical arguments: key order and spacing do not matter, other values and other tools do', () => {
    const d = new LoopDetector();
    expect(d.call('search', '{"q":"x","max":5}').action).toBe('go');
    expect(d.call('search', '{"q":"y","max":5}').action).toBe('go');
    expect(d.call('grep', '{"q":"x","max":5}').action).toBe('go');
    expect(d.call('search', ' { "max": 5, "q": "x" } ').action).toBe('warn');
    // Empty arguments are the empty object; unparsable ones compare as sent.
    expect(d.call('git_diff', '').action).toBe('go');
    expect(d.call('git_diff', '{}').action).toBe('warn');
    expect(d.call('bad', '{"a":').action).toBe('go');
    expect(d.call('bad', '{"b":').action).toBe('go');
    expect(d.call('bad', ' {"a":').action).toBe('warn');
  });

  it('forgets every repeat when the progress marker moves, not when it stays', () => {
    const d = new LoopDetector();
    d.progress(0);
    expect(d.call('file_read', '{"path":"a"}').action).toBe('go');
    d.progress(0);
    expect(d.call('file_read', '{"path":"a"}').action).toBe('warn');
    d.progress(1);
    expect(d.call('file_read', '{"path":"a"}').action).toBe('go');
  });

  it('never stops before one call was answered and one warned', () => {
    expect(new LoopDetector({ maxRepeats: 2 }).maxRepeats).toBe(3);
    const d = new LoopDetector({ maxRepeats: 4 });
    expect(['go', 'go', 'warn', 'stop'].map(() => d.call('x', '{}').action)).toEqual(['go', 'go', 'warn', 'stop']);
  });
});
