import { beforeAll, describe, expect, it } from 'vitest';
import { targetFixture } from '../../helpers/target-fixture.js';

/**
 * A JavaScript HTTP client with TypeScript declarations beside it: the declarations name every
 * public symbol, the class implements them and delegates to a helper. A report's snippet calls
 * the API through a variable of its own (`API.getUri(...)`).
 */
const FILES: Record<string, string> = {
  'package.json': '{"name":"courier","version":"1.0.0","main":"lib/courier.js","types":"index.d.ts"}\n',
  'index.d.ts':
    'export interface RequestConfig {\n  url?: string;\n  params?: unknown;\n  paramsSerializer?: ParamsSerializer;\n}\nexport type ParamsSerializer = (params: unknown) => string;\nexport class Courier {\n  getUri(config?: RequestConfig): string;\n}\n',
  'lib/courier.js': "import Courier from './core/Courier.js';\nexport default new Courier();\n",
  'lib/core/Courier.js':
    "import buildURL from '../helpers/buildURL.js';\nimport { forEach } from '../utils.js';\n\nexport default class Courier {\n  getUri(config) {\n    forEach(config.headers, (value) => value);\n    return buildURL(config.url, config.params, config.paramsSerializer);\n  }\n}\n",
  // A generic helper that holds more of the report's words than the one the report's option is handed to.
  'lib/utils.js':
    '// Helpers: a callback is given each key; every method that takes params and options uses it when it is a callback.\nexport function forEach(object, callback) {\n  for (const key of Object.keys(object ?? {})) callback(object[key], key);\n}\n',
  'index.d.cts':
    'export interface RequestConfig {\n  url?: string;\n  params?: unknown;\n  paramsSerializer?: ParamsSerializer;\n}\nexport type ParamsSerializer = (params: unknown) => string;\nexport class Courier {\n  getUri(config?: RequestConfig): string;\n}\n',
  'test/helpers/buildURL.test.js': "import buildURL from '../../lib/helpers/buildURL.js';\n\ntest('query', () => buildURL('/a', { b: 1 }));\n",
  'lib/helpers/buildURL.js':
    'export default function buildURL(url, params, options) {\n  const serialize = options && options.serialize;\n  const query = serialize ? serialize(params) : new URLSearchParams(params).toString();\n  return query ? `${url}?${query}` : url;\n}\n',
  'test/courier.test.js': "import Courier from '../lib/core/Courier.js';\n\ntest('getUri', () => new Courier().getUri({ url: '/a' }));\n",
};

let select: Awaited<ReturnType<typeof targetFixture>>['select'];
beforeAll(async () => {
  ({ select } = await targetFixture(FILES, 'courier'));
});

describe('selectTargets with declaration files and a report snippet of its own', () => {
  const report = [
    'When a callback is given as paramsSerializer, getUri does not use it.',
    '',
    '```js',
    'const API = new Courier({});',
    "API.getUri({ url: '/api', params: { a: 1 }, paramsSerializer: () => 'b=2' });",
    '```',
  ].join('\n');

  it("a qualifier nothing in the repository defines is the snippet's own variable: the member's definition counts, and a call step reaches the helper", async () => {
    const sel = await select('getUri ignores paramsSerializer if it is a callback', report);
    const byPath = new Map(sel.selectedFiles.map((f) => [f.path, f]));
    const implementation = byPath.get('lib/core/Courier.js');
    expect(implementation?.reasons).toContain('defines getUri');
    expect(implementation?.reasons.some((r) => r.includes('unrelated to API'))).toBe(false);
    expect(byPath.get('lib/helpers/buildURL.js')?.reasons[0]).toMatch(/^defines buildURL, called by getUri \(lib\/core\/Courier.js\)/);
  });

  it('a declaration file that declares the named symbols ranks below the code that runs them', async () => {
    const sel = await select('getUri ignores paramsSerializer if it is a callback', report);
    const paths = sel.selectedFiles.map((f) => f.path);
    expect(sel.selectedFiles.find((f) => f.path === 'index.d.ts')?.reasons).toContain(
      'a declaration file: it declares the named symbols, the code that runs them is elsewhere',
    );
    expect(paths.indexOf('lib/core/Courier.js')).toBeLessThan(paths.indexOf('index.d.ts'));
  });

  it("a callee the report's option is handed to at the call ranks above a callee that only holds more of its words", async () => {
    const sel = await select('getUri ignores paramsSerializer if it is a callback', report);
    const paths = sel.selectedFiles.map((f) => f.path);
    const handed = sel.selectedFiles.find((f) => f.path === 'lib/helpers/buildURL.js');
    expect(handed?.reasons[0]).toContain('with paramsSerializer from the report');
    expect(
      sel.selectedFiles
        .find((f) => f.path === 'lib/utils.js')
        ?.reasons.some((r) => /^defines forEach, called by getUri \(lib\/core\/Courier.js\); holds/.test(r)),
    ).toBe(true);
    expect(paths.indexOf('lib/helpers/buildURL.js')).toBeLessThan(paths.indexOf('lib/utils.js'));
  });

  it('declaration files are not where related tests are looked for: the helper a call reaches brings its own test', async () => {
    const sel = await select('getUri ignores paramsSerializer if it is a callback', report);
    const test = sel.selectedFiles.find((f) => f.path === 'test/helpers/buildURL.test.js');
    expect(test?.reasons[0]).toMatch(/^test covering lib\/helpers\/buildURL.js/);
  });
});
