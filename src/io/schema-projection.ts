// The part of a value that a zod schema reads. A schema's object strips the keys it
// does not declare, so parsing the projection gives what parsing the whole value
// gives; what is dropped is what a real dump carries in bulk and berth never reads
// (a pod's container statuses, probes and environment, managed fields, a node's
// addresses and system info). Where the schema cannot say which keys it reads (a
// union, a custom check, a transform's input, a record's keys), the value is kept
// whole.

import type { z } from 'zod';

type Projector = (value: unknown) => unknown;

const whole: Projector = (value) => value;

/** zod's definition of a schema: its kind, and the parts the kinds below have. */
interface Definition {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly catchall?: z.ZodType;
  readonly element?: z.ZodType;
  readonly innerType?: z.ZodType;
  readonly in?: z.ZodType;
  readonly valueType?: z.ZodType;
}

const definition = (schema: z.ZodType): Definition => (schema as unknown as { _zod: { def: Definition } })._zod.def;

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

const projectors = new WeakMap<z.ZodType, Projector>();

/** The projection of values onto what `schema` reads. A schema that contains itself does so through z.lazy, which is kept whole, so building ends. */
export function projectorOf(schema: z.ZodType): Projector {
  let p = projectors.get(schema);
  if (!p) projectors.set(schema, (p = build(schema)));
  return p;
}

function build(schema: z.ZodType): Projector {
  const def = definition(schema);
  switch (def.type) {
    case 'object': {
      // A schema that keeps undeclared keys (catchall, loose) reads them too.
      if (def.catchall && definition(def.catchall).type !== 'never') return whole;
      const fields = Object.entries(def.shape ?? {}).map(([key, field]) => [key, projectorOf(field)] as const);
      return (value) => {
        if (!isPlainObject(value)) return value;
        const out: Record<string, unknown> = {};
        for (const [key, project] of fields) if (Object.hasOwn(value, key)) out[key] = project(value[key]);
        return out;
      };
    }
    case 'array': {
      const project = projectorOf(def.element!);
      return (value) => (Array.isArray(value) ? value.map(project) : value);
    }
    case 'record': {
      const project = projectorOf(def.valueType!);
      return (value) => (isPlainObject(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, project(v)])) : value);
    }
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'readonly':
    case 'nonoptional':
      return projectorOf(def.innerType!);
    case 'pipe':
      // What the pipe reads is what its first step reads (a preprocess step reads everything).
      return projectorOf(def.in!);
    default:
      return whole;
  }
}
