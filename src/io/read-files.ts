// The only file-system code of io/: turns the CLI's -f arguments into named texts.
// A folder contributes its *.yaml, *.yml and *.json files sorted by name, so the
// order — and so every result — is the same on every machine; its sub-folders too
// with `recursive` (kubectl's -R), else each is named in a warning. `-` reads
// standard input.

import { constants } from 'node:buffer';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SourceInput } from './yaml-source.js';

const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'];

export const STDIN_NAME = '<stdin>';

function isManifestFile(name: string): boolean {
  return MANIFEST_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext));
}

async function readStdin(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

const ERRNO_WORDS: Record<string, string> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOTDIR: 'a path component is not a folder',
  ELOOP: 'too many symbolic links',
  EISDIR: 'is a folder',
};

/** Why a path could not be read, in words (the code too, for a search). */
export function readProblem(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  // A 5,000-node cluster's kubectl dump can be that large (a pod is about 5 KB as kubectl writes it, more with sidecars).
  if (code === 'ERR_STRING_TOO_LONG') {
    return `it is longer than the ${constants.MAX_STRING_LENGTH.toLocaleString('en-US')} characters node holds in one string (${code}): split it into several files (kubectl get nodes -o yaml > nodes.yaml; kubectl get pods -A -o yaml > pods.yaml; ...) and pass each`;
  }
  if (code) return ERRNO_WORDS[code] ? `${ERRNO_WORDS[code]} (${code})` : code;
  return e instanceof Error ? e.message : String(e);
}

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface ReadOptions {
  /** Read folders' sub-folders too (kubectl's -R). */
  readonly recursive?: boolean;
  /** Told of each sub-folder left out because `recursive` is off. */
  readonly onSkippedFolder?: (folder: string) => void;
  readonly stdin?: NodeJS.ReadableStream;
}

/** The files a path stands for: itself, or a folder's manifest files sorted by name (then its sub-folders', with `recursive`). */
export async function expandPath(path: string, opts: ReadOptions = {}): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (e) {
    throw new Error(`cannot read ${path}: ${readProblem(e)}`);
  }
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && isManifestFile(e.name)).map((e) => e.name).sort(byName).map((name) => join(path, name));
  const folders = entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort(byName).map((name) => join(path, name));
  if (!opts.recursive) {
    for (const f of folders) opts.onSkippedFolder?.(f);
    return files;
  }
  for (const f of folders) files.push(...(await expandPath(f, opts)));
  return files;
}

/**
 * Reads every path in order (files, folders, `-` for stdin). Throws an Error with a
 * one-line message naming the path when one cannot be read.
 */
export async function readSources(paths: readonly string[], opts: ReadOptions = {}): Promise<SourceInput[]> {
  const out: SourceInput[] = [];
  for (const path of paths) {
    if (path === '-') {
      try {
        out.push({ name: STDIN_NAME, text: await readStdin(opts.stdin ?? process.stdin) });
      } catch (e) {
        throw new Error(`cannot read ${STDIN_NAME}: ${readProblem(e)}`);
      }
      continue;
    }
    for (const file of await expandPath(path, opts)) {
      try {
        out.push({ name: file, text: await readFile(file, 'utf8') });
      } catch (e) {
        throw new Error(`cannot read ${file}: ${readProblem(e)}`);
      }
    }
  }
  return out;
}
