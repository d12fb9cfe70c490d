import { describe, expect, it } from 'vitest';
import { localRepositoryName, ownerNameOfUrl } from '../../../src/core/campaign/repository-name.js';
import { identityFromUrl } from '../../../src/app/git/repo-identity.js';

describe('ownerNameOfUrl', () => {
  it.each([
    ['https://github.com/acme/web.git', 'acme/web'],
    ['https://git.example.com/group/sub/acme/web/', 'acme/web'],
    ['http://127.0.0.1:8080/git/acme/api', 'acme/api'],
    ['ssh://git@github.com/acme/billing.git', 'acme/billing'],
    ['git@github.com:acme/billing.git', 'acme/billing'],
    ['github.com:acme/web', 'acme/web'],
    ['file:///srv/git/acme/orders.git', 'acme/orders'],
    ['/srv/git/acme/orders.git', 'acme/orders'],
  ])('%s -> %s', (url, name) => {
    const named = ownerNameOfUrl(url);
    expect(named && `${named.owner}/${named.repo}`).toBe(name);
  });

  it.each([['https://github.com/web.git'], ['git@github.com:web.git'], ['../web.git'], ['web'], ['https://[bad']])('%s names no owner/name', (url) =>
    expect(ownerNameOfUrl(url)).toBeUndefined(),
  );

  it("is the CLI's storage identity of a URL, made safe for keys", () => {
    expect(identityFromUrl('https://example.com/ac%20me/web.git')).toEqual({ owner: 'ac_20me', repo: 'web' });
    expect(identityFromUrl('https://example.com/web.git')).toEqual({ owner: 'example.com', repo: 'web' });
  });
});

describe('localRepositoryName', () => {
  it('names a checkout without a remote by its directory, a bare one without .git', () => {
    expect(localRepositoryName('orders')).toBe('local/orders');
    expect(localRepositoryName('orders.git')).toBe('local/orders');
  });
});
