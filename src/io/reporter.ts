// Collects diagnostics while loading and turns field-path errors into source positions.

import { FieldError, type FieldPath } from '../model/errors.js';
import { formatFieldPath, withoutRepeatedField, type Diagnostic } from './diagnostics.js';
import { objectLabel, positionOf, type RawObject } from './objects.js';

interface Entry {
  readonly input: number;
  readonly diagnostic: Diagnostic;
}

export class Reporter {
  private readonly entries: Entry[] = [];
  /** Skip warnings by message: the first one's entry, and how many objects share it. */
  private readonly skipped = new Map<string, { entry: Entry; count: number }>();

  /** A diagnostic that belongs to no object (malformed YAML, a document that is not an object). */
  add(input: number, diagnostic: Diagnostic): void {
    this.entries.push({ input, diagnostic });
  }

  private at(severity: Diagnostic['severity'], obj: RawObject, path: FieldPath, message: string, withObject: boolean, where: 'value' | 'key' = 'value'): void {
    const { line, column } = positionOf(obj, path, where);
    const field = formatFieldPath(path);
    this.entries.push({
      input: obj.input,
      diagnostic: {
        severity,
        file: obj.doc.file,
        line,
        column,
        ...(withObject ? { object: objectLabel(obj) } : {}),
        ...(field ? { field } : {}),
        message: withoutRepeatedField(message, path),
      },
    });
  }

  error(obj: RawObject, path: FieldPath, message: string): void {
    this.at('error', obj, path, message, true);
  }

  warn(obj: RawObject, path: FieldPath, message: string): void {
    this.at('warning', obj, path, message, true);
  }

  /** A problem with a field's name rather than its value (an unknown field): reported at the key. */
  fieldName(severity: Diagnostic['severity'], obj: RawObject, path: FieldPath, message: string): void {
    this.at(severity, obj, path, message, true, 'key');
  }

  /**
   * A warning about an object berth does not read: position only, no object label or
   * field. Objects skipped for the same message are summed up in one warning, at the
   * first of them, unless `each` (a kind that creates pods: every such object is named).
   */
  skip(obj: RawObject, message: string, each = false): void {
    const { line, column } = positionOf(obj, ['kind']);
    const entry = { input: obj.input, diagnostic: { severity: 'warning' as const, file: obj.doc.file, line, column, message } };
    if (each) {
      this.entries.push({ ...entry, diagnostic: { ...entry.diagnostic, object: objectLabel(obj) } });
      return;
    }
    const seen = this.skipped.get(message);
    if (seen) seen.count++;
    else this.skipped.set(message, { entry, count: 1 });
  }

  /** Reports whatever a compile step threw; FieldError paths are relative to `prefix` within the object. */
  thrown(obj: RawObject, e: unknown, prefix: FieldPath = []): void {
    if (e instanceof FieldError) this.error(obj, [...prefix, ...e.path], e.message);
    else this.error(obj, prefix, e instanceof Error ? e.message : String(e));
  }

  /** Runs `fn`, reporting anything it throws; undefined when it threw. */
  attempt<T>(obj: RawObject, fn: () => T, prefix: FieldPath = []): T | undefined {
    try {
      return fn();
    } catch (e) {
      this.thrown(obj, e, prefix);
      return undefined;
    }
  }

  get errorCount(): number {
    return this.entries.filter((e) => e.diagnostic.severity === 'error').length;
  }

  /** Diagnostics of one severity in input order, then line and column. */
  sorted(severity: Diagnostic['severity']): Diagnostic[] {
    const summaries = [...this.skipped.values()].map(({ entry, count }) =>
      count === 1 ? entry : { ...entry, diagnostic: { ...entry.diagnostic, message: `${entry.diagnostic.message} (${count} objects, the first here)` } },
    );
    return [...this.entries, ...summaries]
      .filter((e) => e.diagnostic.severity === severity)
      .map((e, i) => ({ ...e, i }))
      .sort((a, b) => a.input - b.input || a.diagnostic.line - b.diagnostic.line || a.diagnostic.column - b.diagnostic.column || a.i - b.i)
      .map((e) => e.diagnostic);
  }
}
