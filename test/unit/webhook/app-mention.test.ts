import { describe, expect, it } from 'vitest';
import { appSlug, mentionInstructions, mentionsApp } from '../../../src/app/webhook/app-mention.js';

const BOT = 'draftsman[bot]';

describe('mentions of the App', () => {
  it('the slug is the bot login without [bot]', () => {
    expect(appSlug(BOT)).toBe('draftsman');
  });

  it.each([
    ['@draftsman fix the test', true],
    ['Thanks! @Draftsman, please rename it.', true],
    ['@draftsman[bot] please', true],
    ['(@draftsman) too', true],
    ['@draftsman-ci fix it', false],
    ['@draftsmanship', false],
    ['mail me at x@draftsman.dev', false],
    ['see `@draftsman fix` in the docs', false],
    ['> @draftsman fix the test\nI agree with this', false],
    ['```\n@draftsman fix\n```', false],
    ['no mention here', false],
  ])('%j mentions the App: %s', (body, expected) => {
    expect(mentionsApp(body, BOT)).toBe(expected);
  });

  it('the instructions are the body without the mention', () => {
    expect(mentionInstructions('@draftsman add a Javadoc', BOT)).toBe('add a Javadoc');
    expect(mentionInstructions('Thanks! @draftsman please also say why.\nAnd keep it short.', BOT)).toBe('Thanks! please also say why.\nAnd keep it short.');
  });
});
