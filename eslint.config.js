import tseslint from 'typescript-eslint';

const coreBans = {
  paths: [
    { name: 'probot', message: 'src/core is pure: receive this through a port (DESIGN §3).' },
    { name: 'memfs', message: 'src/core receives an FsLike; the memfs adapter lives in src/app.' },
    { name: 'node:fs', message: 'src/core receives an FsLike.' },
    { name: 'fs', message: 'src/core receives an FsLike.' },
    { name: 'node:fs/promises', message: 'src/core receives an FsLike.' },
    { name: 'fs/promises', message: 'src/core receives an FsLike.' },
  ],
  patterns: [
    { group: ['@octokit/*'], message: 'GitHub access belongs to src/app.' },
    { group: ['@aws-sdk/*'], message: 'AWS access belongs to src/app.' },
    { group: ['isomorphic-git/http/*'], message: 'Transport is injected through RepoSource.' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.serverless/**'] },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {},
  },
  {
    files: ['src/core/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', coreBans] },
  },
);
