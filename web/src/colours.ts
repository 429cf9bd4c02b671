// Workload colours: twelve hues dark enough that white chip text keeps a contrast
// of at least 4.5:1 (so the chip itself stands 3:1 and more against the white page),
// far enough apart to tell neighbours apart. Workloads take them in name order,
// so the same input always gets the same colours.

export const PALETTE = ['#1f5fa8', '#b03a12', '#2e7d32', '#8e24aa', '#c62828', '#00695c', '#6d4c41', '#ad1457', '#455a64', '#5e35b1', '#6b6b00', '#0d6b94'] as const;

/** Each workload's colour, assigned in sorted order (the 13th reuses the first). */
export function workloadColours(workloads: Iterable<string>): Map<string, string> {
  return new Map([...new Set(workloads)].sort().map((w, i) => [w, PALETTE[i % PALETTE.length]!]));
}
