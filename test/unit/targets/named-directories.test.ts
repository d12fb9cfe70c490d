import { beforeAll, describe, expect, it } from 'vitest';
import { directoriesNamedByPath } from '../../../src/core/targets/named-paths.js';
import { pathTokens } from '../../../src/core/task/search-terms.js';
import { targetFixture } from '../../helpers/target-fixture.js';

const CANDIDATES = [
  'internal/transport/http2_client.go',
  'internal/transport/transport.go',
  'internal/xds/transport/client.go',
  'balancer/balancer.go',
  'a/x/util/u.go',
  'b/x/util/u.go',
  'c/x/util/u.go',
  'd/x/util/u.go',
];

describe('directoriesNamedByPath', () => {
  it('takes a directory the task names by its path, or the directories a shorter path ends', () => {
    expect(directoriesNamedByPath(CANDIDATES, pathTokens('internal/transport: validate metadata'))).toEqual(
      new Map([['internal/transport', 'internal/transport']]),
    );
    expect(directoriesNamedByPath(CANDIDATES, pathTokens('the code in xds/transport/ drops it'))).toEqual(
      new Map([['internal/xds/transport', 'xds/transport']]),
    );
  });

  it('leaves out URLs, one-segment words, paths naming no directory and paths naming too many', () => {
    const text = 'See https://github.com/grpc/internal/transport and HTTP/2, transport, balancer/nothing-here, x/util';
    expect(directoriesNamedByPath(CANDIDATES, pathTokens(text))).toEqual(new Map());
  });
});

/** A Go project whose package path the title names, as Go projects title their issues. */
const FILES: Record<string, string> = {
  'go.mod': 'module example.com/wire\n\ngo 1.22\n',
  'internal/transport/client.go':
    'package transport\n\n// encode writes the outgoing Metadata as lines.\nfunc encode(md map[string]string) []string {\n\tout := []string{}\n\tfor k, v := range md {\n\t\tout = append(out, k+": "+v)\n\t}\n\treturn out\n}\n',
  'balancer/pick.go':
    'package balancer\n\n// PickResult carries Metadata and Done.\ntype PickResult struct {\n\tMetadata map[string]string\n\tDone     func()\n}\n',
  ...Object.fromEntries(
    ['lb/a.go', 'lb/b.go', 'lb/c.go', 'lb/d.go', 'lb/e.go'].map((p) => [
      p,
      `package lb\n\n// Metadata of a PickResult, copied.\nfunc Copy${p[3].toUpperCase()}(r map[string]string) map[string]string {\n\tm := map[string]string{} // Metadata\n\tfor k, v := range r {\n\t\tm[k] = v\n\t}\n\treturn m\n}\n`,
    ]),
  ),
};

describe('selectTargets with a directory the title names by its path', () => {
  let select: Awaited<ReturnType<typeof targetFixture>>['select'];
  beforeAll(async () => {
    ({ select } = await targetFixture(FILES, 'wire'));
  });

  it('a file inside it found by one word of the report outranks files holding the word elsewhere, and is not capped away', async () => {
    const sel = await select(
      'internal/transport: validate balancer-injected metadata',
      'Metadata added through `PickResult.Metadata` reaches the wire unvalidated.',
    );
    const file = sel.selectedFiles.find((f) => f.path === 'internal/transport/client.go');
    expect(file?.reasons).toContain('inside directory internal/transport, which the task names by its path (internal/transport)');
    const paths = sel.selectedFiles.map((f) => f.path);
    const others = paths.filter((p) => p.startsWith('lb/'));
    expect(others.length).toBeGreaterThan(0);
    for (const other of others) expect(paths.indexOf('internal/transport/client.go')).toBeLessThan(paths.indexOf(other));
  });
});
