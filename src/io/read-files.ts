// The only file-system code of io/: turns the CLI's -f arguments into named texts.
// A folder contributes its *.yaml, *.yml and *.json files (not recursively), sorted
// by name so the order — and so every result — is the same on every machine;
// `-` reads standard input.

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

function describe(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e instanceof Error ? e.message : String(e));
}

/** The files a path stands for: itself, or a folder's manifest files sorted by name. */
export async function expandPath(path: string): Promise<string[]> {
  let info;
  try {
    info = await stat(path);
  } catch (e) {
    throw new Error(`cannot read ${path}: ${describe(e)}`);
  }
  if (!info.isDirectory()) return [path];
  const entries = await readdir(path, { withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && isManifestFile(e.name))
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => join(path, name));
}

/**
 * Reads every path in order (files, folders, `-` for stdin). Throws an Error with a
 * one-line message naming the path when one cannot be read.
 */
export async function readSources(paths: readonly string[], stdin: NodeJS.ReadableStream = process.stdin): Promise<SourceInput[]> {
  const out: SourceInput[] = [];
  for (const path of paths) {
    if (path === '-') {
      out.push({ name: STDIN_NAME, text: await readStdin(stdin) });
      continue;
    }
    for (const file of await expandPath(path)) {
      try {
        out.push({ name: file, text: await readFile(file, 'utf8') });
      } catch (e) {
        throw new Error(`cannot read ${file}: ${describe(e)}`);
      }
    }
  }
  return out;
}
