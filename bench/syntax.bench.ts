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
    for (let m = 0; m < 30; m++)
      body += `  public String method${m}(List<String> items, int n) {\n    String token = client.exchangeToken("code-${m}");\n    for (int k = 0; k < n; k++) { items.add(token + k); }\n    return LegacyAuthClient.normalize(token);\n  }\n`;
    return `${body}}\n`;
  },
  kotlin: (i) => {
    let body = `package com.acme.gen${i}\n\nimport java.util.UUID\nimport com.acme.legacy.LegacyAuthClient\n\n@Service\nclass Service${i}(private val client: LegacyAuthClient) {\n`;
    for (let m = 0; m < 30; m++)
      body += `    fun method${m}(items: MutableList<String>, n: Int): String {\n        val token = client.exchangeToken("code-${m}")\n        for (k in 0 until n) {\n            items.add(token + k)\n        }\n        return LegacyAuthClient.normalize(token)\n    }\n`;
    return `${body}}\n`;
  },
  typescript: (i) => {
    let body = `import { Client } from '@acme/client';\nimport type { Token } from './token';\n\nexport class Service${i} {\n  private client: Client = new Client();\n`;
    for (let m = 0; m < 30; m++)
      body += `  async method${m}(items: string[], n: number): Promise<Token> {\n    const token = await this.client.exchangeToken('code-${m}');\n    for (let k = 0; k < n; k++) items.push(token.value + k);\n    return token;\n  }\n`;
    return `${body}}\n`;
  },
  tsx: (i) => {
    let body = `import React from 'react';\n\nexport function View${i}(props: { items: string[] }) {\n  return (<ul>\n`;
    for (let m = 0; m < 30; m++) body += `    <li key="${m}" className="row">{props.items.map((x) => x.trim()).join(', ')}</li>\n`;
    return `${body}  </ul>);\n}\n`;
  },
  javascript: (i) => {
    let body = `const { Client } = require('@acme/client');\n\nclass Service${i} {\n  constructor() { this.client = new Client(); }\n`;
    for (let m = 0; m < 30; m++)
      body += `  async method${m}(items, n) {\n    const token = await this.client.exchangeToken('code-${m}');\n    for (let k = 0; k < n; k++) items.push(token.value + k);\n    return token;\n  }\n`;
    return `${body}}\nmodule.exports = { Service${i} };\n`;
  },
  python: (i) => {
    let body = `import os\nfrom acme.legacy import LegacyAuthClient\n\n\nclass Service${i}:\n    limit: int = 3\n\n`;
    for (let m = 0; m < 30; m++)
      body += `    def method${m}(self, items: list, n: int) -> str:\n        token = self.client.exchange_token("code-${m}")\n        for k in range(n):\n            items.append(token + str(k))\n        return os.path.join(token, "x")\n\n`;
    return body;
  },
  go: (i) => {
    let body = `package gen${i}\n\nimport (\n\t"fmt"\n\t"example.com/acme/legacy"\n)\n\ntype Service${i} struct {\n\tClient *legacy.Client\n}\n\n`;
    for (let m = 0; m < 30; m++)
      body += `func (s *Service${i}) Method${m}(items []string, n int) string {\n\ttoken := s.Client.ExchangeToken("code-${m}")\n\tfor k := 0; k < n; k++ {\n\t\titems = append(items, fmt.Sprint(token, k))\n\t}\n\treturn token\n}\n\n`;
    return body;
  },
};

export const EXTENSION: Record<SyntaxLanguage, string> = { java: 'java', kotlin: 'kt', typescript: 'ts', tsx: 'tsx', javascript: 'js', python: 'py', go: 'go' };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/**
 * Symbol extraction throughput per language (parse + tags), on generated sources, one thread,
 * side by side with the parser alone on the same sources (the limit extraction can reach).
 * The service is created warm, as a whole-repository map creates it. The first pass over each
 * corpus (unoptimised code) is reported apart; then passes run for `warmUpMs` per language (the
 * engine finishes optimising the grammars' lexers in the background, seconds for TypeScript and
 * TSX). The measured passes come last, in rounds: each round times one parse pass and one
 * extraction pass of every language in turn, so that each language's passes are spread over the
 * whole measurement rather than taken within half a second, and the headline figure is the
 * median over the rounds: what a repository of thousands of files sees. On the shared machine
 * the speed of every language drops by a third for seconds at a time (bench/README.md,
 * "Performance notes"); back-to-back passes all fell in such a spell.
 */
export async function runSyntaxBench(
  options: { files?: number; passes?: number; warmUpMs?: number; languages?: readonly SyntaxLanguage[] } = {},
): Promise<BenchRecord[]> {
  const files = options.files ?? 40;
  const rounds = options.passes ?? 15;
  const warmUpMs = options.warmUpMs ?? 1500;
  const started = performance.now();
  const languages = options.languages ?? (Object.keys(GENERATORS) as SyntaxLanguage[]);
  const syntax = await createSyntaxService(createNodeGrammarLoader(), { warm: true, languages });
  // Throughput is CPU-bound: the load average says how contended the machine was.
  const load = () => `load average ${loadavg()[0].toFixed(1)}`;
  const records: BenchRecord[] = [
    { name: 'syntax.init', size: `${languages.length} grammars`, value: Math.round(performance.now() - started), unit: 'ms', note: `warm; ${load()}` },
  ];
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  const corpora = languages.map((language) => {
    const sources = Array.from({ length: files }, (_, i) => GENERATORS[language](i));
    const path = `gen/file.${EXTENSION[language]}`;
    // Each file's least time over the measured passes, too: a pass the machine's other work
    // preempted says little about the extractor, and on a shared machine many passes are.
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
    return {
      language,
      sources,
      path,
      bytes: sources.reduce((n, s) => n + Buffer.byteLength(s), 0),
      least,
      timed,
      tags: 0,
      firstPass: 0,
      parse: [] as number[],
      extract: [] as number[],
    };
  });
  for (const c of corpora) {
    syntax.extractTags(c.path, c.sources[0]);
    c.firstPass = c.timed((source) => (c.tags += syntax.extractTags(c.path, source).length));
    for (const warmUntil = performance.now() + warmUpMs; performance.now() < warmUntil;) c.timed((source) => syntax.extractTags(c.path, source));
  }
  // The process's CPU time over the measured rounds, against their wall time: well below 1, the
  // machine's other work took the CPU away; above 1, this process's background threads (the
  // engine's optimising compiler, the GC) were busy beside it.
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (const c of corpora) {
      c.parse.push(c.timed((source) => syntax.withTree(c.language, source, (tree) => tree.rootNode.endIndex), c.least.parse));
      c.extract.push(c.timed((source) => syntax.extractTags(c.path, source), c.least.extract));
    }
  }
  const cpu = process.cpuUsage(cpuBefore);
  const measuredMs = performance.now() - wallBefore;
  const cpuShare = ((cpu.user + cpu.system) / 1e3 / measuredMs).toFixed(2);
  for (const c of corpora) {
    const mbps = (ms: number) => Number((c.bytes / 1e3 / ms).toFixed(2));
    const size = `${files} files, ${(c.bytes / 1024).toFixed(0)} KiB`;
    const value = mbps(median(c.extract));
    const baseline = mbps(median(c.parse));
    const note = `${c.tags} tags; parser alone ${baseline} MB/s; first pass ${mbps(c.firstPass)} MB/s; median of ${rounds} passes taken in rounds over ${(measuredMs / 1000).toFixed(1)} s with the other languages, after ${warmUpMs} ms of warm-up; fastest and slowest pass ${mbps(Math.min(...c.extract))} and ${mbps(Math.max(...c.extract))} MB/s; least time per file over the passes ${mbps(sum(c.least.extract))} MB/s (parser ${mbps(sum(c.least.parse))}); process CPU ${cpuShare} of the measured wall time; ${load()}`;
    records.push({ name: `syntax.extractTags.${c.language}`, size, value, unit: 'MB/s', baseline, ratio: Number((value / baseline).toFixed(2)), note });
    records.push({ name: `syntax.extractTags.${c.language}.files`, size, value: Math.round(files / (median(c.extract) / 1000)), unit: 'files/s' });
    records.push({ name: `syntax.extractTags.${c.language}.firstPass`, size, value: mbps(c.firstPass), unit: 'MB/s' });
  }
  return records;
}

// `node --import tsx bench/syntax.bench.ts [language...]`: all six languages when none is named.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const named = process.argv.slice(2);
  const unknown = named.filter((l) => !(l in GENERATORS));
  if (unknown.length) throw new Error(`unknown language: ${unknown.join(', ')} (one of ${Object.keys(GENERATORS).join(', ')})`);
  for (const r of await runSyntaxBench({ languages: named.length ? (named as SyntaxLanguage[]) : undefined }))
    console.log(
      `${r.name.padEnd(40)} ${String(r.value).padStart(8)} ${r.unit.padEnd(8)} ${r.size}${r.ratio ? ` x${r.ratio} of the parser` : ''}${r.note ? `  (${r.note})` : ''}`,
    );
}
