import { describe, expect, it } from 'vitest';
import { CampaignSelector, CampaignSpec } from '../../../src/core/campaign/campaign-spec.js';
import { selectRepository, type RepositoryTree } from '../../../src/core/campaign/select-checkout.js';
import {
  githubMetadataConditions,
  hasFileFailure,
  MAX_HAS_FILE_BYTES,
  MAX_HAS_FILE_READS,
  type TreeFile,
} from '../../../src/core/campaign/select-repositories.js';

/** A tree of `files` (path -> text) whose reads are counted. */
function treeOf(files: Record<string, string>, sizes: Record<string, number> = {}) {
  const reads: string[] = [];
  const tree: RepositoryTree = {
    files: Object.entries(files).map(([path, text]) => ({ path, id: `id-${path}`, size: sizes[path] ?? text.length })),
    read: async (file: TreeFile) => {
      reads.push(file.path);
      return files[file.path];
    },
  };
  return { tree, reads };
}

const repositoriesOf = (repositories: unknown) =>
  CampaignSpec.parse({ version: 1, name: 'c', title: 't', task: { steps: [{ recipe: 'replace', find: 'a', replace: 'b' }] }, repositories }).repositories;

describe('hasFileFailure', () => {
  const hasFile = { path: '**/pom.xml', contains: 'javax.persistence' };

  it('passes on a matching file holding the text, fails the part that is missing', async () => {
    const holds = treeOf({ 'README.md': 'javax.persistence', 'svc/pom.xml': '<g>javax.persistence</g>' });
    expect(await hasFileFailure(hasFile, holds.tree.files, holds.tree.read)).toBeUndefined();
    expect(holds.reads).toEqual(['svc/pom.xml']);
    const none = treeOf({ 'build.gradle': 'javax.persistence' });
    expect(await hasFileFailure(hasFile, none.tree.files, none.tree.read)).toBe('hasFile.path');
    expect(none.reads).toEqual([]);
    const other = treeOf({ 'pom.xml': 'jakarta.persistence' });
    expect(await hasFileFailure(hasFile, other.tree.files, other.tree.read)).toBe('hasFile.contains');
    const noText = treeOf({ 'pom.xml': 'anything' });
    expect(await hasFileFailure({ path: 'pom.xml' }, noText.tree.files, noText.tree.read)).toBeUndefined();
    expect(noText.reads).toEqual([]);
  });

  it('reads at most MAX_HAS_FILE_READS matching files, none past MAX_HAS_FILE_BYTES', async () => {
    const files = Object.fromEntries(Array.from({ length: MAX_HAS_FILE_READS + 2 }, (_, i) => [`m${String(i).padStart(2, '0')}/pom.xml`, 'plain']));
    files['m99/pom.xml'] = 'javax.persistence';
    const many = treeOf(files);
    expect(await hasFileFailure(hasFile, many.tree.files, many.tree.read)).toBe('hasFile.contains');
    expect(many.reads).toHaveLength(MAX_HAS_FILE_READS);
    const big = treeOf({ 'a/pom.xml': 'javax.persistence', 'b/pom.xml': 'javax.persistence' }, { 'a/pom.xml': MAX_HAS_FILE_BYTES + 1 });
    expect(await hasFileFailure(hasFile, big.tree.files, big.tree.read)).toBeUndefined();
    expect(big.reads).toEqual(['b/pom.xml']);
  });
});

describe('selectRepository', () => {
  const web = treeOf({ 'pom.xml': 'javax.persistence' }).tree;
  const never = () => Promise.reject(new Error('the tree is not read'));

  it('takes every repository when the spec has neither list nor select', async () => {
    expect(await selectRepository(undefined, 'local/x', never)).toEqual({ selected: true, by: 'all' });
    expect(await selectRepository(repositoriesOf({}), 'local/x', never)).toEqual({ selected: true, by: 'all' });
  });

  it('takes a listed repository (case-insensitive) without reading it; a list alone leaves out the rest', async () => {
    const repositories = repositoriesOf({ list: ['Acme/Web'], select: { names: ['other/*'], hasFile: { path: 'x' } } });
    expect(await selectRepository(repositories, 'acme/web', never)).toEqual({ selected: true, by: 'list' });
    expect(await selectRepository(repositoriesOf({ list: ['acme/web'] }), 'acme/api', never)).toMatchObject({ selected: false, condition: 'list' });
  });

  it('applies names, then hasFile over the tree; a URL (no tree) fails hasFile', async () => {
    const repositories = repositoriesOf({ select: { names: ['acme/*-service'], hasFile: { path: '**/pom.xml', contains: 'javax.persistence' } } });
    expect(await selectRepository(repositories, 'ACME/orders-service', async () => web)).toEqual({ selected: true, by: 'select' });
    expect(await selectRepository(repositories, 'acme/web', never)).toEqual({
      selected: false,
      condition: 'names',
      detail: 'names: acme/web matches none of acme/*-service',
    });
    const migrated = treeOf({ 'pom.xml': 'jakarta.persistence' }).tree;
    expect(await selectRepository(repositories, 'acme/a-service', async () => migrated)).toMatchObject({ selected: false, condition: 'hasFile.contains' });
    expect(await selectRepository(repositories, 'acme/a-service', async () => treeOf({}).tree)).toMatchObject({ selected: false, condition: 'hasFile.path' });
    expect(await selectRepository(repositories, 'acme/a-service', undefined)).toMatchObject({ selected: false, condition: 'hasFile' });
    expect(await selectRepository(repositoriesOf({ select: { names: ['acme/*'] } }), 'acme/web', undefined)).toEqual({ selected: true, by: 'select' });
  });
});

describe('githubMetadataConditions', () => {
  it('names the metadata conditions the selector writes, archived and forks only when written', () => {
    expect(githubMetadataConditions(CampaignSelector.parse({ names: ['a/*'], hasFile: { path: 'x' } }))).toEqual([]);
    expect(githubMetadataConditions(CampaignSelector.parse({ topics: ['java'], language: 'Java', forks: false }))).toEqual(['topics', 'language', 'forks']);
    expect(githubMetadataConditions(CampaignSelector.parse({ archived: true }))).toEqual(['archived']);
  });
});
