import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { WARM_UP_SAMPLES } from '../../../src/core/syntax/warm-up-samples.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const SOURCE = `package com.acme.orders

import java.util.UUID
import com.acme.util.*
import org.slf4j.LoggerFactory as LF

interface Repo {
    fun find(id: String): Order?
}

enum class State { NEW, DONE }

@Service
data class Order(val id: String, private var total: Int, note: String) : Base(), Runnable {
    private val lines = mutableListOf<javax.persistence.Entity>()

    fun add(amount: Int): Order {
        total += amount
        return this
    }
}

object Registry {
    val items = mutableListOf<Order>()
}

typealias Orders = List<Order>

val DEFAULT_STATE = State.NEW

fun main(args: Array<String>) {
    val o = Order(UUID.randomUUID().toString(), 0, "")
    o.add(2)
    LF.getLogger("x")
}
`;

const tags = () =>
  syntax
    .extractTags('src/main/kotlin/Order.kt', SOURCE)
    .map((t) => `${t.kind}${t.symbolKind ? `:${t.symbolKind}` : ''} ${t.scope ? `${t.scope}.` : ''}${t.name}`);

describe('Kotlin', () => {
  it('is a parsed language: .kt and .kts, and the warm-up sample parses clean', () => {
    expect(syntax.languageFor('a/B.kt')).toBe('kotlin');
    expect(syntax.languageFor('build.gradle.kts')).toBe('kotlin');
    expect(syntax.parseProblems('Sample.kt', WARM_UP_SAMPLES.kotlin)).toEqual([]);
    expect(syntax.parseProblems('Broken.kt', 'class A {\n  fun f( {\n}\n').length).toBeGreaterThan(0);
  });

  it('tags types, members, top-level declarations, imports, references, calls and annotations', () => {
    const found = tags();
    for (const expected of [
      'definition:interface Repo',
      'definition:method Repo.find',
      'definition:enum State',
      'definition:field State.NEW',
      'definition:class Order',
      'definition:field Order.id',
      'definition:field Order.total',
      'definition:field Order.lines',
      'definition:method Order.add',
      'definition:class Registry',
      'definition:field Registry.items',
      'definition:type Orders',
      'definition:variable DEFAULT_STATE',
      'definition:function main',
      'import java.util.UUID',
      'import com.acme.util.*',
      'import org.slf4j.LoggerFactory',
      'reference Order',
      'reference Entity',
      'reference Runnable',
      'call add',
      'call getLogger',
      'call Order',
      'annotation Service',
    ])
      expect(found, expected).toContain(expected);
    // A constructor parameter without val/var is no property; qualifier segments and declared names are no references.
    expect(found).not.toContain('definition:field Order.note');
    expect(found.filter((t) => ['reference javax', 'reference persistence', 'reference LF'].includes(t))).toEqual([]);
    expect(found.filter((t) => t.startsWith('definition:class Order'))).toHaveLength(1);
  });
});

describe('the packaged grammars', () => {
  it('the worker package copies the grammar of every parsed language', async () => {
    const { createRequire } = await import('node:module');
    const { GRAMMAR_FOR_LANGUAGE } = await import('../../../src/core/syntax/language-for-path.js');
    const { GRAMMARS } = createRequire(import.meta.url)('../../../infra/esbuild-plugins.cjs') as { GRAMMARS: string[] };
    expect([...GRAMMARS].sort()).toEqual([...new Set(Object.values(GRAMMAR_FOR_LANGUAGE))].sort());
  });
});
