// Plugin results, mirroring the scheduling framework's Status codes.

export enum Code {
  Success = 0,
  Error = 1,
  Unschedulable = 2,
  UnschedulableAndUnresolvable = 3,
  Wait = 4,
  Skip = 5,
  Pending = 6,
}

export const CODE_NAMES: Record<Code, string> = {
  [Code.Success]: 'Success',
  [Code.Error]: 'Error',
  [Code.Unschedulable]: 'Unschedulable',
  [Code.UnschedulableAndUnresolvable]: 'UnschedulableAndUnresolvable',
  [Code.Wait]: 'Wait',
  [Code.Skip]: 'Skip',
  [Code.Pending]: 'Pending',
};

export class Status {
  constructor(
    readonly code: Code,
    readonly reasons: readonly string[] = [],
    /** The plugin that produced it; set by the framework. */
    public plugin = '',
  ) {}

  static readonly SUCCESS = Object.freeze(new Status(Code.Success));
  static readonly SKIP = Object.freeze(new Status(Code.Skip));

  static unschedulable(...reasons: string[]): Status {
    return new Status(Code.Unschedulable, reasons);
  }

  static unresolvable(...reasons: string[]): Status {
    return new Status(Code.UnschedulableAndUnresolvable, reasons);
  }

  static error(message: string): Status {
    return new Status(Code.Error, [message]);
  }

  isSuccess(): boolean {
    return this.code === Code.Success;
  }

  isSkip(): boolean {
    return this.code === Code.Skip;
  }

  /** Unschedulable, UnschedulableAndUnresolvable or Pending. */
  isRejected(): boolean {
    return this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable || this.code === Code.Pending;
  }

  message(): string {
    return this.reasons.join(', ');
  }

  withPlugin(plugin: string): Status {
    return new Status(this.code, this.reasons, plugin);
  }
}

/** An internal failure inside a plugin (the framework's Error code); never a scheduling verdict. */
export class SchedulerError extends Error {}
