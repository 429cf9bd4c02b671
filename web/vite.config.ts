import { defineConfig } from 'vite';

// base './' so the built folder works from any path (berth serve, file hosting).
// The manifest lists every built file: the page caches them all for offline use (src/offline.ts).
export default defineConfig({ root: import.meta.dirname, base: './', build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', manifest: true }, worker: { format: 'es' } });
