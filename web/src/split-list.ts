// A List document (what `kubectl get -o yaml` writes) sorted into the input panes:
// each pane gets a List of its items, each item's text cut from the original
// (comments and formatting kept), so a dump of nodes and pods lands in Cluster and
// Workloads; a JSON List's items become block sequence entries. Runs in the
// worker: it parses the YAML.

import { isMap, isNode, isSeq, parseDocument } from 'yaml';
import { emptyTabs, tabOfKind, type Tab, type Tabs } from './input-tabs.js';

function lineStart(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}

/** The List's items by pane, as Lists; the whole document in workloads when it is not a List with an items sequence. */
export function splitList(doc: string): Partial<Tabs> {
  const parsed = parseDocument(doc, { keepSourceTokens: false });
  const items = isMap(parsed.contents) ? parsed.contents.get('items', true) : undefined;
  if (parsed.errors.length > 0 || !isSeq(items) || !items.range) return { workloads: doc };
  // kubectl writes kind: List after the items; each pane's List is written kind first.
  const header = 'apiVersion: v1\nkind: List\nitems:\n';
  const byTab = emptyTabs();
  const startOf = (node: unknown) => (isNode(node) && node.range ? lineStart(doc, node.range[0]) : undefined);
  items.items.forEach((item, i) => {
    const kind = isMap(item) ? String(item.get('kind') ?? '') : '';
    // A JSON List (kubectl -o json): each item's flow mapping becomes an entry of the block sequence.
    if (items.flow) {
      if (isNode(item) && item.range) byTab[tabOfKind(kind)] += `- ${doc.slice(item.range[0], item.range[1])}\n`;
      return;
    }
    const start = startOf(item);
    if (start === undefined) return;
    const end = startOf(items.items[i + 1]) ?? items.range![2];
    byTab[tabOfKind(kind)] += doc.slice(start, end).replace(/\n?$/, '\n');
  });
  const out: Partial<Tabs> = {};
  for (const [tab, body] of Object.entries(byTab) as [Tab, string][]) if (body) out[tab] = header + body;
  return out;
}
