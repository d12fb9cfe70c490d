import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import { applyRecipe } from '../../../src/core/engines/recipe/apply-recipe.js';
import { applyRenameSymbol } from '../../../src/core/engines/recipe/rename-symbol-recipe.js';
import { defaultPathRules } from '../../../src/core/paths/path-rules.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { RecipeStep, RenameSymbolStep } from '../../../src/core/task/recipe-steps.js';
import { createMemoryRepo } from '../../helpers/memory-repo.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

/** Apply a rename to the files; the workspace afterwards: its paths, its changes, any file's text. */
async function rename(files: Record<string, string>, step: Record<string, unknown>) {
  const repo = await createMemoryRepo(files);
  const parsed = RecipeStep.parse({ recipe: 'rename-symbol', ...step });
  const paths = parsed.paths ? Object.keys(files).filter((p) => (parsed.paths ?? []).some((glob) => p === glob)) : repo.workspace.paths();
  const result = await applyRecipe(parsed, repo.workspace, { paths, syntax, isEditable: () => true, rules: defaultPathRules() });
  return {
    result,
    paths: repo.workspace.paths(),
    changes: repo.workspace.changes().map((c) => `${c.kind} ${c.path}`),
    text: (path: string) => repo.workspace.readText(path),
  };
}

const ORDER = [
  'package com.acme.orders;',
  '',
  'import java.math.BigDecimal;',
  '',
  '/** An order of the shop. */',
  'public class Order {',
  '    private final BigDecimal total;',
  '',
  '    public Order(BigDecimal total) {',
  '        this.total = total;',
  '    }',
  '',
  '    public static Order empty() {',
  '        return new Order(BigDecimal.ZERO);',
  '    }',
  '}',
  '',
].join('\r\n');
const ORDER_TEST = [
  'package com.acme.orders;',
  '',
  'import static org.junit.jupiter.api.Assertions.assertNotNull;',
  '',
  'import org.junit.jupiter.api.Test;',
  '',
  'class OrderTest {',
  '    @Test',
  '    void empty() {',
  '        Order order = Order.empty();',
  '        assertNotNull(order);',
  '    }',
  '}',
  '',
].join('\n');
const MAIN = 'src/main/java/com/acme/orders/';
const TEST = 'src/test/java/com/acme/orders/';

describe('rename-symbol moves the file of a renamed public class', () => {
  it('Java: Order.java becomes PurchaseOrder.java in the same directory, the test that uses it is renamed, and the move is listed', async () => {
    const run = await rename({ [`${MAIN}Order.java`]: ORDER, [`${TEST}OrderTest.java`]: ORDER_TEST }, { from: 'Order', to: 'PurchaseOrder', kind: 'class' });
    expect(run.paths).toEqual([`${MAIN}PurchaseOrder.java`, `${TEST}OrderTest.java`]);
    // Every byte but the renamed identifiers is kept, CRLF endings included.
    expect(await run.text(`${MAIN}PurchaseOrder.java`)).toBe(ORDER.replace(/\bOrder\b/g, 'PurchaseOrder'));
    expect(await run.text(`${TEST}OrderTest.java`)).toBe(ORDER_TEST.replace('Order order = Order.empty()', 'PurchaseOrder order = PurchaseOrder.empty()'));
    expect(run.changes).toEqual([`DELETED ${MAIN}Order.java`, `ADDED ${MAIN}PurchaseOrder.java`, `MODIFIED ${TEST}OrderTest.java`]);
    expect(run.result.moves).toEqual([{ from: `${MAIN}Order.java`, to: `${MAIN}PurchaseOrder.java` }]);
    expect(run.result.changedFiles.map((f) => f.path)).toEqual([`${MAIN}PurchaseOrder.java`, `${TEST}OrderTest.java`]);
    expect(run.result.notes).toContain(
      `rename-symbol moved ${MAIN}Order.java to ${MAIN}PurchaseOrder.java (a public top-level class lives in the file of its name)`,
    );
    expect(run.result.incomplete).toBeUndefined();
    // Target selection, which reads one file at a time, says the file will move.
    expect(
      applyRenameSymbol(
        RenameSymbolStep.parse({ recipe: 'rename-symbol', from: 'Order', to: 'PurchaseOrder' }),
        { path: `${MAIN}Order.java`, text: ORDER },
        { syntax },
      )?.notes,
    ).toContain(`${MAIN}Order.java: the file moves to ${MAIN}PurchaseOrder.java (a public top-level class lives in the file of its name)`);
  });

  it('Java: a class that is not public, or in a file of another name, stays where it is', async () => {
    const files = {
      [`${MAIN}Order.java`]: 'package com.acme.orders;\n\nclass Order {}\n',
      [`${MAIN}Lines.java`]: 'package com.acme.orders;\n\npublic class Lines {}\n\nclass Line {}\n',
    };
    const packagePrivate = await rename(files, { from: 'Order', to: 'PurchaseOrder', kind: 'class' });
    expect(packagePrivate.paths).toEqual([`${MAIN}Lines.java`, `${MAIN}Order.java`]);
    expect(await packagePrivate.text(`${MAIN}Order.java`)).toBe('package com.acme.orders;\n\nclass PurchaseOrder {}\n');
    expect(packagePrivate.result.moves).toBeUndefined();
    const otherFile = await rename(files, { from: 'Line', to: 'OrderLine', kind: 'class' });
    expect(otherFile.paths).toEqual([`${MAIN}Lines.java`, `${MAIN}Order.java`]);
    expect(await otherFile.text(`${MAIN}Lines.java`)).toBe('package com.acme.orders;\n\npublic class Lines {}\n\nclass OrderLine {}\n');
    expect(otherFile.result.moves).toBeUndefined();
  });

  it('Kotlin: Order.kt holding class Order becomes PurchaseOrder.kt; a file named otherwise stays', async () => {
    const kotlin = 'package com.acme.orders\n\ndata class Order(val id: Long)\n\nfun Order.describe() = "order $id"\n';
    const run = await rename(
      { 'src/main/kotlin/com/acme/Order.kt': kotlin, 'src/main/kotlin/com/acme/Orders.kt': 'package com.acme.orders\n\nclass Line(val order: Order)\n' },
      { from: 'Order', to: 'PurchaseOrder', kind: 'class' },
    );
    expect(run.paths).toEqual(['src/main/kotlin/com/acme/Orders.kt', 'src/main/kotlin/com/acme/PurchaseOrder.kt']);
    expect(await run.text('src/main/kotlin/com/acme/PurchaseOrder.kt')).toBe(kotlin.replace(/\bOrder\b/g, 'PurchaseOrder'));
    expect(await run.text('src/main/kotlin/com/acme/Orders.kt')).toBe('package com.acme.orders\n\nclass Line(val order: PurchaseOrder)\n');
    expect(run.result.moves).toEqual([{ from: 'src/main/kotlin/com/acme/Order.kt', to: 'src/main/kotlin/com/acme/PurchaseOrder.kt' }]);
    const otherName = await rename(
      { 'src/main/kotlin/com/acme/Orders.kt': 'package com.acme.orders\n\nclass Orders\n\nclass Line(val sku: String)\n' },
      { from: 'Line', to: 'OrderLine', kind: 'class' },
    );
    expect(otherName.paths).toEqual(['src/main/kotlin/com/acme/Orders.kt']);
    expect(otherName.result.moves).toBeUndefined();
  });

  it('refuses the move when the target file exists or the step may not create it: a note, the file keeps its name, the change is incomplete', async () => {
    const existing = 'package com.acme.orders;\n\n// Replaced by Invoice.\nclass Legacy {}\n';
    const run = await rename({ [`${MAIN}Order.java`]: ORDER, [`${MAIN}PurchaseOrder.java`]: existing }, { from: 'Order', to: 'PurchaseOrder', kind: 'class' });
    expect(run.paths).toEqual([`${MAIN}Order.java`, `${MAIN}PurchaseOrder.java`]);
    expect(await run.text(`${MAIN}PurchaseOrder.java`)).toBe(existing);
    expect(await run.text(`${MAIN}Order.java`)).toContain('public class PurchaseOrder {');
    expect(run.result.moves).toBeUndefined();
    const note = `rename-symbol did not move ${MAIN}Order.java to ${MAIN}PurchaseOrder.java: ${MAIN}PurchaseOrder.java already exists; javac refuses the public class PurchaseOrder in ${MAIN}Order.java until it moves`;
    expect(run.result.notes).toContain(note);
    expect(run.result.incomplete).toEqual([note]);

    const scoped = await rename({ [`${MAIN}Order.java`]: ORDER }, { from: 'Order', to: 'PurchaseOrder', kind: 'class', paths: [`${MAIN}Order.java`] });
    expect(scoped.paths).toEqual([`${MAIN}Order.java`]);
    expect(scoped.result.notes).toContain(
      `rename-symbol did not move ${MAIN}Order.java to ${MAIN}PurchaseOrder.java: ${MAIN}PurchaseOrder.java is outside the step's scope or not editable; javac refuses the public class PurchaseOrder in ${MAIN}Order.java until it moves`,
    );
  });
});
