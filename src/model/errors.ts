// A validation problem at a field path inside one object. io/ turns the path into file:line:column.

export type FieldPath = readonly (string | number)[];

export class FieldError extends Error {
  constructor(
    message: string,
    readonly path: FieldPath = [],
  ) {
    super(message);
  }

  /** The same error seen from an enclosing object, with `prefix` prepended to the path. */
  under(prefix: FieldPath): FieldError {
    return new FieldError(this.message, [...prefix, ...this.path]);
  }
}

/** Runs `fn`, re-throwing any FieldError with `prefix` prepended and any other Error as a FieldError at `prefix`. */
export function atPath<T>(prefix: FieldPath, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof FieldError) throw e.under(prefix);
    if (e instanceof Error) throw new FieldError(e.message, prefix);
    throw e;
  }
}
