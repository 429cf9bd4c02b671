// The playground's input, in five panes: each a file of its own for the engine
// (its diagnostics name it), filled by kind when an example, a link's text or a
// dropped dump comes in. Any kind may be written in any pane: the panes only sort.

export const TABS = ['cluster', 'workloads', 'nodepools', 'scheduler', 'scenario'] as const;
export type Tab = (typeof TABS)[number];
export type Tabs = Record<Tab, string>;

export const TAB_LABEL: Record<Tab, string> = { cluster: 'Cluster', workloads: 'Workloads', nodepools: 'NodePools', scheduler: 'Scheduler', scenario: 'Scenario' };

/** The file name the engine gives each pane's text (diagnostics carry it). */
export const TAB_FILE: Record<Tab, string> = { cluster: 'cluster.yaml', workloads: 'workloads.yaml', nodepools: 'nodepools.yaml', scheduler: 'scheduler.yaml', scenario: 'scenario.yaml' };

export function tabOfFile(file: string): Tab | undefined {
  return TABS.find((t) => TAB_FILE[t] === file);
}

const CLUSTER_KINDS = ['Node', 'Namespace', 'PriorityClass', 'PersistentVolume', 'StorageClass', 'CSINode', 'CSIDriver', 'CSIStorageCapacity', 'VolumeAttachment'];
const NODEPOOL_KINDS = ['NodePool', 'NodeClaim', 'InstanceTypeCatalog', 'EC2NodeClass'];

/** The pane a kind is sorted into; workloads for every kind not named (Pods, Deployments, PDBs, claims, unknown kinds). */
export function tabOfKind(kind: string): Tab {
  if (CLUSTER_KINDS.includes(kind)) return 'cluster';
  if (NODEPOOL_KINDS.includes(kind)) return 'nodepools';
  if (kind === 'KubeSchedulerConfiguration') return 'scheduler';
  if (kind === 'Scenario') return 'scenario';
  return 'workloads';
}

export const emptyTabs = (): Tabs => ({ cluster: '', workloads: '', nodepools: '', scheduler: '', scenario: '' });

const SEPARATOR = /^---(\s|$)/;
const TOP_LEVEL_KIND = /^kind:\s*["']?([A-Za-z0-9.]+)["']?\s*(#.*)?$/m;
const CONTENT = /^[^#\s]/m;

const FLOW_KIND = /(?:^|[{,])\s*["']?kind["']?\s*:\s*["']?([A-Za-z0-9.]+)/;

/** The end of the quoted scalar starting at i (its closing quote). */
function closingQuote(text: string, i: number): number {
  const q = text[i];
  for (let k = i + 1; k < text.length; k++) {
    if (q === '"' && text[k] === '\\') k++;
    else if (text[k] === q) {
      if (q === "'" && text[k + 1] === "'") k++;
      else return k;
    }
  }
  return text.length;
}

/**
 * The kind of a document written as one flow mapping ({kind: Node, ...} on a line,
 * or JSON as kubectl -o json writes it): its top-level `kind` key, the nested
 * collections left out.
 */
function flowKind(doc: string): string | undefined {
  const start = /^(\s*(#.*)?\n)*\s*\{/.exec(doc);
  if (!start) return undefined;
  let top = '';
  let depth = 0;
  for (let i = start[0].length - 1; i < doc.length; i++) {
    const c = doc[i]!;
    if (c === '"' || c === "'") {
      const end = closingQuote(doc, i);
      if (depth === 1) top += doc.slice(i, end + 1);
      i = end;
    } else if (c === '{' || c === '[') {
      if (++depth === 1) top += c;
    } else if (c === '}' || c === ']') {
      if (--depth === 0) break;
    } else if (depth === 1) top += c;
  }
  return FLOW_KIND.exec(top)?.[1];
}

/** A document's top-level kind, read from its text (no YAML parse: this runs on the page's thread). */
export function kindOf(doc: string): string | undefined {
  return TOP_LEVEL_KIND.exec(doc)?.[1] ?? flowKind(doc);
}

/** The text's YAML documents, each with the comments written before it (a comment-only document joins the next one). */
export function documents(text: string): string[] {
  const docs: string[] = [];
  let pending = '';
  let current: string[] = [];
  const flush = () => {
    const doc = pending + current.join('\n');
    if (CONTENT.test(doc)) {
      docs.push(doc);
      pending = '';
    } else pending = doc.trim() === '' ? pending : `${doc.replace(/\n*$/, '')}\n`;
    current = [];
  };
  for (const line of text.split('\n')) {
    if (!SEPARATOR.test(line)) current.push(line);
    else {
      flush();
      // '--- {kind: Pod, ...}': a document may start on its separator's line.
      const rest = line.slice(3).trim();
      if (rest !== '' && !rest.startsWith('#')) current.push(rest);
    }
  }
  flush();
  if (pending !== '' && docs.length > 0) docs[docs.length - 1] += `\n${pending}`;
  return docs.map((d) => d.replace(/\n*$/, '\n'));
}

export function joinDocuments(docs: readonly string[]): string {
  return docs.map((d) => (d.endsWith('\n') ? d : `${d}\n`)).join('---\n');
}

/**
 * Sorts a text's documents into panes by kind. A List (a kubectl dump) is handed to
 * `expandList`, which sorts its items (it needs a YAML parser: the worker has one);
 * without it a List goes whole to Workloads.
 */
export function splitByKind(text: string, expandList?: (doc: string) => Partial<Tabs>): Tabs {
  const docs: Record<Tab, string[]> = { cluster: [], workloads: [], nodepools: [], scheduler: [], scenario: [] };
  for (const doc of documents(text)) {
    const kind = kindOf(doc) ?? '';
    if (kind.endsWith('List') && expandList) {
      for (const [tab, part] of Object.entries(expandList(doc)) as [Tab, string][]) if (part) docs[tab].push(part);
    } else docs[tabOfKind(kind)].push(doc);
  }
  const tabs = emptyTabs();
  for (const t of TABS) tabs[t] = joinDocuments(docs[t]);
  return tabs;
}

/** Each pane's text as one input, panes in order (what a link made by an older page held). */
export function joinTabs(tabs: Tabs): string {
  return joinDocuments(TABS.map((t) => tabs[t]).filter((t) => t.trim() !== ''));
}

/** The first pane with something in it, for the page to show. */
export function firstFilled(tabs: Tabs): Tab {
  return TABS.find((t) => tabs[t].trim() !== '') ?? 'cluster';
}
