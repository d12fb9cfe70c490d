import { describe, expect, it } from 'vitest';
import { deriveSearchTerms } from '../../../src/core/task/search-terms.js';
import { MAX_IMPORTED_NAMES } from '../../../src/core/task/report-imports.js';

const terms = (objective: string) => deriveSearchTerms({ title: 'Bug', objective, steps: [] });
const fenced = (lang: string, code: string) => `It breaks:\n\n\`\`\`${lang}\n${code}\n\`\`\`\n`;

describe("names a report's code imports", () => {
  it('become symbols to find the definition of, for Python, JavaScript, JVM and Rust imports', () => {
    const symbols = (text: string) =>
      terms(text)
        .filter((t) => t.kind === 'symbol' && t.source.endsWith('(imported in its code)'))
        .map((t) => t.term);
    expect(symbols(fenced('python', 'from rich.console import Console\nfrom rich.panel import (Panel, Box as B)\nimport os\nPanel("x")'))).toEqual([
      'Console',
      'Panel',
      'Box',
    ]);
    expect(symbols(fenced('js', "import axios, { mergeConfig as m, type AxiosError } from 'axios';\nconst { getUri } = require('axios');"))).toEqual([
      'mergeConfig',
      'AxiosError',
      'getUri',
    ]);
    expect(symbols(fenced('java', 'import com.google.gson.Gson;\nimport static org.junit.Assert.assertEquals;\nimport java.util.*;'))).toEqual([
      'Gson',
      'Assert',
    ]);
    expect(symbols(fenced('rust', 'use tokio::sync::{mpsc, Mutex};\nuse std::io::Read;'))).toEqual(['mpsc', 'Mutex', 'Read']);
  });

  it('only inside fenced code: prose that says "from x import y" names nothing', () => {
    expect(terms('I wrote from rich.panel import Panel in my notebook').map((t) => t.term)).not.toContain('Panel');
  });

  it('at most a bounded number, so a pasted program does not crowd out the report', () => {
    const code = Array.from({ length: 40 }, (_, i) => `from pkg.mod${i} import Name${i}`).join('\n');
    const imported = terms(fenced('python', code)).filter((t) => t.source.endsWith('(imported in its code)'));
    expect(imported).toHaveLength(MAX_IMPORTED_NAMES);
  });
});
