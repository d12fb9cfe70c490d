import { describe, expect, it } from 'vitest';
import { CampaignSelector, MAX_CAMPAIGN_REPOSITORIES } from '../../../src/core/campaign/campaign-spec.js';
import { campaignRepositories, matchingFiles, selectByMetadata, type InstalledRepository } from '../../../src/core/campaign/select-repositories.js';

const repo = (fullName: string, over: Partial<InstalledRepository> = {}): InstalledRepository => ({
  id: fullName.length,
  fullName,
  defaultBranch: 'main',
  cloneUrl: `https://example.test/${fullName}.git`,
  topics: [],
  language: null,
  archived: false,
  fork: false,
  ...over,
});

const FLEET = [
  repo('acme/web', { topics: ['frontend'], language: 'TypeScript' }),
  repo('acme/orders-service', { topics: ['java', 'payments'], language: 'Java' }),
  repo('acme/billing-service', { topics: ['Java'], language: 'java' }),
  repo('acme/old-service', { topics: ['java'], language: 'Java', archived: true }),
  repo('acme/fork-service', { topics: ['java'], language: 'Java', fork: true }),
  repo('acme/tools/x-service', { topics: ['java'], language: 'Java' }),
  repo('other/ledger-service', { topics: ['java'], language: 'Java' }),
];

const names = (selector: unknown) => selectByMetadata(CampaignSelector.parse(selector), FLEET).map((r) => r.fullName);

describe('selectByMetadata', () => {
  it('takes every repository but archived ones and forks when the selector is empty, sorted by name', () => {
    expect(names({})).toEqual(['acme/billing-service', 'acme/orders-service', 'acme/tools/x-service', 'acme/web', 'other/ledger-service']);
  });

  it('matches owner/name globs case-insensitively, with * inside one segment', () => {
    expect(names({ names: ['ACME/*-service'] })).toEqual(['acme/billing-service', 'acme/orders-service']);
    expect(names({ names: ['acme/web', 'other/*'] })).toEqual(['acme/web', 'other/ledger-service']);
    expect(names({ names: ['acme/?eb'] })).toEqual(['acme/web']);
  });

  it('asks for every topic, and for the primary language, both case-insensitively', () => {
    expect(names({ topics: ['java', 'payments'] })).toEqual(['acme/orders-service']);
    expect(names({ names: ['acme/*'], topics: ['java'], language: 'JAVA' })).toEqual(['acme/billing-service', 'acme/orders-service']);
    expect(names({ language: 'TypeScript' })).toEqual(['acme/web']);
  });

  it('takes archived repositories and forks only when asked', () => {
    expect(names({ names: ['acme/*-service'], archived: true })).toEqual(['acme/billing-service', 'acme/old-service', 'acme/orders-service']);
    expect(names({ names: ['acme/*-service'], forks: true })).toEqual(['acme/billing-service', 'acme/fork-service', 'acme/orders-service']);
  });
});

describe('campaignRepositories', () => {
  it('keeps the list first in its order, then the selection, each once', () => {
    expect(campaignRepositories(['acme/web', 'acme/Orders', 'acme/web'], ['acme/billing', 'acme/orders', 'acme/zeta'])).toEqual([
      'acme/web',
      'acme/Orders',
      'acme/billing',
      'acme/zeta',
    ]);
  });

  it('stops at the campaign bound', () => {
    const many = Array.from({ length: MAX_CAMPAIGN_REPOSITORIES + 5 }, (_, i) => `acme/r${i}`);
    const out = campaignRepositories(['acme/first'], many);
    expect(out).toHaveLength(MAX_CAMPAIGN_REPOSITORIES);
    expect(out[0]).toBe('acme/first');
  });
});

describe('matchingFiles', () => {
  it('matches tree paths in the policy glob dialect', () => {
    const paths = ['pom.xml', 'svc/pom.xml', 'svc/src/Main.java', 'docs/pom.xml.md'];
    expect(matchingFiles('**/pom.xml', paths)).toEqual(['pom.xml', 'svc/pom.xml']);
    expect(matchingFiles('svc', paths)).toEqual(['svc/pom.xml', 'svc/src/Main.java']);
    expect(matchingFiles('*.xml', paths)).toEqual(['pom.xml']);
  });
});
