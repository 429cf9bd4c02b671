// Cron schedules as Karpenter reads disruption-budget schedules: robfig/cron v3's
// standard parser (minute hour day-of-month month day-of-week, or a descriptor such
// as @daily), always in UTC (Karpenter prefixes "TZ=UTC"). Parse errors carry the
// library's messages; nextCronTime reproduces its Schedule.Next search.

import { parseGoDuration, NANOS_PER_SECOND } from './go-duration.js';

export class CronError extends Error {}

interface Bounds {
  readonly min: number;
  readonly max: number;
  readonly names?: Readonly<Record<string, number>>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DAYS_OF_MONTH: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const DAYS_OF_WEEK: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

/** The values one field allows; `star` records a bare `*`/`?` (it changes how the two day fields combine). */
export interface CronField {
  readonly values: ReadonlySet<number>;
  readonly star: boolean;
}

export type CronSchedule =
  | {
      readonly kind: 'spec';
      /** Always 0 for the standard five-field format and descriptors. */
      readonly second: CronField;
      readonly minute: CronField;
      readonly hour: CronField;
      readonly dayOfMonth: CronField;
      readonly month: CronField;
      readonly dayOfWeek: CronField;
    }
  /** `@every <duration>`: fires every `delaySeconds` (at least 1, whole seconds). */
  | { readonly kind: 'every'; readonly delaySeconds: number };

function range(min: number, max: number, step: number): Set<number> {
  const out = new Set<number>();
  for (let i = min; i <= max; i += step) out.add(i);
  return out;
}

/** Go's strconv.Atoi (64-bit), then the library's rule that numbers are not negative. */
function parseNumber(expr: string): bigint {
  if (!/^[+-]?[0-9]+$/.test(expr)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = BigInt(expr);
  if (n > (1n << 63n) - 1n || n < -(1n << 63n)) throw new CronError(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: value out of range`);
  if (n < 0n) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseNumberOrName(expr: string, names: Bounds['names']): bigint {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? BigInt(named) : parseNumber(expr);
}

/** One comma-separated element: `*`, `n`, `a-b`, each optionally `/step`. */
function parseRange(expr: string, r: Bounds, into: Set<number>): boolean {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const single = lowAndHigh.length === 1;
  let start: bigint;
  let end: bigint;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = BigInt(r.min);
    end = BigInt(r.max);
    star = true;
  } else {
    start = parseNumberOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseNumberOrName(lowAndHigh[1]!, r.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1n;
  if (rangeAndStep.length === 2) {
    step = parseNumber(rangeAndStep[1]!);
    // "n/step" runs from n to the field's maximum.
    if (single) end = BigInt(r.max);
    if (step > 1n) star = false;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expr}`);
  }
  if (start < BigInt(r.min)) throw new CronError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > BigInt(r.max)) throw new CronError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0n) throw new CronError(`step of range should be a positive number: ${expr}`);
  // A step beyond the field's width selects only the start.
  for (const v of range(Number(start), Number(end), step > 64n ? 64 : Number(step))) into.add(v);
  return star;
}

function parseField(text: string, r: Bounds): CronField {
  const values = new Set<number>();
  let star = false;
  // Empty elements ("1,,2") are dropped, as strings.FieldsFunc drops them.
  for (const expr of text.split(',').filter((e) => e !== '')) if (parseRange(expr, r, values)) star = true;
  return { values, star };
}

const only = (v: number): CronField => ({ values: new Set([v]), star: false });
const every = (r: Bounds): CronField => ({ values: range(r.min, r.max, 1), star: true });

function descriptor(spec: string): CronSchedule {
  const at = (minute: CronField, hour: CronField, dayOfMonth: CronField, month: CronField, dayOfWeek: CronField): CronSchedule => ({
    kind: 'spec',
    second: only(0),
    minute,
    hour,
    dayOfMonth,
    month,
    dayOfWeek,
  });
  switch (spec) {
    case '@yearly':
    case '@annually':
      return at(only(0), only(0), only(1), only(1), every(DAYS_OF_WEEK));
    case '@monthly':
      return at(only(0), only(0), only(1), every(MONTHS), every(DAYS_OF_WEEK));
    case '@weekly':
      return at(only(0), only(0), every(DAYS_OF_MONTH), every(MONTHS), only(0));
    case '@daily':
    case '@midnight':
      return at(only(0), only(0), every(DAYS_OF_MONTH), every(MONTHS), every(DAYS_OF_WEEK));
    case '@hourly':
      return at(only(0), every(HOURS), every(DAYS_OF_MONTH), every(MONTHS), every(DAYS_OF_WEEK));
  }
  const EVERY = '@every ';
  if (spec.startsWith(EVERY)) {
    let nanos: bigint;
    try {
      nanos = parseGoDuration(spec.slice(EVERY.length));
    } catch (e) {
      throw new CronError(`failed to parse duration ${spec}: ${(e as Error).message}`);
    }
    // cron.Every: below one second becomes one second; otherwise whole seconds.
    const seconds = nanos < NANOS_PER_SECOND ? 1n : nanos / NANOS_PER_SECOND;
    return { kind: 'every', delaySeconds: Number(seconds) };
  }
  throw new CronError(`unrecognized descriptor: ${spec}`);
}

// Go's strings.Fields splits on Unicode white space; these are the ASCII ones and the common others.
const WHITESPACE = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

const TRIM = new RegExp(`^(?:${WHITESPACE.source})|(?:${WHITESPACE.source})$`, 'g');

/** Parses a schedule as Karpenter does (cron.ParseStandard of "TZ=UTC " + spec). */
export function parseCronSchedule(spec: string): CronSchedule {
  // The "TZ=UTC " prefix makes the library strip the spec's surrounding white space.
  const text = spec.replace(TRIM, '');
  if (text.startsWith('@')) return descriptor(text);
  const fields = text === '' ? [] : text.split(WHITESPACE);
  if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dayOfMonth, month, dayOfWeek] = fields as [string, string, string, string, string];
  return {
    kind: 'spec',
    second: only(0),
    minute: parseField(minute, MINUTES),
    hour: parseField(hour, HOURS),
    dayOfMonth: parseField(dayOfMonth, DAYS_OF_MONTH),
    month: parseField(month, MONTHS),
    dayOfWeek: parseField(dayOfWeek, DAYS_OF_WEEK),
  };
}

const DAY_MS = 86_400_000;

/** Both day fields must match when either is `*`; otherwise either one suffices (classic cron). */
function dayMatches(s: Extract<CronSchedule, { kind: 'spec' }>, date: Date): boolean {
  const dom = s.dayOfMonth.values.has(date.getUTCDate());
  const dow = s.dayOfWeek.values.has(date.getUTCDay());
  return s.dayOfMonth.star || s.dayOfWeek.star ? dom && dow : dom || dow;
}

/** The smallest value of `field` that is ≥ `from`, if any. */
function firstAtLeast(field: CronField, from: number, max: number): number | undefined {
  for (let v = from; v <= max; v++) if (field.values.has(v)) return v;
  return undefined;
}

/**
 * The first time the schedule fires strictly after `afterMs` (Unix milliseconds, UTC),
 * to the second; null when it does not fire within the five calendar years the
 * library searches (e.g. "0 0 30 2 *"), where the library returns Go's zero time.
 */
export function nextCronTime(schedule: CronSchedule, afterMs: number): number | null {
  // Start at the next whole second, as the library does.
  const startMs = Math.floor(afterMs / 1000) * 1000 + 1000;
  if (schedule.kind === 'every') return startMs - 1000 + schedule.delaySeconds * 1000;
  const start = new Date(startMs);
  const lastYear = start.getUTCFullYear() + 5;
  const startDay = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  for (let dayMs = startDay; new Date(dayMs).getUTCFullYear() <= lastYear; dayMs += DAY_MS) {
    const day = new Date(dayMs);
    if (!schedule.month.values.has(day.getUTCMonth() + 1) || !dayMatches(schedule, day)) continue;
    // On the first day only times from the start onwards count; later days start at midnight.
    const first = dayMs === startDay;
    const fromH = first ? start.getUTCHours() : 0;
    for (let h = firstAtLeast(schedule.hour, fromH, 23); h !== undefined; h = firstAtLeast(schedule.hour, h + 1, 23)) {
      const sameHour = first && h === fromH;
      const fromM = sameHour ? start.getUTCMinutes() : 0;
      for (let m = firstAtLeast(schedule.minute, fromM, 59); m !== undefined; m = firstAtLeast(schedule.minute, m + 1, 59)) {
        const fromS = sameHour && m === fromM ? start.getUTCSeconds() : 0;
        const s = firstAtLeast(schedule.second, fromS, 59);
        if (s !== undefined) return dayMs + h * 3_600_000 + m * 60_000 + s * 1000;
      }
    }
  }
  return null;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, f);
  }
  return f;
}

/** Whether the IANA time zone database (as the JavaScript runtime carries it) knows the zone. */
export function knownTimeZone(zone: string): boolean {
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

/** The zone's offset from UTC at `utcMs`, in ms (whole seconds). */
function zoneOffsetMs(zone: string, utcMs: number): number {
  const parts: Record<string, number> = {};
  for (const p of formatterFor(zone).formatToParts(new Date(utcMs))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts['year']!, parts['month']! - 1, parts['day']!, parts['hour']!, parts['minute']!, parts['second']!);
  return wall - Math.floor(utcMs / 1000) * 1000;
}

const HALF_DAY_MS = 43_200_000;

/**
 * nextCronTime with the schedule read in an IANA time zone (a CronJob's
 * spec.timeZone, "TZ=<zone>" for the library): the fields match the zone's wall
 * clock. Around a daylight-saving change, a wall time that occurs twice fires at
 * its first occurrence after `afterMs`, and one the change skips fires at the
 * instant the same clock reading maps to with the earlier offset (after the jump).
 */
export function nextCronTimeIn(schedule: CronSchedule, afterMs: number, zone?: string): number | null {
  if (zone === undefined || zone === 'UTC') return nextCronTime(schedule, afterMs);
  let fromWall = afterMs + zoneOffsetMs(zone, afterMs);
  for (let tries = 0; tries < 3; tries++) {
    const wall = nextCronTime(schedule, fromWall);
    if (wall === null) return null;
    // The offsets in force half a day either side cover both readings of a wall time near a change.
    const readings = [wall - zoneOffsetMs(zone, wall - HALF_DAY_MS), wall - zoneOffsetMs(zone, wall + HALF_DAY_MS)];
    const valid = readings.filter((t) => t + zoneOffsetMs(zone, t) === wall && t > afterMs);
    if (valid.length > 0) return Math.min(...valid);
    const skipped = readings[0]!;
    if (skipped > afterMs && skipped + zoneOffsetMs(zone, skipped) !== wall && !readings.some((t) => t + zoneOffsetMs(zone, t) === wall)) return skipped;
    fromWall = wall;
  }
  return null;
}
