/**
 * Calendar arithmetic for `stats`: a run's local time in an IANA time zone (for `--by day|week|month` and
 * `--since`/`--until`), ISO weeks, and the bounds `--since`/`--until` take.
 *
 * Local times are written `YYYY-MM-DDTHH:mm:ss.sss` (no zone), so a date bound is a prefix: `--since 2025-09`
 * keeps every run whose local time is at or after `2025-09`, `--until 2025-09-24` every run whose local time,
 * cut to the bound's length, is at or before `2025-09-24` (the whole day included).
 * @module
 */

const formatters = new Map<string, Intl.DateTimeFormat>()

const formatterOf = (zone: string): Intl.DateTimeFormat => {
  let f = formatters.get(zone)
  if (f === undefined) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(zone, f)
  }
  return f
}

/**
 * The IANA name of `zone` as `Intl` spells it (`utc` → `UTC`), or `undefined` when it is not a time zone.
 * @example checkTimeZone('Asia/Tokyo') // => 'Asia/Tokyo'
 * @since 0.2.0
 */
export const checkTimeZone = (zone: string): string | undefined => {
  if (zone.trim() === '') return undefined
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone
  } catch {
    return undefined
  }
}

/**
 * The machine's time zone: `TZ` when it names one (`UTC` when it is set but empty, as POSIX reads it), else
 * what `Intl` resolves when that is a zone `Intl` itself accepts, else `UTC`. Node resolves an empty `TZ` as
 * `Etc/Unknown`, a name its own formatters refuse.
 * @since 0.2.0
 */
export const machineTimeZone = (env: Readonly<Record<string, string | undefined>>): string => {
  const tz = env['TZ']
  if (tz !== undefined) {
    const name = tz.replace(/^:/, '')
    if (name.trim() === '') return 'UTC'
    const fromEnv = checkTimeZone(name)
    if (fromEnv !== undefined) return fromEnv
  }
  return checkTimeZone(Intl.DateTimeFormat().resolvedOptions().timeZone ?? '') ?? 'UTC'
}

/**
 * The local time of an instant (epoch ms) in `zone`, as `YYYY-MM-DDTHH:mm:ss.sss`.
 * @example localTime(Date.parse('2025-09-24T23:30:00Z'), 'Asia/Tokyo') // => '2025-09-25T08:30:00.000'
 * @since 0.2.0
 */
export const localTime = (ms: number, zone: string): string => {
  const parts = formatterOf(zone).formatToParts(new Date(ms))
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '00'
  const year = get('year').padStart(4, '0')
  const frac = String(((ms % 1000) + 1000) % 1000).padStart(3, '0')
  return `${year}-${get('month')}-${get('day')}T${get('hour')}:${get('minute')}:${get('second')}.${frac}`
}

/**
 * The Monday that starts the ISO week of a `YYYY-MM-DD` date, as `YYYY-MM-DD`.
 * @example weekStart('2025-09-28') // => '2025-09-22'
 * @since 0.2.0
 */
export const weekStart = (date: string): string => {
  const t = Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)))
  const dow = (new Date(t).getUTCDay() + 6) % 7 // Monday 0 … Sunday 6
  return new Date(t - dow * 86_400_000).toISOString().slice(0, 10)
}

/** A `--since` / `--until` bound: an instant (a time with `Z` or an offset) or a local-time prefix. @since 0.2.0 */
export type TimeBound =
  | { readonly kind: 'instant'; readonly ms: number; readonly text: string }
  | { readonly kind: 'local'; readonly prefix: string; readonly text: string }

const LOCAL = /^\d{4}(?:-\d{2}(?:-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)?)?)?$/
const ZONED = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i

/**
 * Parses a `--since` / `--until` value: `YYYY`, `YYYY-MM`, `YYYY-MM-DD` (or `YYYYMMDD`, as ccusage takes it),
 * `YYYY-MM-DDTHH:mm[:ss]` (local time in the `--timezone`), or an ISO time with `Z` or an offset. `undefined` for
 * anything else (including impossible dates such as `2025-02-30`).
 * @example parseBound('20250924') // => { kind: 'local', prefix: '2025-09-24', text: '20250924' }
 * @since 0.2.0
 */
export const parseBound = (text: string): TimeBound | undefined => {
  const s = text.trim()
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(s)
  const local = compact !== null ? `${compact[1]}-${compact[2]}-${compact[3]}` : s.replace(/t/, 'T')
  if (LOCAL.test(local)) {
    const full = `${local}${'0000-01-01T00:00:00.000'.slice(local.length)}`
    const ms = Date.parse(`${full}Z`)
    // an impossible date (2025-02-30) parses to another day, or not at all
    if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== full.slice(0, 10)) return undefined
    return { kind: 'local', prefix: local, text }
  }
  if (ZONED.test(s)) {
    const ms = Date.parse(s)
    return Number.isFinite(ms) ? { kind: 'instant', ms, text } : undefined
  }
  return undefined
}

/** `true` when a run at `ms` (local time `local`) is at or after the bound. @since 0.2.0 */
export const afterBound = (b: TimeBound, ms: number, local: string): boolean => (b.kind === 'instant' ? ms >= b.ms : local >= b.prefix)

/** `true` when a run at `ms` (local time `local`) is at or before the bound (a date bound includes its whole day). @since 0.2.0 */
export const beforeBound = (b: TimeBound, ms: number, local: string): boolean =>
  b.kind === 'instant' ? ms <= b.ms : local.slice(0, b.prefix.length) <= b.prefix

/**
 * `true` when no time is both at or after `since` and at or before `until` in `zone` (`--since` later than
 * `--until`): a usage error rather than a report of 0 runs.
 * @example rangeIsEmpty(parseBound('20251001')!, parseBound('20250901')!, 'UTC') // => true
 * @since 0.2.0
 */
export const rangeIsEmpty = (since: TimeBound, until: TimeBound, zone: string): boolean => {
  if (since.kind === 'instant' && until.kind === 'instant') return since.ms > until.ms
  // in local time: the earliest time since allows, against the latest until allows (a prefix covers its whole span)
  const from = since.kind === 'instant' ? localTime(since.ms, zone) : since.prefix
  if (until.kind === 'instant') return from > localTime(until.ms, zone)
  return from.slice(0, until.prefix.length) > until.prefix
}
