import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { createNodeGrammarLoader } from '../src/app/local/node-grammar-loader.js';
import { createSyntaxService } from '../src/core/syntax/create-syntax-service.js';
import type { SyntaxLanguage } from '../src/core/syntax/types.js';
import type { BenchRecord } from './bench-record.js';

export type { BenchRecord };

/** A generated source file of about 200 lines per class, with imports, fields, methods and calls. */
export const GENERATORS: Record<SyntaxLanguage, (i: number) => string> = {
  java: (i) => {
    let body = `package com.acme.gen${i};\n\nimport java.util.List;\nimport com.acme.legacy.LegacyAuthClient;\n\n@Service\npublic class Service${i} {\n  private final LegacyAuthClient client;\n`;
    for (let m = 0; m < 30; m++) body += `  public String method${m}(List<String> items, int n) {\n    String token = client.exchangeToken("code-${m}");\n    for (int k = 0; k < n; k++) { items.add(token + k); }\n    return LegacyAuthClient.normalize(token);\n  }\n`;
    return `${body}}\n`;
  },
  typescript: (i) => {
    let body = `import { Client } from '@acme/client';\nimport type { Token } from './token';\n\nexport class Service${i} {\n  private client: Client = new Client();\n`;
    for (let m = 0; m < 30; m++) body += `  async method${m}(items: string[], n: number): Promise<Token> {\n    const token = await this.client.exchangeToken('code-${m}');\n    for (let k = 0; k < n; k++) items.push(token.value + k);\n    return token;\n  }\n`;
    return `${body}}\n`;
  },
  tsx: (i) => {
    let body = `import React from 'react';\n\nexport function View${i}(props: { items: string[] }) {\n  return (<ul>\n`;
    for (let m = 0; m < 30; m++) body += `    <li key="${m}" className="row">{props.items.map((x) => x.trim()).join(', ')}</li>\n`;
    return `${body}  </ul>);\n}\n`;
  },
  javascript: (i) => {
    let body = `const { Client } = require('@acme/client');\n\nclass Service${i} {\n  constructor() { this.client = new Client(); }\n`;
    for (let m = 0; m < 30; m++) body += `  async method${m}(items, n) {\n    const token = await this.client.exchangeToken('code-${m}');\n    for (let k = 0; k < n; k++) items.push(token.value + k);\n    return token;\n  }\n`;
    return `${body}}\nmodule.exports = { Service${i} };\n`;
  },
  python: (i) => {
    let body = `import os\nfrom acme.legacy import LegacyAuthClient\n\n\nclass Service${i}:\n    limit: int = 3\n\n`;
    for (let m = 0; m < 30; m++) body += `    def method${m}(self, items: list, n: int) -> str:\n        token = self.client.exchange_token("code-${m}")\n        for k in range(n):\n            items.append(token + str(k))\n        return os.path.join(token, "x")\n\n`;
    return body;
  },
  go: (i) => {
    let body = `package gen${i}\n\nimport (\n\t"fmt"\n\t"example.com/acme/legacy"\n)\n\ntype Service${i} struct {\n\tClient *legacy.Client\n}\n\n`;
    for (let m = 0; m < 30; m++) body += `func (s *Service${i}) Method${m}(items []string, n int) string {\n\ttoken := s.Client.ExchangeToken("code-${m}")\n\tfor k := 0; k < n; k++ {\n\t\titems = append(items, fmt.Sprint(token, k))\n\t}\n\treturn token\n}\n\n`;
    return body;
  },
};

export const EXTENSION: Record<SyntaxLanguage, string> = { java: 'java', typescript: 'ts', tsx: 'tsx', javascript: 'js', python: 'py', go: 'go' };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/**
 * Symbol extraction throughput per language (parse + tags), on generated sources, one thread,
 * side by side with the parser alone on the same sources (the limit extraction can reach).
 * The service is created warm, as a whole-repository map creates it. The first pass over the
 * corpus (unoptimised code) is reported apart; then passes run for `warmUpMs` (the engine
 * finishes optimising the grammars' lexers in the background, seconds for TypeScript and TSX),
 * and the headline figure is the median of five passes after that: what a repository of
 * thousands of files sees.
 */
export async function runSyntaxBench(options: { files?: number; passes?: number; warmUpMs?: number; languages?: readonly SyntaxLanguage[] } = {}): Promise<BenchRecord[]> {
  const files = options.files ?? 40;
  const passes = options.passes ?? 5;
  const warmUpMs = options.warmUpMs ?? 1500;
  const started = performance.now();
  const languages = options.languages ?? (Object.keys(GENERATORS) as SyntaxLanguage[]);
  const syntax = await createSyntaxService(createNodeGrammarLoader(), { warm: true, languages });
  // Throughput is CPU-bound: the load average says how contended the machine was.
  const load = () => `load average ${loadavg()[0].toFixed(1)}`;
  const records: BenchRecord[] = [{ name: 'syntax.init', size: `${languages.length} grammars`, value: Math.round(performance.now() - started), unit: 'ms', note: `warm; ${load()}` }];
  for (const language of languages) {
    const sources = Array.from({ length: files }, (_, i) => GENERATORS[language](i));
    const bytes = sources.reduce((n, s) => n + Buffer.byteLength(s), 0);
    const path = `gen/file.${EXTENSION[language]}`;
    const mbps = (ms: number) => Number((bytes / 1e3 / ms).toFixed(2));
    // Each file's least time over the measured passes, too: a pass the machine's other work
    // preempted says little about the extractor, and on a shared machine most passes are.
    const least = { parse: sources.map(() => Infinity), extract: sources.map(() => Infinity) };
    const timed = (fn: (source: string) => void, fastest?: number[]) => {
      const t0 = performance.now();
      for (let i = 0; i < sources.length; i++) {
        const t = performance.now();
        fn(sources[i]);
        if (fastest) fastest[i] = Math.min(fastest[i], performance.now() - t);
      }
      return performance.now() - t0;
    };
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    let tags = 0;
    syntax.extractTags(path, sources[0]);
    const firstPass = timed((source) => (tags += syntax.extractTags(path, source).length));
    for (const warmUntil = performance.now() + warmUpMs; performance.now() < warmUntil; ) timed((source) => syntax.extractTags(path, source));
    const extract: number[] = [];
    const parse: number[] = [];
    // The process's CPU time over the measured passes, against their wall time: well below 1, the
    // machine's other work took the CPU away (the usual cause of a low median on a shared
    // machine, not the extractor); above 1, this process's background threads (the engine's
    // optimising compiler, the GC) were busy beside it.
    const cpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    for (let p = 0; p < passes; p++) {
      parse.push(timed((source) => syntax.withTree(language, source, (tree) => tree.rootNode.endIndex), least.parse));
      extract.push(timed((source) => syntax.extractTags(path, source), least.extract));
    }
    const cpu = process.cpuUsage(cpuBefore);
    const cpuShare = ((cpu.user + cpu.system) / 1e3 / (performance.now() - wallBefore)).toFixed(2);
    const size = `${files} files, ${(bytes / 1024).toFixed(0)} KiB`;
    const value = mbps(median(extract));
    const baseline = mbps(median(parse));
    const note = `${tags} tags; parser alone ${baseline} MB/s; first pass ${mbps(firstPass)} MB/s; median of ${passes} passes after ${warmUpMs} ms of warm-up; least time per file over the passes ${mbps(sum(least.extract))} MB/s (parser ${mbps(sum(least.parse))}); process CPU ${cpuShare} of the measured wall time; ${load()}`;
    records.push({ name: `syntax.extractTags.${language}`, size, value, unit: 'MB/s', baseline, ratio: Number((value / baseline).toFixed(2)), note });
    records.push({ name: `syntax.extractTags.${language}.files`, size, value: Math.round(files / (median(extract) / 1000)), unit: 'files/s' });
    records.push({ name: `syntax.extractTags.${language}.firstPass`, size, value: mbps(firstPass), unit: 'MB/s' });
  }
  return records;
}

// `node --import tsx bench/syntax.bench.ts [language...]`: all six languages when none is named.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const named = process.argv.slice(2);
  const unknown = named.filter((l) => !(l in GENERATORS));
  if (unknown.length) throw new Error(`unknown language: ${unknown.join(', ')} (one of ${Object.keys(GENERATORS).join(', ')})`);
  for (const r of await runSyntaxBench({ languages: named.length ? (named as SyntaxLanguage[]) : undefined })) console.log(`${r.name.padEnd(40)} ${String(r.value).padStart(8)} ${r.unit.padEnd(8)} ${r.size}${r.ratio ? ` x${r.ratio} of the parser` : ''}${r.note ? `  (${r.note})` : ''}`);
}
