import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../../src/core/manifests/parse-manifest.js';
import { parseWorkflowDocument } from '../../../src/core/manifests/other-manifests.js';
import { outlineWorkflow } from '../../../src/core/manifests/workflow-outline.js';

/** Workflows of the plain shape: the outline reads them. */
const PLAIN: Record<string, string> = {
  typical: `name: CI
on:
  push:
    branches: [main]
  pull_request:
permissions:
  contents: read
jobs:
  test:
    runs-on: \${{ matrix.os }}
    strategy:
      matrix:
        os: [ubuntu-latest, windows-latest]
    steps:
      - uses: actions/checkout@v4 # pinned by tag
      - name: Setup
        uses: pnpm/action-setup@a7487c7e89a18df4991f7f222e4898a00d66ddda
        with:
          version: 9
      - run: |
          echo "uses: not/an-action@v1"
          - uses: also/not@v2
      - name: Local action
        uses: ./.github/actions/build
  lint:
    needs: test
    steps:
    - uses: actions/setup-node@v4
    - name: multi
      run: >
        uses: folded/text@v1
    - uses: docker://alpine:3.19
`,
  'document marker, comments, a job without steps, a reusable workflow': `---
# comment
name: Release   # trailing
on: workflow_dispatch
jobs:
  call:
    uses: org/repo/.github/workflows/x.yml@main
  build:
    runs-on: ubuntu-latest
    # a comment at the key column
    steps:
        -   uses: actions/cache@v4
            with:
              path: ~/.cache
        -   name: no uses
            run: make
`,
  'no jobs': 'name: Empty\non: push\n',
  'no name': 'on: push\njobs:\n  a:\n    steps:\n      - uses: x/y@1\n',
};

/** Shapes beyond the outline: the full parse decides, and the result is the same. */
const BEYOND: Record<string, string> = {
  'flow mapping job': 'name: F\njobs:\n  a: { runs-on: x, steps: [{ uses: a/b@1 }] }\n',
  'flow step': 'jobs:\n  a:\n    steps:\n      - { uses: a/b@1 }\n',
  'quoted uses': 'jobs:\n  a:\n    steps:\n      - uses: "actions/checkout@v4"\n      - uses: \'x/y@2\'\n',
  'escaped name': 'name: "CI \\u0041"\njobs:\n  a:\n    steps:\n      - uses: a/b@1\n',
  'numeric name': 'name: 1.0\njobs:\n  a:\n    steps:\n      - uses: a/b@1\n',
  'boolean name': 'name: true\n',
  'null name': 'name:\njobs:\n  a:\n    steps:\n      - uses: a/b@1\n',
  'multi-line name': 'name: a long\n  name here\njobs:\n  a:\n    steps:\n      - uses: a/b@1\n',
  anchors: 'jobs:\n  a: &job\n    steps:\n      - uses: a/b@1\n  b: *job\n',
  'quoted job id': 'jobs:\n  "a b":\n    steps:\n      - uses: a/b@1\n',
  'duplicate job': 'jobs:\n  a:\n    steps:\n      - uses: a/b@1\n  a:\n    steps:\n      - uses: c/d@1\n',
  'duplicate uses': 'jobs:\n  a:\n    steps:\n      - uses: a/b@1\n        uses: c/d@1\n',
  'tab indentation': 'jobs:\n\ta:\n\t\tsteps:\n\t\t\t- uses: a/b@1\n',
  'two documents': 'name: one\n---\nname: two\n',
  'empty job': 'jobs:\n  a:\n  b:\n    steps:\n      - uses: a/b@1\n',
  'jobs is null': 'jobs:\nname: x\n',
  'steps is a map': 'jobs:\n  a:\n    steps:\n      uses: a/b@1\n',
  'broken yaml': 'jobs:\n  a:\n    steps:\n      - uses: a/b@1\n     bad: indent\n',
  'value with colon-space': 'name: a: b\njobs:\n  a:\n    steps:\n      - uses: a/b@1\n',
  'number uses': 'jobs:\n  a:\n    steps:\n      - uses: 12\n',
};

describe('outlineWorkflow', () => {
  it.each(Object.entries(PLAIN))('reads the plain shape (%s) as the full parse does', (_label, text) => {
    expect(outlineWorkflow(text)).toBeDefined();
    expect(parseManifest('github-workflow', text, '.github/workflows/ci.yml')).toEqual(parseWorkflowDocument(text));
  });

  it('takes the uses of steps only, never from run scripts or a reusable workflow call', () => {
    expect(outlineWorkflow(PLAIN.typical)).toEqual({
      name: 'CI',
      jobs: ['test', 'lint'],
      uses: [
        'actions/checkout@v4',
        'pnpm/action-setup@a7487c7e89a18df4991f7f222e4898a00d66ddda',
        './.github/actions/build',
        'actions/setup-node@v4',
        'docker://alpine:3.19',
      ],
    });
    expect(
      parseManifest('github-workflow', PLAIN['document marker, comments, a job without steps, a reusable workflow'], '.github/workflows/ci.yml'),
    ).toMatchObject({
      name: 'Release',
      facts: { jobs: 'build,call' },
      dependencies: [{ name: 'actions/cache', version: 'v4' }],
    });
  });

  it.each(Object.entries(BEYOND))('leaves %s to the full parse, with the same result', (_label, text) => {
    expect(outlineWorkflow(text)).toBeUndefined();
    expect(parseManifest('github-workflow', text, '.github/workflows/ci.yml')).toEqual(safeFull(text));
  });
});

function safeFull(text: string): unknown {
  try {
    return parseWorkflowDocument(text);
  } catch (error) {
    return { dependencies: [], parseError: (error as Error).message.split('\n')[0].slice(0, 300) };
  }
}
