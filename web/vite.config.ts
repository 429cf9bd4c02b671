import { defineConfig } from 'vite';

// base './' so the built folder works from any path (berth serve, file hosting).
export default defineConfig({ root: import.meta.dirname, base: './', build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' } });
