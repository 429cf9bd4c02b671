// A worker module of plain JavaScript for pool.test.ts, as a built install's are:
// answers whether a TypeScript file can be imported in its thread, i.e. whether the
// pool registered a TypeScript loader there.
import { URL } from 'node:url';

export default async function canImportTypeScript() {
  try {
    await import(new URL('./pool-echo.test-support.ts', import.meta.url).href);
    return true;
  } catch {
    return false;
  }
}
