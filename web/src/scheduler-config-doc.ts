// A KubeSchedulerConfiguration written among the manifests is the playground's
// `--config`: this finds that document and hands it to the CLI's loader with every
// other line blanked, so the loader's line numbers are the editor's.

const SEPARATOR = /^---(\s|$)/;
const CONFIG_KIND = /^kind:\s*["']?KubeSchedulerConfiguration["']?\s*(#.*)?$/;

/** The text with only the first KubeSchedulerConfiguration document left, or undefined when there is none. */
export function schedulerConfigDocument(text: string): string | undefined {
  const lines = text.split('\n');
  let start = 0;
  for (let i = 0; i <= lines.length; i++) {
    if (i < lines.length && !SEPARATOR.test(lines[i]!)) continue;
    if (lines.slice(start, i).some((l) => CONFIG_KIND.test(l))) return lines.map((l, j) => (j >= start && j < i ? l : '')).join('\n');
    start = i + 1;
  }
  return undefined;
}
