// The controller's only door to the API server (@kubernetes/client-node):
// informers that list+watch with resourceVersion (client-node's ListWatch relists
// on 410 Gone) and start again with exponential backoff on any other error, and
// generic create/read/replace/delete of plain JSON objects, and raw GETs for
// the read-only snapshot (snapshot.ts).

import { KubeConfig, KubernetesObjectApi, ListWatch, Watch, type KubernetesObject } from '@kubernetes/client-node';
import http from 'node:http';
import https from 'node:https';
import type { KubeObject } from './objects.js';

export interface Resource {
  readonly apiVersion: string;
  readonly kind: string;
  /** Collection path for watches, e.g. /api/v1/pods or /apis/karpenter.sh/v1/nodepools. */
  readonly path: string;
}

export const BACKOFF_START_MS = 500;
/** Read-modify-write attempts before a conflict is given up on. */
export const CONFLICT_ATTEMPTS = 5;
export const BACKOFF_MAX_MS = 30_000;

/** The next retry delay: doubled, capped. */
export function nextBackoff(previousMs: number): number {
  return previousMs <= 0 ? BACKOFF_START_MS : Math.min(previousMs * 2, BACKOFF_MAX_MS);
}

/** The HTTP status of a failed API call, if it has one. */
export function statusCode(e: unknown): number | undefined {
  if (typeof e !== 'object' || e === null) return undefined;
  const o = e as { code?: unknown; statusCode?: unknown };
  if (typeof o.code === 'number') return o.code;
  if (typeof o.statusCode === 'number') return o.statusCode;
  return undefined;
}

export function errorText(e: unknown): string {
  const code = statusCode(e);
  const msg = e instanceof Error ? e.message.split('\n')[0]! : String(e);
  return code === undefined ? msg : `${code}: ${msg.slice(0, 300)}`;
}

/** A list's metadata: its revision and the token of the next page. */
export interface ListHead {
  readonly resourceVersion?: string;
  readonly continue?: string;
}

export interface ListPageRead {
  readonly head: Promise<ListHead | undefined>;
  readonly page: Promise<unknown>;
  /** Stops the request (a page no longer wanted); `page` then rejects. */
  abort(): void;
}

/** How far into a body the list's head is looked for: it comes first, after the kind and apiVersion. */
const HEAD_SCAN_BYTES = 64 * 1024;

/**
 * Looks for a list's head at the start of a body as it arrives: the text before
 * `"items":` is `{"kind":..,"apiVersion":..,"metadata":{..},`, which closed with a
 * brace is JSON. Calls `found` with the metadata when it is there; true when done
 * looking (found, or not within HEAD_SCAN_BYTES: then the head comes with the page).
 */
function scanHead(chunks: readonly Buffer[], found: (h: ListHead) => void): boolean {
  const start = Buffer.concat(chunks).subarray(0, HEAD_SCAN_BYTES).toString('utf8');
  const at = start.indexOf('"items":');
  if (at < 0) return start.length >= HEAD_SCAN_BYTES;
  const before = start.slice(0, at).trimEnd();
  try {
    const parsed = JSON.parse(`${before.endsWith(',') ? before.slice(0, -1) : before}}`) as { metadata?: ListHead };
    if (parsed.metadata) found(parsed.metadata);
  } catch {
    // not the shape expected
  }
  return true;
}

export interface Informer {
  readonly resource: Resource;
  list(): readonly KubeObject[];
  readonly synced: boolean;
  stop(): Promise<void>;
}

/** client-go's REST client: at most 10 retries of a response that says when to come back. */
const RETRY_AFTER_ATTEMPTS = 10;
/** A Retry-After longer than this is cut to it (the API server sends 1 s). */
const RETRY_AFTER_CAP_S = 10;

/** Seconds to wait before asking again: a 429 or 5xx response's Retry-After (whole seconds); undefined for any other response. */
function retryAfter(res: http.IncomingMessage): number | undefined {
  const code = res.statusCode ?? 0;
  if (code !== 429 && (code < 500 || code > 599)) return undefined;
  const header = res.headers['retry-after'];
  return typeof header === 'string' && /^\d+$/.test(header.trim()) ? Number(header.trim()) : undefined;
}

export class Kube {
  readonly api: KubernetesObjectApi;

  constructor(readonly config: KubeConfig) {
    this.api = KubernetesObjectApi.makeApiClient(config);
  }

  static fromFile(path: string | undefined): Kube {
    const kc = new KubeConfig();
    if (path) kc.loadFromFile(path);
    else kc.loadFromDefault();
    return new Kube(kc);
  }

  /**
   * A started informer: `onChange` runs on every add, update and delete. A list or
   * watch that fails (API server down, CRD not installed yet) is retried with backoff;
   * `onError` hears about each failure.
   */
  informer(resource: Resource, onChange: (o: KubeObject, verb: 'add' | 'update' | 'delete') => void, onError: (e: unknown, retryInMs: number) => void): Informer {
    // ListWatch reports a failed list through its error callback and then resolves
    // start() all the same: synced means a list has succeeded, not that start() returned.
    let listed = false;
    const listFn = async () => {
      const r = await this.api.list(resource.apiVersion, resource.kind);
      listed = true;
      return r;
    };
    const lw = new ListWatch<KubernetesObject>(resource.path, new Watch(this.config), listFn, false);
    let synced = false;
    let stopped = false;
    let backoff = 0;
    let timer: NodeJS.Timeout | undefined;
    let failures = 0;
    const start = async (): Promise<void> => {
      const before = failures;
      try {
        await lw.start();
        if (listed) synced = true;
        // A watch that failed to open was already reported (and a retry set) by now: keep backing off.
        if (listed && failures === before) backoff = 0;
      } catch (e) {
        retry(e);
      }
    };
    const retry = (e: unknown): void => {
      if (stopped) return;
      failures++;
      backoff = nextBackoff(backoff);
      onError(e, backoff);
      clearTimeout(timer);
      timer = setTimeout(() => void start(), backoff);
    };
    for (const verb of ['add', 'update', 'delete'] as const) lw.on(verb, (o) => onChange(o as KubeObject, verb));
    lw.on('error', (e) => retry(e));
    void start();
    return {
      resource,
      list: () => lw.list() as readonly KubeObject[],
      get synced() {
        return synced;
      },
      stop: async () => {
        stopped = true;
        clearTimeout(timer);
        await lw.stop();
      },
    };
  }

  /**
   * GET one page of a list (`path` with its query) and parse the JSON body as sent:
   * client-node's typed models keep only the fields they know, and a snapshot must
   * keep every field. `head` is the list's metadata as soon as it has arrived: the
   * API server writes it before the items, so the next page can be asked for while
   * this one is still coming (undefined when the body has no metadata before its
   * items; then it resolves with `page`). A status other than 200 rejects both with
   * an Error carrying `statusCode`, except that 429 and 5xx with a Retry-After header
   * are asked again after it, as client-go's REST client does (the API server sends
   * one with "Too large resource version" and with throttling).
   */
  getListPage(path: string): ListPageRead {
    let request: http.ClientRequest | undefined;
    let aborted = false;
    let headSeen: (h: ListHead) => void = () => {};
    const head = new Promise<ListHead | undefined>((resolve) => (headSeen = resolve));
    const once = (url: URL, get: typeof http.get, options: https.RequestOptions) =>
      new Promise<unknown>((resolve, reject) => {
        if (aborted) return reject(new Error(`GET ${url.pathname}: aborted`));
        request = get(url, { ...options, headers: { ...options.headers, accept: 'application/json' } }, (res) => {
          const chunks: Buffer[] = [];
          let looking = res.statusCode === 200;
          res.on('data', (c: Buffer) => {
            chunks.push(c);
            if (looking) looking = !scanHead(chunks, headSeen);
          });
          res.on('error', reject);
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode === 200) {
              try {
                resolve(JSON.parse(body));
              } catch (e) {
                reject(e instanceof Error ? e : new Error(String(e)));
              }
              return;
            }
            let message = body.slice(0, 300);
            try {
              message = (JSON.parse(body) as { message?: string }).message ?? message;
            } catch {
              // not a Status object: keep the body's start
            }
            reject(Object.assign(new Error(`GET ${url.pathname}: ${res.statusCode}: ${message}`), { statusCode: res.statusCode, retryAfterS: retryAfter(res) }));
          });
        });
        request.on('error', reject);
      });
    const page = (async () => {
      const server = this.config.getCurrentCluster()?.server;
      if (!server) throw new Error('the kubeconfig has no current cluster');
      const options: https.RequestOptions = {};
      await this.config.applyToHTTPSOptions(options);
      const url = new URL(path, server);
      const get = url.protocol === 'http:' ? http.get : https.get;
      for (let retries = 0; ; retries++) {
        try {
          return await once(url, get, options);
        } catch (e) {
          const wait = (e as { retryAfterS?: number }).retryAfterS;
          if (wait === undefined || retries >= RETRY_AFTER_ATTEMPTS || aborted) throw e;
          await new Promise((r) => setTimeout(r, Math.min(wait, RETRY_AFTER_CAP_S) * 1000));
        }
      }
    })();
    // The head is settled by the page at the latest (a failed page rejects it too).
    const settled = page.then((p) => (p as { metadata?: ListHead }).metadata);
    const headOrPage = Promise.race([head, settled]).then((h) => h ?? settled);
    // A caller may read one of the two, or drop both when an earlier page fails: a
    // failure then is no unhandled rejection (awaiting either still throws it).
    for (const p of [page, headOrPage]) p.catch(() => {});
    return {
      head: headOrPage,
      page,
      abort: () => {
        aborted = true;
        request?.destroy();
      },
    };
  }

  async create<T extends KubeObject>(o: T): Promise<T> {
    return (await this.api.create(o as KubernetesObject)) as T;
  }

  async read(apiVersion: string, kind: string, name: string, namespace?: string): Promise<KubeObject | undefined> {
    try {
      return (await this.api.read({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } })) as KubeObject;
    } catch (e) {
      if (statusCode(e) === 404) return undefined;
      throw e;
    }
  }

  async replace<T extends KubeObject>(o: T): Promise<T> {
    return (await this.api.replace(o as KubernetesObject)) as T;
  }

  /**
   * Read-modify-write with optimistic concurrency: `mutate` gets the object as
   * stored and returns what to write (undefined: nothing to change). The write
   * carries the read resourceVersion; on 409 Conflict (another writer got there
   * between the read and the write) the object is read again and `mutate` runs
   * on the fresh copy, so neither write is lost (`onConflict` hears of each). Undefined when the object is gone.
   */
  async update(apiVersion: string, kind: string, name: string, mutate: (o: KubeObject) => KubeObject | undefined, opts: { namespace?: string; onConflict?: () => void } = {}): Promise<KubeObject | undefined> {
    const { namespace } = opts;
    for (let attempt = 1; ; attempt++) {
      const current = await this.read(apiVersion, kind, name, namespace);
      if (!current) return undefined;
      const next = mutate(current);
      if (!next) return current;
      try {
        return await this.replace(next);
      } catch (e) {
        if (statusCode(e) !== 409 || attempt >= CONFLICT_ATTEMPTS) throw e;
        opts.onConflict?.();
      }
    }
  }

  /** Deletes; an object already gone is not an error. */
  async delete(apiVersion: string, kind: string, name: string, namespace?: string): Promise<void> {
    try {
      await this.api.delete({ apiVersion, kind, metadata: { name, ...(namespace ? { namespace } : {}) } });
    } catch (e) {
      if (statusCode(e) !== 404) throw e;
    }
  }
}
