import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { runRecipeStep } from '../../helpers/run-recipe.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService();
});

// rename-symbol renames the binding: the repository's declaration and what resolves to it, never
// a same-named symbol imported from elsewhere.
describe('rename-symbol by binding', () => {
  it('Python: leaves the standard library Enum, renames uses through a module of the repository', async () => {
    const files = {
      'src/marshmallow/fields.py':
        'import enum\nfrom enum import Enum as StdEnum\n\n\nclass Enum(Field):\n    def __init__(self, enum: type[StdEnum]):\n        self.enum = enum\n',
      'src/marshmallow/__init__.py': 'from marshmallow.fields import Enum\n',
      'src/app/models.py': 'from enum import Enum\nfrom marshmallow import fields\n\n\nclass Color(Enum):\n    RED = 1\n\n\ncolor = fields.Enum(Color)\n',
      'tests/test_enum.py': 'from marshmallow import Enum\n\n\ndef test_enum():\n    assert Enum\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'Enum', to: 'EnumField', kind: 'class' });
    expect(await run.text('src/marshmallow/fields.py')).toContain('class EnumField(Field):');
    expect(await run.text('src/marshmallow/fields.py')).toContain('from enum import Enum as StdEnum\n');
    expect(await run.text('src/marshmallow/__init__.py')).toBe('from marshmallow.fields import EnumField\n');
    const models = await run.text('src/app/models.py');
    expect(models).toContain('from enum import Enum\n');
    expect(models).toContain('class Color(Enum):');
    expect(models).toContain('color = fields.EnumField(Color)');
    expect(await run.text('tests/test_enum.py')).toBe('from marshmallow import EnumField\n\n\ndef test_enum():\n    assert EnumField\n');
  });

  it("Python: a name in a module's __all__ goes with the binding it exports, and a same-named string elsewhere stays", async () => {
    const files = {
      'src/marshmallow/fields.py': '__all__ = [\n    "Field",\n    "Enum",\n]\n\n\nclass Field:\n    pass\n\n\nclass Enum(Field):\n    kind = "Enum"\n',
      'src/marshmallow/__init__.py': 'from marshmallow.fields import Enum, Field\n\n__all__ = ("Enum", \'Field\')\n',
      'src/app/colors.py': 'from enum import Enum\n\n__all__ = ["Enum"]\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'Enum', to: 'EnumField', kind: 'class' });
    expect(await run.text('src/marshmallow/fields.py')).toBe(
      files['src/marshmallow/fields.py'].replace('    "Enum",', '    "EnumField",').replace('class Enum(', 'class EnumField('),
    );
    expect(await run.text('src/marshmallow/__init__.py')).toBe('from marshmallow.fields import EnumField, Field\n\n__all__ = ("EnumField", \'Field\')\n');
    // The standard library's Enum, re-exported: neither the import nor its __all__ entry is ours.
    expect(await run.text('src/app/colors.py')).toBe(files['src/app/colors.py']);
  });

  it('Python: a forward reference in an annotation or a generic type goes with the class; a dict key or a Literal stays', async () => {
    const files = {
      'httpx/dispatch/base.py': 'class Dispatcher:\n    async def __aenter__(self) -> "Dispatcher":\n        return self\n',
      'httpx/models.py':
        'import typing\n\nfrom .dispatch.base import Dispatcher\n\nProxiesTypes = typing.Union[str, "Dispatcher", typing.Dict[str, typing.Union[str, "Dispatcher"]]]\nKINDS = {"Dispatcher": 1}\nMode = typing.Literal["Dispatcher"]\n\n\ndef pick(d: "Dispatcher", x: typing.Optional["Dispatcher"] = None) -> None:\n    return KINDS["Dispatcher"]\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'Dispatcher', to: 'AsyncDispatcher', kind: 'class' });
    expect(await run.text('httpx/dispatch/base.py')).toBe(
      'class AsyncDispatcher:\n    async def __aenter__(self) -> "AsyncDispatcher":\n        return self\n',
    );
    const models = await run.text('httpx/models.py');
    expect(models).toContain('typing.Union[str, "AsyncDispatcher", typing.Dict[str, typing.Union[str, "AsyncDispatcher"]]]');
    expect(models).toContain('def pick(d: "AsyncDispatcher", x: typing.Optional["AsyncDispatcher"] = None) -> None:');
    expect(models).toContain('KINDS = {"Dispatcher": 1}');
    expect(models).toContain('typing.Literal["Dispatcher"]');
    expect(models).toContain('return KINDS["Dispatcher"]');
  });

  it('Java: an import of a same-named class of another package stays', async () => {
    const files = {
      'src/main/java/com/acme/List.java': 'package com.acme;\n\npublic class List {}\n',
      'src/main/java/com/acme/Use.java': 'package com.acme;\n\npublic class Use { List items; }\n',
      'src/main/java/com/acme/other/Std.java': 'package com.acme.other;\n\nimport java.util.List;\n\npublic class Std { List<String> xs; }\n',
      'src/main/java/com/acme/other/Mine.java': 'package com.acme.other;\n\nimport com.acme.List;\n\npublic class Mine { List mine; }\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'List', to: 'ItemList', kind: 'class' });
    expect(await run.text('src/main/java/com/acme/Use.java')).toContain('ItemList items;');
    expect(await run.text('src/main/java/com/acme/other/Mine.java')).toBe(
      'package com.acme.other;\n\nimport com.acme.ItemList;\n\npublic class Mine { ItemList mine; }\n',
    );
    expect(run.changed).not.toContain('src/main/java/com/acme/other/Std.java');
  });

  it('Kotlin: an import resolves by the package clause when the directories leave its root out', async () => {
    const files = {
      'src/main/kotlin/orders/Order.kt': 'package com.acme.orders\n\nclass Order\n',
      'src/main/kotlin/checkout/Checkout.kt': 'package com.acme.checkout\n\nimport com.acme.orders.Order\n\nclass Checkout(val order: Order)\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'Order', to: 'PurchaseOrder', kind: 'class' });
    expect(await run.text('src/main/kotlin/checkout/Checkout.kt')).toContain(
      'import com.acme.orders.PurchaseOrder\n\nclass Checkout(val order: PurchaseOrder)',
    );
  });

  it('Go: kind type renames an interface type', async () => {
    const files = {
      'store/store.go': 'package store\n\ntype Store interface {\n\tGet(key string) string\n}\n\nfunc Use(s Store) string { return s.Get("k") }\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'Store', to: 'KeyValueStore', kind: 'type' });
    expect(await run.text('store/store.go')).toBe(
      'package store\n\ntype KeyValueStore interface {\n\tGet(key string) string\n}\n\nfunc Use(s KeyValueStore) string { return s.Get("k") }\n',
    );
  });
});

describe('a scoped rename', () => {
  it('names the files outside its scope that still use the old name, and is incomplete', async () => {
    const files = {
      'core/src/main/java/com/acme/Order.java': 'package com.acme;\n\npublic class Order {}\n',
      'core/src/main/java/com/acme/Cart.java': 'package com.acme;\n\npublic class Cart { Order order; }\n',
      'web/src/main/java/com/acme/web/Page.java': 'package com.acme.web;\n\nimport com.acme.Order;\n\npublic class Page { Order shown; }\n',
      'web/src/main/java/com/acme/web/Other.java': 'package com.acme.web;\n\nimport java.util.List;\n\npublic class Other { List<String> orders; }\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'Order', to: 'PurchaseOrder', kind: 'class', paths: ['core/**'] });
    expect(run.changed).toEqual(['core/src/main/java/com/acme/Cart.java', 'core/src/main/java/com/acme/PurchaseOrder.java']);
    expect(run.result.incomplete).toEqual([
      "rename-symbol renamed Order to PurchaseOrder, but 1 file(s) it did not change (outside the scope or the selected targets) still use Order: web/src/main/java/com/acme/web/Page.java; add them to the step's paths, or the change does not build",
    ]);
  });

  it('is complete when nothing outside its scope uses the name', async () => {
    const files = { 'core/Order.py': 'class Order:\n    pass\n', 'web/page.py': 'from enum import Enum\n' };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'Order', to: 'PurchaseOrder', kind: 'class', paths: ['core/**'] });
    expect(run.changed).toEqual(['core/Order.py']);
    expect(run.result.incomplete).toBeUndefined();
  });
});

describe('a fully qualified name', () => {
  it('Java: @org.junit.jupiter.api.Test stays when the repository renames its own Test class', async () => {
    const files = {
      'src/test/java/org/apache/commons/io/WalkerTest.java':
        'package org.apache.commons.io;\n\npublic class WalkerTest {\n    static class Test {\n        Test() {}\n    }\n\n    @org.junit.jupiter.api.Test\n    void walk() {\n        Object o = new Test();\n        org.apache.commons.io.WalkerTest.Test t = (Test) o;\n    }\n}\n',
    };
    const run = await runRecipeStep(syntax, files, { recipe: 'rename-symbol', from: 'Test', to: 'TestFixture', kind: 'class' });
    const text = await run.text('src/test/java/org/apache/commons/io/WalkerTest.java');
    expect(text).toContain('    @org.junit.jupiter.api.Test\n');
    expect(text).toContain('static class TestFixture {\n        TestFixture() {}');
    expect(text).toContain('Object o = new TestFixture();');
    expect(text).toContain('org.apache.commons.io.WalkerTest.TestFixture t = (TestFixture) o;');
  });
});
