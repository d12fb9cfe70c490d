import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

const ENTITY = `package com.acme.orders

import com.acme.money.Money
import javax.persistence.Entity
import javax.persistence.Id
import java.util.UUID

@Entity
class Order(@Id val id: UUID, var total: Money) {
    fun manager(): javax.persistence.EntityManager = javax.persistence.Persistence.createEntityManagerFactory("x").createEntityManager()

    fun add(amount: Money): Order {
        total = total.plus(amount)
        return this
    }
}
`;

describe('Kotlin recipes', () => {
  it('migrate-import moves imports into the layout Kotlin tools keep, and fully qualified names in code and types', async () => {
    const run = await runRecipeStep(
      syntax,
      { 'src/main/kotlin/Order.kt': ENTITY },
      { recipe: 'migrate-import', from: 'javax.persistence', to: 'jakarta.persistence' },
    );
    const text = await run.text('src/main/kotlin/Order.kt');
    expect(text).toContain('import com.acme.money.Money\nimport jakarta.persistence.Entity\nimport jakarta.persistence.Id\nimport java.util.UUID\n');
    expect(text).toContain('fun manager(): jakarta.persistence.EntityManager = jakarta.persistence.Persistence.createEntityManagerFactory("x")');
    expect(text).not.toContain('javax');
    expect(syntax.parseProblems('Order.kt', text)).toEqual([]);
  });

  it('rename-symbol renames a class where it is declared, imported, used as a type and constructed, and leaves other names alone', async () => {
    const files = {
      'src/main/kotlin/Order.kt': ENTITY,
      'src/main/kotlin/Checkout.kt':
        'package com.acme.checkout\n\nimport com.acme.orders.Order\n\nclass Checkout {\n    fun start(o: Order): Order = Order(o.id, o.total)\n    fun count(): Int {\n        val order = 1\n        return order\n    }\n}\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'Order', to: 'PurchaseOrder', kind: 'class' });
    // The file is named after the class: it follows the class.
    expect(run.result.moves).toEqual([{ from: 'src/main/kotlin/Order.kt', to: 'src/main/kotlin/PurchaseOrder.kt' }]);
    expect(await run.text('src/main/kotlin/PurchaseOrder.kt')).toContain('class PurchaseOrder(@Id val id: UUID');
    expect(await run.text('src/main/kotlin/PurchaseOrder.kt')).toContain('fun add(amount: Money): PurchaseOrder {');
    const checkout = await run.text('src/main/kotlin/Checkout.kt');
    expect(checkout).toContain('import com.acme.orders.PurchaseOrder\n');
    expect(checkout).toContain('fun start(o: PurchaseOrder): PurchaseOrder = PurchaseOrder(o.id, o.total)');
    expect(checkout).toContain('        val order = 1\n        return order\n');
  });

  it('rename-symbol of a method renames its declaration and calls through a receiver', async () => {
    const files = { 'src/main/kotlin/Order.kt': ENTITY, 'src/main/kotlin/Use.kt': 'fun use(o: Order, m: Money) {\n    o.add(m)\n}\n' };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'add', to: 'plusAmount', kind: 'method' });
    expect(await run.text('src/main/kotlin/Order.kt')).toContain('fun plusAmount(amount: Money): Order {');
    expect(await run.text('src/main/kotlin/Use.kt')).toContain('o.plusAmount(m)');
  });

  it('rename-symbol of a class renames an actual typealias that implements its expect class', async () => {
    const files = {
      'src/commonMain/kotlin/Sync.kt': 'package org.koin.mp\n\nexpect open class SyncCapable()\n',
      'src/jvmMain/kotlin/Sync.kt': 'package org.koin.mp\n\nactual typealias SyncCapable = Any\n',
      'src/commonMain/kotlin/Use.kt': 'package org.koin.mp\n\nclass Registry : SyncCapable()\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'SyncCapable', to: 'Lockable', kind: 'class' });
    expect(await run.text('src/jvmMain/kotlin/Sync.kt')).toBe('package org.koin.mp\n\nactual typealias Lockable = Any\n');
    expect(await run.text('src/commonMain/kotlin/Sync.kt')).toContain('expect open class Lockable()');
    expect(await run.text('src/commonMain/kotlin/Use.kt')).toContain('class Registry : Lockable()');
  });

  it('rename-symbol of a function renames calls of an extension function on a receiver', async () => {
    const files = {
      'src/main/kotlin/Sam.kt': 'package io.javalin\n\nfun <T> Consumer<T>.invokeWithAsSamWithReceiver(value: T) = accept(value)\n',
      'src/main/kotlin/Router.kt': 'package io.javalin\n\nfun setupRoutes(setup: Consumer<String>) {\n    setup.invokeWithAsSamWithReceiver("x")\n}\n',
    };
    const run = await runRecipeStep(syntax, files, {
      recipe: 'rename-symbol',
      from: 'invokeWithAsSamWithReceiver',
      to: 'invokeAsSamWithReceiver',
      kind: 'function',
    });
    expect(await run.text('src/main/kotlin/Sam.kt')).toContain('fun <T> Consumer<T>.invokeAsSamWithReceiver(value: T)');
    expect(await run.text('src/main/kotlin/Router.kt')).toContain('setup.invokeAsSamWithReceiver("x")');
  });
});
