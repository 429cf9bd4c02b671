// The bundled examples (examples/**/*.yaml) by path under examples/: a chunk of
// their own, fetched beside the page's, so the page's first chunk is the editor only.

export const examples: Record<string, string> = Object.fromEntries(
  Object.entries(import.meta.glob<string>('../../examples/**/*.yaml', { query: '?raw', import: 'default', eager: true })).map(([k, v]) => [k.replace('../../examples/', ''), v]),
);

export const exampleNames = Object.keys(examples).sort();
