/**
 * Site-timezone date handling for the REST layer: formatting instants as WordPress's "YYYY-MM-DDTHH:MM:SS"
 * (site-local `date`, UTC `date_gmt`) and parsing the REST date-time inputs. Pure: every instant comes in as
 * epoch milliseconds; nothing here reads the clock.
 *
 * Zones are IANA names ("Europe/Berlin"; default "UTC") or fixed offsets "+05:30" / "-03:00" (a site that
 * has a manual UTC offset instead of a timezone_string).
 *
 * Parsing follows WordPress 6.1 (`rest_parse_date` + PHP `strtotime`), including PHP's leniency, verified
 * against the reference install: out-of-range days roll over ("2021-02-30" → 2021-03-02, day "00" → the last
 * day of the previous month, month "00" → December of the previous year), hour "24" and second "60" roll
 * over, while month > 12, day > 31, hour > 24, minute > 59 and second > 60 are rejected. Fractions are
 * accepted and dropped (WordPress stores whole seconds).
 *
 * Local wall-clock times that do not exist or exist twice (DST) are resolved like PHP's DateTime does:
 *  - in a gap (spring forward) the offset in force before the change is used, so "02:30" on a Berlin
 *    spring-forward day is 01:30 UTC and reads back as 03:30 local;
 *  - in an overlap (fall back) the offset in force at the wall-clock time read as if it were UTC wins:
 *    zones east of or at UTC get the second occurrence (standard time, Berlin "02:30" → 01:30 UTC),
 *    zones west of UTC the first (daylight time, New York "01:30" → 05:30 UTC).
 */
import { CacheBudget } from '../caches/budget';
import type { CacheSize } from '../caches/budget';

const SECOND = 1000;
const HOUR = 3_600_000;

/** Fixed-offset zone spelled "+HH:MM" / "-HH:MM": offset in ms, or null when the zone is not one. */
function fixedOffset(zone: string): number | null {
  if (zone === 'UTC' || zone === '') return 0;
  const m = /^([+-])(\d{2}):(\d{2})$/.exec(zone);
  if (!m) return null;
  const ms = (Number(m[2]) * 60 + Number(m[3])) * 60_000;
  return m[1] === '-' ? -ms : ms;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  return f;
}

// `format()` is several times faster than `formatToParts()`; its en-US shape ("M/D/YYYY, HH:MM:SS") is checked
// once at start-up and the slower, shape-independent path is used if this ICU formats differently.
const NUMBERS = /(\d+)\D+(\d+)\D+(\d+)\D+(\d+)\D+(\d+)\D+(\d+)/;
const FAST_FORMAT_OK = (() => {
  try {
    const probe = Date.UTC(2021, 6, 4, 13, 5, 9);
    const m = NUMBERS.exec(formatterFor('UTC').format(probe));
    return !!m && m[1] === '7' && m[2] === '4' && m[3] === '2021' && m[4] === '13' && m[5] === '05' && m[6] === '09';
  } catch {
    return false;
  }
})();

// ICU cannot express years before 1 CE without an era; every zone is on its constant local mean time then,
// so offsets of earlier instants are taken at this instant.
const EARLIEST_OFFSET_PROBE = -62_135_596_800_000 + 2 * 86_400_000; // 0001-01-03T00:00:00Z

// Offsets per zone and 6-hour slice of time, kept only for slices whose two ends agree (no zone changes its
// offset twice within 6 hours), so rendering the same items again needs no Intl call at all.
const SLICE = 6 * HOUR;
const sliceOffsets = new Map<string, Map<number, number>>();
/** Slices kept per zone: the cache budget's (src/caches/budget.ts), process-wide, set by boundTimezoneOffsets. */
let slicesKept = CacheBudget.defaults('memory').entries('timezoneOffsets');

/** Sets how many slices are kept per zone (the site's cache budget; 0 keeps none). Process-wide, as the cache is. */
export function boundTimezoneOffsets(entries: number): void {
  slicesKept = entries;
  for (const slices of sliceOffsets.values()) if (slices.size > entries) slices.clear();
}

/** The slices kept now, over every zone, and the zones they are of. */
export function timezoneOffsetsHeld(): CacheSize {
  let entries = 0;
  for (const slices of sliceOffsets.values()) entries += slices.size;
  return { entries, instances: sliceOffsets.size };
}

/** The zone's UTC offset at instant `ms`, in ms (local = UTC + offset). Whole seconds. */
function offsetAt(zone: string, ms: number): number {
  const fixed = fixedOffset(zone);
  if (fixed !== null) return fixed;
  const t = Math.floor(ms / SECOND) * SECOND;
  let slices = sliceOffsets.get(zone);
  if (!slices) sliceOffsets.set(zone, (slices = new Map()));
  const slice = Math.floor(t / SLICE);
  const cached = slices.get(slice);
  if (cached !== undefined) return cached;
  const start = slice * SLICE;
  const atStart = intlOffset(zone, start);
  const atEnd = intlOffset(zone, start + SLICE - SECOND);
  if (atStart !== atEnd) return t === start ? atStart : intlOffset(zone, t);
  if (slices.size >= slicesKept) {
    slices.clear();
    if (slicesKept === 0) return atStart;
  }
  slices.set(slice, atStart);
  return atStart;
}

/** offsetAt without the cache: one Intl formatting of whole-second instant `t`. */
function intlOffset(zone: string, instant: number): number {
  const t = Math.max(instant, EARLIEST_OFFSET_PROBE);
  const f = formatterFor(zone);
  let y: number, mo: number, d: number, h: number, mi: number, s: number;
  const m = FAST_FORMAT_OK ? NUMBERS.exec(f.format(t)) : null;
  if (m) {
    mo = +m[1]!;
    d = +m[2]!;
    y = +m[3]!;
    h = +m[4]!;
    mi = +m[5]!;
    s = +m[6]!;
  } else {
    const parts: Record<string, string> = {};
    for (const p of f.formatToParts(t)) parts[p.type] = p.value;
    y = +parts.year!;
    mo = +parts.month!;
    d = +parts.day!;
    h = +parts.hour!;
    mi = +parts.minute!;
    s = +parts.second!;
  }
  return utcFields(y, mo, d, h % 24, mi, s) - t;
}

/** Epoch ms of the given UTC fields; out-of-range fields roll over; years 0–99 are taken literally. */
function utcFields(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

const pad2 = (n: number) => (n < 10 ? '0' : '') + n;

function formatYear(y: number): string {
  return y < 0 ? '-' + String(-y).padStart(4, '0') : String(y).padStart(4, '0');
}

/** "YYYY-MM-DDTHH:MM:SS" of instant `ms` in UTC (the REST `date_gmt` form). Sub-second parts are dropped. */
export function formatGmt(ms: number): string {
  const d = new Date(Math.floor(ms / SECOND) * SECOND);
  return `${formatYear(d.getUTCFullYear())}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}`;
}

/** "YYYY-MM-DDTHH:MM:SS" of instant `ms` as wall-clock time in `zone` (the REST `date` form). */
export function formatLocal(ms: number, zone = 'UTC'): string {
  return formatGmt(ms + offsetAt(zone, ms));
}

/**
 * Whether a "YYYY-MM-DDTHH:MM:SS" wall-clock date lies before year 1 (a written "0000-00-00" rolls back to
 * "-0001-11-30"). WordPress refuses to store such a post date (400 `invalid_date`).
 */
export function isBeforeYearOne(local: string): boolean {
  return local.startsWith('-') || local.startsWith('0000');
}

/** `formatLocal` with a space instead of "T", the MySQL DATETIME form WordPress keeps in post_date. */
export function formatLocalMysql(ms: number, zone = 'UTC'): string {
  const s = formatLocal(ms, zone);
  return s.slice(0, 10) + ' ' + s.slice(11);
}

/**
 * The instant at which the wall-clock time `wallMs` (local fields encoded as if they were UTC) occurs in
 * `zone`, with DST gaps and overlaps resolved as described at the top of this file.
 */
export function localToInstant(wallMs: number, zone = 'UTC'): number {
  const fixed = fixedOffset(zone);
  if (fixed !== null) return wallMs - fixed;
  // Real offsets lie within ±16 h, so the instant is inside this window; assume at most one change in it.
  const before = offsetAt(zone, wallMs - 16 * HOUR);
  const after = offsetAt(zone, wallMs + 16 * HOUR);
  if (before === after) return wallMs - before;
  const beforeFits = offsetAt(zone, wallMs - before) === before;
  const afterFits = offsetAt(zone, wallMs - after) === after;
  if (beforeFits && afterFits) {
    // Overlap: the offset at the wall time read as UTC picks the occurrence (PHP DateTime's choice).
    const asUtc = offsetAt(zone, wallMs);
    return wallMs - (asUtc === after ? after : before);
  }
  if (afterFits) return wallMs - after;
  // Fits the earlier offset only, or falls into a gap: the earlier offset pushes a gap time forward.
  return wallMs - before;
}

// rest_parse_date's accepted shape; PCRE's "$" also accepts one trailing newline.
const REST_DATE = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|[+-]\d{2}(?::\d{2})?)?\n?$/;

interface ParsedRestDate {
  /** The written fields, rolled over, encoded as if UTC. */
  wallMs: number;
  /** Offset written in the value, in ms, or null when none was given. */
  offset: number | null;
}

function parseFields(value: string): ParsedRestDate | null {
  const m = REST_DATE.exec(value);
  if (!m) return null;
  const [, y, mo, d, h, mi, s, tz] = m;
  // PHP strtotime's field ranges (wider than the calendar; the excess rolls over).
  if (+mo! > 12 || +d! > 31 || +h! > 24 || +mi! > 59 || +s! > 60) return null;
  let offset: number | null = null;
  if (tz === 'Z') offset = 0;
  else if (tz) {
    const oh = +tz.slice(1, 3);
    const om = tz.length > 3 ? +tz.slice(4, 6) : 0;
    // "+HH:MM" allows hours up to 24 and minutes up to 59; a bare "+HH" takes any two digits.
    if (tz.length > 3 && (oh > 24 || om > 59)) return null;
    offset = (tz[0] === '-' ? -1 : 1) * (oh * HOUR + om * 60_000);
  }
  return { wallMs: utcFields(+y!, +mo!, +d!, +h!, +mi!, +s!), offset };
}

/**
 * Parses a REST `date` value: an explicit "Z"/"±HH(:MM)" offset is honoured, otherwise the value is wall-clock
 * time in `zone`. Returns epoch ms (whole seconds), or null when WordPress would reject it (400
 * rest_invalid_param), e.g. "2010-60-01T02:00:00Z", "2021-01-01T10:00", a lowercase "z".
 */
export function parseRestDate(value: string, zone = 'UTC'): number | null {
  const p = parseFields(value);
  if (!p) return null;
  return p.offset !== null ? p.wallMs - p.offset : localToInstant(p.wallMs, zone);
}

/** Parses a REST `date_gmt` value: like parseRestDate, but a value without an offset is UTC. */
export function parseRestDateGmt(value: string): number | null {
  const p = parseFields(value);
  if (!p) return null;
  return p.wallMs - (p.offset ?? 0);
}

/** Whether `value` is a date-time the REST API accepts (the schema's `format: date-time` check). */
export function isRestDate(value: string): boolean {
  return parseFields(value) !== null;
}

/**
 * The zone's offset from UTC in hours at instant `atMs`, rounded to 2 decimals like WordPress's `gmt_offset`
 * option (Europe/Berlin: 1 or 2, Asia/Kolkata: 5.5, Asia/Kathmandu: 5.75).
 */
export function gmtOffsetHours(zone: string, atMs: number): number {
  const hours = offsetAt(zone, atMs) / HOUR;
  const r = Math.round(Math.abs(hours) * 100) / 100; // PHP round(): halves away from zero
  return hours < 0 ? -r : r === 0 ? 0 : r;
}

// IANA names as spelled in the tz database: segments start with an uppercase letter or a digit.
const ZONE_NAME = /^[A-Z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9][A-Za-z0-9_+-]*)*$/;

/**
 * Whether `zone` is an IANA time zone name (including aliases such as "Asia/Calcutta", and "UTC") known to
 * this runtime. Case must match the tz database ("europe/berlin" is refused); offset strings are refused.
 */
export function isValidTimeZone(zone: string): boolean {
  if (typeof zone !== 'string' || !ZONE_NAME.test(zone)) return false;
  if (formatters.has(zone)) return true;
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}
