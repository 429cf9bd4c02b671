// Offline from the first visit: once the service worker is installed, the page puts
// every file of the build (listed in Vite's manifest) into the cache it answers from,
// so a later visit without a network needs nothing it has not already stored.

/** The cache public/sw.js answers from. */
const CACHE = 'berth-playground';

interface ManifestChunk {
  readonly file: string;
  readonly css?: readonly string[];
  readonly assets?: readonly string[];
}

export async function cacheForOffline(): Promise<void> {
  const res = await fetch('./.vite/manifest.json');
  if (!res.ok) return;
  const manifest = (await res.json()) as Record<string, ManifestChunk>;
  const files = new Set(['./', ...Object.values(manifest).flatMap((c) => [c.file, ...(c.css ?? []), ...(c.assets ?? [])].map((f) => `./${f}`))]);
  await (await caches.open(CACHE)).addAll([...files]);
}
