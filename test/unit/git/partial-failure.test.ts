import { describe, expect, it } from 'vitest';
import { CHECK_NAMES, isPartialFailure, type VerificationReport } from '../../../src/core/git/verification-report.js';

const report = (failed: string[]): VerificationReport => ({
  status: failed.length ? 'FAILED' : 'PASSED',
  checks: Object.values(CHECK_NAMES).map((name) => ({ name, status: failed.includes(name) ? 'FAILED' : 'PASSED' })),
  notRun: [],
});

describe('a partial change (agent.publishPartial)', () => {
  it('is one whose only failures are the parse and name checks', () => {
    expect(isPartialFailure(report([CHECK_NAMES.names]))).toBe(true);
    expect(isPartialFailure(report([CHECK_NAMES.parse, CHECK_NAMES.names]))).toBe(true);
  });

  it('never covers a secret or an anti-cheat finding, nor a report that passed', () => {
    expect(isPartialFailure(report([CHECK_NAMES.names, CHECK_NAMES.secrets]))).toBe(false);
    expect(isPartialFailure(report([CHECK_NAMES.antiCheat]))).toBe(false);
    expect(isPartialFailure(report([]))).toBe(false);
  });
});
