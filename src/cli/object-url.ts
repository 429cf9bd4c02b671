// Sweep shard files on object storage through plain HTTP(S): a shard PUTs its file
// to a URL and `sweep reduce` GETs them back. That is the one form S3 presigned
// URLs, GCS signed URLs and Azure SAS URLs all accept, so berth needs no cloud SDK
// and no credentials of its own: whoever signs the URLs decides what may be written.
// A URL's query string is its signature, so messages never show it.

import { readFile } from 'node:fs/promises';
import { InvalidArgumentError } from 'commander';
import { CliError } from './common.js';

/** In a URL template, replaced by the shard's file name (shard-00003-of-00020.jsonl). */
export const SHARD_PLACEHOLDER = '{shard}';

/** Azure's Put Blob needs the blob type; S3 and GCS ignore a header outside their own prefixes. */
const PUT_HEADERS = { 'x-ms-blob-type': 'BlockBlob' };
/** A shard file is at most some MB; a stalled store should fail the pod, not hang it. */
const TIMEOUT_MS = 300_000;
/** Answers of a store that is busy or briefly failing: S3, GCS and Azure all ask clients to retry these. */
const TRANSIENT_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
/** Connection failures worth another try (a reset or a name lookup that timed out); a refused connection is not. */
const TRANSIENT_ERRORS = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'UND_ERR_SOCKET']);
/**
 * The waits before the second, third and fourth try (GET and PUT of a whole object are
 * idempotent): a brief outage passes, a lasting one fails the command, and a Job then
 * retries the pod.
 */
export const RETRY_DELAYS_MS: readonly number[] = [500, 2_000, 8_000];

export const isHttpUrl = (s: string): boolean => /^https?:\/\//i.test(s);

/** The URL as it may be shown: no user, no password, and `?…` in place of the query string. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname.replaceAll('%7Bshard%7D', SHARD_PLACEHOLDER)}${u.search ? '?…' : ''}`;
  } catch {
    return '(not a URL)';
  }
}

/** A --results-url value: an http(s) URL (template), or @FILE naming a file of them. */
export function parseUrlOption(value: string): string {
  if (value.startsWith('@') || isHttpUrl(value)) {
    if (!value.startsWith('@')) checkUrl(value);
    return value;
  }
  throw new InvalidArgumentError('must be an http:// or https:// URL, or @FILE (the URLs in FILE, one per line)');
}

function checkUrl(url: string): void {
  try {
    new URL(url.replaceAll(SHARD_PLACEHOLDER, 'shard'));
  } catch {
    throw new InvalidArgumentError(`${redactUrl(url)} is not a URL`);
  }
}

/** The URLs in `file`, one per line (blank lines left out), each checked to be http(s). */
export async function readUrlFile(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new CliError(`berth: cannot read the URL file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const urls: string[] = [];
  for (const [i, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (line === '') continue;
    if (!isHttpUrl(line)) throw new CliError(`berth: ${file}:${i + 1}: not an http:// or https:// URL`);
    urls.push(line);
  }
  if (urls.length === 0) throw new CliError(`berth: ${file}: no URL in it`);
  return urls;
}

/** A template's {shard} filled in with a shard's file name. */
export const shardUrl = (template: string, fileName: string): string => template.replaceAll(SHARD_PLACEHOLDER, fileName);

/**
 * Every shard's URL, from a --results-url value: a template with {shard}, or @FILE
 * with one URL per shard (line i for shard i) or one template. Two shards never
 * share a URL: the second would overwrite the first.
 */
export async function shardUrls(value: string, count: number, fileName: (i: number) => string): Promise<string[]> {
  const from = value.startsWith('@') ? value.slice(1) : undefined;
  const urls = from === undefined ? [value] : await readUrlFile(from);
  const where = from === undefined ? '--results-url' : from;
  if (urls.length === count) return urls.map((u, i) => shardUrl(u, fileName(i)));
  if (urls.length === 1 && urls[0]!.includes(SHARD_PLACEHOLDER)) return Array.from({ length: count }, (_, i) => shardUrl(urls[0]!, fileName(i)));
  throw new CliError(`berth: ${where}: ${count} shards need ${count} URLs (one per line, line i for shard i) or one with ${SHARD_PLACEHOLDER} in it; ${urls.length === 1 ? `${redactUrl(urls[0]!)} has no ${SHARD_PLACEHOLDER}` : `it has ${urls.length}`}`);
}

/** "403 Forbidden (AccessDenied)": the status, and the store's error code when its body names one. */
async function statusOf(res: Response): Promise<string> {
  const body = await res.text().catch(() => '');
  // S3, GCS and Azure answer XML with a <Code>; never the body itself, which may quote the request.
  const code = /<Code>([A-Za-z0-9.]{1,64})<\/Code>/.exec(body)?.[1];
  return `${res.status}${res.statusText ? ` ${res.statusText}` : ''}${code ? ` (${code})` : ''}`;
}

function failure(method: string, url: string, why: string): CliError {
  // Exit 1, not 2 (bad input): a store's failure may pass, so a Job retries the pod.
  return new CliError(`berth: ${method} ${redactUrl(url)} failed: ${why}`, 1);
}

/** One try: the answer, or why there was none and whether another try may get one. */
async function tryOnce(method: 'GET' | 'PUT', url: string, body?: string): Promise<Response | { why: string; transient: boolean }> {
  try {
    return await fetch(url, {
      method,
      // Bytes, not a string: fetch then sets no Content-Type, which a signed URL may not allow.
      ...(body !== undefined ? { body: Buffer.from(body, 'utf8'), headers: PUT_HEADERS } : {}),
      redirect: 'follow',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (e) {
    if ((e as Error).name === 'TimeoutError') return { why: `no answer within ${TIMEOUT_MS / 1000} s`, transient: false };
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return { why: cause?.code ?? cause?.message ?? (e as Error).message, transient: TRANSIENT_ERRORS.has(cause?.code ?? '') };
  }
}

/** The request, tried again after each of `delays` while the store's failure is transient; a 2xx answer or an error naming the last failure. */
async function request(method: 'GET' | 'PUT', url: string, body: string | undefined, delays: readonly number[]): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const res = await tryOnce(method, url, body);
    const ok = res instanceof Response && res.ok;
    const transient = res instanceof Response ? TRANSIENT_STATUSES.has(res.status) : res.transient;
    if (ok || !transient || attempt === delays.length) {
      if (ok) return res;
      const why = res instanceof Response ? await statusOf(res) : res.why;
      throw failure(method, url, attempt > 0 ? `${why}, after ${attempt + 1} tries` : why);
    }
    if (res instanceof Response) await res.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, delays[attempt]));
  }
}

/** PUTs `text` to `url`; any answer but 2xx (after retrying transient ones) is an error naming the status and the URL without its query. */
export async function putText(url: string, text: string, retryDelaysMs = RETRY_DELAYS_MS): Promise<void> {
  const res = await request('PUT', url, text, retryDelaysMs);
  await res.body?.cancel();
}

/** GETs `url` as UTF-8 text; any answer but 2xx (after retrying transient ones) is an error naming the status. */
export async function getText(url: string, retryDelaysMs = RETRY_DELAYS_MS): Promise<string> {
  const res = await request('GET', url, undefined, retryDelaysMs);
  return await res.text();
}
