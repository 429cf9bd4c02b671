// JSON merge patches (RFC 7386) as `berth check` writes its fixes: composing two
// patches of one object, and applying a patch to a manifest (--fix-dir).

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One patch with the effect of `a` then `b`. */
export function composeMergePatches(a: unknown, b: unknown): unknown {
  if (!isObject(a) || !isObject(b)) return b;
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? composeMergePatches(out[k], v) : v;
  return out;
}

/** RFC 7386 MergePatch(target, patch): objects merge key by key, null removes, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}
