// The input panes in the URL hash: each deflated (CompressionStream) then base64url.

import { TABS, type Tab, type Tabs } from './input-tabs.js';

async function pipe(bytes: Uint8Array<ArrayBuffer>, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

export async function encodeState(text: string): Promise<string> {
  const bytes = await pipe(new TextEncoder().encode(text), new CompressionStream('deflate'));
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export async function decodeState(hash: string): Promise<string | undefined> {
  try {
    const b64 = hash.replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
    return new TextDecoder().decode(await pipe(bytes, new DecompressionStream('deflate')));
  } catch {
    return undefined;
  }
}

export type Action = 'schedule' | 'provision' | 'simulate' | 'check';
const ACTIONS: readonly string[] = ['schedule', 'provision', 'simulate', 'check'];

/** A pane's parameter in a link. */
const PANE_KEY: Record<Tab, string> = { cluster: 'c', workloads: 'w', nodepools: 'n', scheduler: 's', scenario: 'x' };

/**
 * What a link carries: the example picked, the panes whose text differs from that
 * example's, the action last run. `text` is a whole input in one (an older link's
 * `t`), sorted into panes by kind when opened.
 */
export interface PageState {
  readonly example: string;
  readonly tabs?: Partial<Tabs>;
  readonly text?: string;
  readonly action?: Action;
}

/** `e=<example>&a=<action>&c=…&w=…` (each pane's text deflated); only the parts that are set. */
export async function encodePage(state: PageState): Promise<string> {
  const params = new URLSearchParams();
  if (state.example) params.set('e', state.example);
  if (state.action) params.set('a', state.action);
  if (state.text !== undefined) params.set('t', await encodeState(state.text));
  for (const tab of TABS) {
    const text = state.tabs?.[tab];
    if (text !== undefined) params.set(PANE_KEY[tab], await encodeState(text));
  }
  return params.toString();
}

/** The state in a hash (without its '#'); a hash of only deflated text is an older link's. Undefined when it is damaged. */
export async function decodePage(hash: string): Promise<PageState | undefined> {
  if (!hash.includes('=')) {
    const text = await decodeState(hash);
    return text === undefined ? undefined : { example: '', text };
  }
  const params = new URLSearchParams(hash);
  const decoded = async (key: string): Promise<string | undefined | null> => {
    const v = params.get(key);
    return v === null ? null : decodeState(v);
  };
  const text = await decodeState(params.get('t') ?? '');
  if (params.has('t') && text === undefined) return undefined;
  const tabs: Partial<Tabs> = {};
  for (const tab of TABS) {
    const t = await decoded(PANE_KEY[tab]);
    if (t === undefined) return undefined;
    if (t !== null) tabs[tab] = t;
  }
  const a = params.get('a');
  return {
    example: params.get('e') ?? '',
    ...(Object.keys(tabs).length > 0 && { tabs }),
    ...(params.has('t') && text !== undefined && { text }),
    ...(a !== null && ACTIONS.includes(a) && { action: a as Action }),
  };
}
