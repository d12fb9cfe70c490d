import { describe, expect, it } from 'vitest';
import { reviewState } from '../../../src/app/campaign/pull-states.js';

const review = (login: string, state: string) => ({ user: { login }, state });

describe("a campaign pull request's review state", () => {
  it('is each reviewer’s last verdict: changes requested wins, then approved, else none', () => {
    expect(reviewState([])).toBe('none');
    expect(reviewState([review('a', 'COMMENTED')])).toBe('none');
    expect(reviewState([review('a', 'APPROVED'), review('b', 'CHANGES_REQUESTED')])).toBe('changes requested');
    expect(reviewState([review('a', 'CHANGES_REQUESTED'), review('a', 'APPROVED')])).toBe('approved');
    // A comment after a verdict leaves the verdict standing.
    expect(reviewState([review('a', 'APPROVED'), review('a', 'COMMENTED')])).toBe('approved');
  });

  it('a dismissal withdraws the reviewer’s verdict', () => {
    expect(reviewState([review('a', 'CHANGES_REQUESTED'), review('a', 'DISMISSED'), review('b', 'APPROVED')])).toBe('approved');
    expect(reviewState([review('a', 'APPROVED'), review('a', 'DISMISSED')])).toBe('none');
  });
});
