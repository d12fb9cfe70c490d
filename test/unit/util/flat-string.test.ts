import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const moduleUrl = new URL('../../../src/core/util/flat-string.ts', import.meta.url).href;

/** Heap bytes per path kept in an array and a Map (as the scan and the workspace keep them), in a fresh process. */
function bytesPerPath(flatten: boolean): number {
  const script = `
    const { flatString } = await import(${JSON.stringify(moduleUrl)});
    const base = 'services/service-12/src/main/java/com/acme/orders/';
    const count = 40000;
    gc();
    const before = process.memoryUsage().heapUsed;
    const paths = [];
    for (let i = 0; i < count; i++) {
      const name = 'OrderService' + i + '.java';
      const path = base + name;
      paths.push(${flatten} ? flatString(path) : path);
      // Other work between, as a scan does: the young generation is collected meanwhile.
      if (i % 500 === 0) new Array(20000).fill(i);
    }
    const byPath = new Map(paths.map((p) => [p, true]));
    gc();
    console.log(JSON.stringify({ perPath: (process.memoryUsage().heapUsed - before) / count, kept: byPath.size }));`;
  const out = execFileSync(process.execPath, ['--expose-gc', '--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!).perPath;
}

describe('flatString', () => {
  it('returns the same string', async () => {
    const { flatString } = await import('../../../src/core/util/flat-string.js');
    const joined = 'src/main/java/' + 'Service.java';
    expect(flatString(joined)).toBe('src/main/java/Service.java');
    expect(flatString('')).toBe('');
  });

  it('makes a joined path kept in a Map cost its characters only: tens of bytes less than the rope', () => {
    const flat = bytesPerPath(true);
    const rope = bytesPerPath(false);
    expect(rope - flat).toBeGreaterThan(24);
  });
});
