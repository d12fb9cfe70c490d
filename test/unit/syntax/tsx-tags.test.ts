import { beforeAll, describe, expect, it } from 'vitest';
import { createNodeSyntaxService } from '../../../src/app/local/node-grammar-loader.js';
import type { TreeSyntaxService } from '../../../src/core/syntax/create-syntax-service.js';
import { extractTagsFromTree } from '../../../src/core/syntax/extract-tags.js';
import type { SymbolTag } from '../../../src/core/syntax/types.js';
import { extractTagsByWalk } from './reference-walker.js';

let syntax: TreeSyntaxService;
beforeAll(async () => {
  syntax = await createNodeSyntaxService({ languages: ['tsx'] });
});

/**
 * A React module: components as functions and as consts, hooks, JSX member expressions, a class
 * component, and calls whose receivers are written in every way the extractor reads them (chains
 * over several lines, optional chaining, a comment before the dot, literals, non-ASCII names).
 */
const TSX_COMPONENTS = [
  "import React, { useState, useEffect } from 'react';",
  "import * as UI from './ui';",
  "import type { Item } from './types';",
  '',
  'export interface ListProps { items: Item[]; onPick?: (item: Item) => void }',
  '',
  'export const List = ({ items, onPick }: ListProps) => {',
  '  const [selected, setSelected] = useState<Item | null>(null);',
  '  useEffect(() => { document.title = `${items.length} items`; }, [items]);',
  '  const pick = (item: Item) => { setSelected(item); onPick?.(item); };',
  '  return (',
  '    <UI.Panel title="List" footer={<UI.Footer count={items.length} />}>',
  '      {items.map((item) => (',
  '        <UI.Row key={item.id} active={item === selected} onClick={() => pick(item)}>',
  '          {item.label.trim().toUpperCase()}',
  '        </UI.Row>',
  '      ))}',
  '      <></>',
  '    </UI.Panel>',
  '  );',
  '};',
  '',
  'export default function App(): JSX.Element {',
  "  const handler = function () { console.log('x'); };",
  '  const memo = React.useMemo(() => new Map<string, Item>(), []);',
  '  return <List items={[...memo.values()]} onPick={handler} />;',
  '}',
  '',
  'class Legacy extends React.Component<{ name: string }> {',
  '  render() { return <div className={this.props.name}>{this.format(this.props.name)}</div>; }',
  '  format(s: string) { return s.padStart(4); }',
  '}',
  '',
  'class Edges {',
  '  #secret() { return 1; }',
  '  run(items: string[], el: HTMLElement | null) {',
  '    const out = items',
  '      .filter(Boolean)',
  '      ?.map((s) => s.trim());',
  '    el!.focus(); items /* why */.at(0); /re/.test(out[0]); (1).toFixed(); 1..toString();',
  "    this.#secret(); $jq.ajax(); _u.chain(); items?.map(String).join?.('');",
  '    return <Foo.Bar.Baz value={\u00fcber.gr\u00f6\u00dfe()}>{out.length}</Foo.Bar.Baz>;',
  '  }',
  '}',
  '',
].join('\n');

const line = (t: SymbolTag) =>
  `${t.line}:${t.column} ${t.kind}${t.symbolKind ? ` ${t.symbolKind}` : ''} ${t.scope ? `${t.scope}.` : ''}${t.name}${t.receiver !== undefined ? ` on ${t.receiver}` : ''}`;

describe('TSX tags', () => {
  it('components, hooks, arrow functions and calls in JSX: the tags the extractor has always given', () => {
    expect(syntax.extractTags('List.tsx', TSX_COMPONENTS).map(line)).toEqual([
      '1:44 import react',
      '2:21 import ./ui',
      '3:27 import ./types',
      '5:18 definition interface ListProps',
      '5:30 definition field ListProps.items',
      '5:37 reference Item',
      '5:45 definition field ListProps.onPick',
      '5:61 reference Item',
      '7:14 definition function List',
      '7:41 reference ListProps',
      '8:35 call useState',
      '8:44 reference Item',
      '9:3 call useEffect',
      '10:9 definition function pick',
      '10:23 reference Item',
      '10:34 call setSelected',
      '10:53 call onPick',
      '13:14 call map on items',
      '14:73 call pick',
      '15:23 call trim on item.label',
      '15:30 call toUpperCase on item.label.trim()',
      '23:25 definition function App',
      '24:9 definition function handler',
      '24:41 call log on console',
      '25:22 call useMemo on React',
      '25:40 reference Map',
      '25:52 reference Item',
      '26:32 call values on memo',
      '29:7 definition class Legacy',
      '29:40 definition field Legacy.name',
      '30:3 definition method Legacy.render',
      '30:60 call format on this',
      '31:3 definition method Legacy.format',
      '31:32 call padStart on s',
      '34:7 definition class Edges',
      '35:3 definition method Edges.#secret',
      '36:3 definition method Edges.run',
      '36:28 reference HTMLElement',
      '38:8 call filter on items',
      '39:9 call map on items\n      .filter(Boolean)',
      '39:22 call trim on s',
      '40:9 call focus on el!',
      '40:34 call at on items',
      '40:46 call test on /re/',
      '40:64 call toFixed on (1)',
      '40:78 call toString on 1.',
      '41:10 call #secret on this',
      '41:25 call ajax on $jq',
      '41:36 call chain on _u',
      '41:52 call map on items',
      '41:64 call join on items?.map(String)',
      '42:37 call größe on über',
    ]);
  });

  it('the same tags as the node walker, in a file with a syntax error too', () => {
    // The stray `@` sits in the member expression, between the receiver and its dot.
    const broken = TSX_COMPONENTS.replace('el!.focus();', 'el!.focus()@.blur();');
    expect(syntax.extractTags('List.tsx', broken).map(line)).toContain('40:18 call blur on el!.focus()');
    for (const source of [TSX_COMPONENTS, broken]) {
      const [byQuery, byWalk] = syntax.withTree('tsx', source, (tree) => [extractTagsFromTree('tsx', tree, source), extractTagsByWalk('tsx', tree, source)]);
      expect(byQuery).toEqual(byWalk);
    }
  });
});
