import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_TERMS, deriveSearchTerms } from '../../../src/core/task/search-terms.js';
import type { RecipeStep } from '../../../src/core/task/recipe-steps.js';

const terms = (objective: string, steps: RecipeStep[] = [], title = '') => deriveSearchTerms({ title, objective, steps }).map((t) => `${t.kind}:${t.term}`);

describe('deriveSearchTerms', () => {
  it('finds the dotted symbol, its parts and the target in "Migrate `LegacyAuthClient.exchangeToken` to ..."', () => {
    const found = deriveSearchTerms({
      title: 'Auth migration',
      objective: 'Migrate `LegacyAuthClient.exchangeToken` to `TokenService.exchange` everywhere.',
      steps: [],
    });
    expect(found).toEqual([
      { term: 'LegacyAuthClient.exchangeToken', kind: 'symbol', source: 'objective' },
      { term: 'LegacyAuthClient', kind: 'symbol', source: 'objective' },
      { term: 'exchangeToken', kind: 'symbol', source: 'objective' },
      { term: 'TokenService.exchange', kind: 'symbol', source: 'objective' },
      { term: 'TokenService', kind: 'symbol', source: 'objective' },
    ]);
  });

  it('puts recipe parameters first, with the step they came from', () => {
    const steps: RecipeStep[] = [
      { recipe: 'replace', find: 'oldHost', replace: 'newHost', regex: false, flags: '', wordBoundary: 'auto' },
      { recipe: 'replace', find: 'a+b', replace: 'c', regex: true, flags: '', wordBoundary: 'auto' },
      { recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' },
      { recipe: 'bump-dependency', package: 'org.springframework:spring-core', to: '6.1.0' },
      { recipe: 'rename-symbol', from: 'OldName', to: 'NewName' },
    ];
    const found = deriveSearchTerms({ title: '', objective: 'Also `OldName` in docs.', steps });
    expect(found.map((t) => [t.term, t.kind, t.source])).toEqual([
      ['oldHost', 'recipe-parameter', 'steps[0].find'],
      ['javax.persistence', 'recipe-parameter', 'steps[2].from'],
      ['jakarta.persistence', 'recipe-parameter', 'steps[2].to'],
      ['org.springframework:spring-core', 'recipe-parameter', 'steps[3].package'],
      ['OldName', 'recipe-parameter', 'steps[4].from'],
      ['NewName', 'recipe-parameter', 'steps[4].to'],
    ]);
  });

  it.each([
    ['CamelCase in prose', 'The PaymentGateway times out.', ['symbol:PaymentGateway']],
    ['camelCase in prose', 'Rename parseConfig please.', ['symbol:parseConfig']],
    ['SCREAMING_SNAKE constant', 'Raise MAX_RETRIES to 5.', ['symbol:MAX_RETRIES']],
    ['acronym prefix', 'The HTTPClient leaks.', ['symbol:HTTPClient']],
    ['Rust path', 'Fix tokio::spawn_blocking usage in Runtime::new.', ['symbol:tokio::spawn_blocking', 'symbol:spawn_blocking', 'symbol:Runtime::new']],
    ['backticked lower-case word', 'Call `refresh()` less often.', ['symbol:refresh']],
    ['quoted identifier', 'The setting "retry_limit" and \'maxConn\' matter.', ['quoted-identifier:retry_limit', 'quoted-identifier:maxConn']],
    ['Java package in prose', 'Drop javax.servlet and com.acme.legacy.util.', ['package:javax.servlet', 'package:com.acme.legacy.util']],
    ['scoped npm package', 'Upgrade @octokit/rest now.', ['package:@octokit/rest']],
    ['backticked package', 'Replace `lodash.merge` usage.', ['package:lodash.merge']],
    ['file paths', 'See src/main/java/App.java and `config/app.yml`, also pom.xml.', ['path:config/app.yml', 'path:src/main/java/App.java', 'path:pom.xml']],
    ['plain prose only', 'Please make the login page faster and nicer.', []],
    ['product names and plurals are not symbols', 'Our GitHub and JavaScript URLs, PRs and APIs.', []],
    ['URLs are skipped', 'See https://example.com/src/Foo.java for details.', []],
    ['Class.member in prose', 'Stop calling Runtime.getRuntime here.', ['symbol:Runtime.getRuntime', 'symbol:getRuntime']],
    ['sentence punctuation trimmed', 'Fix UserRepository.', ['symbol:UserRepository']],
    ['apostrophes are not quotes', "don't touch it's fine", []],
  ])('%s', (_name, objective, expected) => {
    expect(terms(objective)).toEqual(expected);
  });

  it('lists each term once, with the first way it was found', () => {
    expect(terms('`SessionStore` and SessionStore and "SessionStore"')).toEqual(['symbol:SessionStore']);
  });

  it('reads the title too: backticked names first, then prose names, title before objective in each', () => {
    const found = deriveSearchTerms({ title: 'Remove `FeatureFlagService` and FlagCache', objective: 'and `OtherThing`, OtherCache', steps: [] });
    expect(found.map((t) => [t.term, t.source])).toEqual([
      ['FeatureFlagService', 'title'],
      ['OtherThing', 'objective'],
      ['FlagCache', 'title'],
      ['OtherCache', 'objective'],
    ]);
  });

  it(`stops at ${MAX_SEARCH_TERMS} terms`, () => {
    const objective = Array.from({ length: 200 }, (_, i) => `Name${i}Thing`).join(' ');
    const found = deriveSearchTerms({ title: '', objective, steps: [] });
    expect(found).toHaveLength(MAX_SEARCH_TERMS);
    expect(found[0].term).toBe('Name0Thing');
  });
});
