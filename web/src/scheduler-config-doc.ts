// A KubeSchedulerConfiguration written among the manifests is the playground's
// `--config`: this finds those documents and hands each to the CLI's loader with
// every other line blanked, so the loader's line numbers are the editor's.

const SEPARATOR = /^---(\s|$)/;
const CONFIG_KIND = /^kind:\s*["']?KubeSchedulerConfiguration["']?\s*(#.*)?$/;

export interface ConfigDocument {
  /** The text with only this document left. */
  readonly text: string;
  /** 1-based line of its `kind:`. */
  readonly line: number;
}

/** Each KubeSchedulerConfiguration document of the text, in order. */
export function schedulerConfigDocuments(text: string): ConfigDocument[] {
  const lines = text.split('\n');
  const found: ConfigDocument[] = [];
  let start = 0;
  for (let i = 0; i <= lines.length; i++) {
    if (i < lines.length && !SEPARATOR.test(lines[i]!)) continue;
    const kind = lines.slice(start, i).findIndex((l) => CONFIG_KIND.test(l));
    if (kind >= 0) found.push({ text: lines.map((l, j) => (j >= start && j < i ? l : '')).join('\n'), line: start + kind + 1 });
    start = i + 1;
  }
  return found;
}
