// The controller's logger (pino).

import { pino, type Logger } from 'pino';

/**
 * JSON lines with the level as a name ("level":"info") and the time as ISO 8601
 * ("time":"2026-12-03T21:00:00.000Z"), as operators read and log pipelines parse them.
 */
export function controllerLogger(level: string, identity: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, base: { identity }, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label: string) => ({ level: label }) } };
  return destination ? pino(options, destination) : pino(options);
}
