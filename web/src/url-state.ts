// The editor text in the URL hash: deflate (CompressionStream) then base64url.

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

/** What a link carries: the example picked, the editor text when it differs from that example, the action last run. */
export interface PageState {
  readonly example: string;
  readonly text?: string;
  readonly action?: Action;
}

/** `e=<example>&a=<action>&t=<deflated text>`; only the parts that are set. */
export async function encodePage(state: PageState): Promise<string> {
  const params = new URLSearchParams();
  if (state.example) params.set('e', state.example);
  if (state.action) params.set('a', state.action);
  if (state.text !== undefined) params.set('t', await encodeState(state.text));
  return params.toString();
}

/** The state in a hash (without its '#'); a hash of only deflated text is an older link's. Undefined when it is damaged. */
export async function decodePage(hash: string): Promise<PageState | undefined> {
  if (!hash.includes('=')) {
    const text = await decodeState(hash);
    return text === undefined ? undefined : { example: '', text };
  }
  const params = new URLSearchParams(hash);
  const t = params.get('t');
  const text = t === null ? undefined : await decodeState(t);
  if (t !== null && text === undefined) return undefined;
  const a = params.get('a');
  return { example: params.get('e') ?? '', ...(text !== undefined && { text }), ...(a !== null && ACTIONS.includes(a) && { action: a as Action }) };
}
