/**
 * Fast conversions between epoch milliseconds and ISO-8601 UTC text. `Date#toISOString` and `Date.parse` cost
 * one to two microseconds each on Node 20 (more than the rest of a run's bookkeeping), so the common forms are
 * handled with integer arithmetic (Howard Hinnant's civil-date algorithms) and anything else falls back to
 * `Date`. Results are identical to `Date`'s for every value they accept.
 * @module
 */

const pad2 = (n: number): string => (n < 10 ? `0${n}` : `${n}`)
const pad3 = (n: number): string => (n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`)

/** Days since 1970-01-01 of a proleptic Gregorian date. @internal */
const daysFromCivil = (y: number, m: number, d: number): number => {
  const yy = m <= 2 ? y - 1 : y
  const era = Math.floor(yy / 400)
  const yoe = yy - era * 400
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

/**
 * `new Date(ms).toISOString()`, for epoch milliseconds of years 0000–9999 (outside that range, and for
 * non-integers, `Date` itself is used).
 * @since 0.1.0
 */
export const isoFromMs = (ms: number): string => {
  if (!Number.isInteger(ms) || ms < -62167219200000 || ms > 253402300799999) return new Date(ms).toISOString()
  const days = Math.floor(ms / 86400000)
  let rest = ms - days * 86400000
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0)
  const h = Math.floor(rest / 3600000)
  rest -= h * 3600000
  const mi = Math.floor(rest / 60000)
  rest -= mi * 60000
  const s = Math.floor(rest / 1000)
  const msec = rest - s * 1000
  const yyyy = y < 10 ? `000${y}` : y < 100 ? `00${y}` : y < 1000 ? `0${y}` : `${y}`
  return `${yyyy}-${pad2(m)}-${pad2(d)}T${pad2(h)}:${pad2(mi)}:${pad2(s)}.${pad3(msec)}Z`
}

/** The decimal digit at `i` of `t`, or −1000 (making any sum of digits negative) for another character. */
const digit = (t: string, i: number): number => {
  const c = t.charCodeAt(i) - 48
  return c >= 0 && c <= 9 ? c : -1000
}
const digits2 = (t: string, i: number): number => digit(t, i) * 10 + digit(t, i + 1)
const digits3 = (t: string, i: number): number => digit(t, i) * 100 + digit(t, i + 1) * 10 + digit(t, i + 2)
const digits4 = (t: string, i: number): number => digit(t, i) * 1000 + digit(t, i + 1) * 100 + digit(t, i + 2) * 10 + digit(t, i + 3)

const ISO_UTC = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/

/**
 * `Date.parse(text)`: `YYYY-MM-DDTHH:MM:SS[.fraction]Z` with integer arithmetic, any other text through `Date`.
 * Returns `NaN` for text that is not a date.
 * @since 0.1.0
 */
export const msFromIso = (text: string): number => {
  // the form the logs write (`2025-09-24T18:00:00.123Z`, 24 characters), read digit by digit; any other through the regex
  if (text.length === 24 && text.charCodeAt(23) === 90 && text.charCodeAt(19) === 46) {
    const y = digits4(text, 0)
    const mo = digits2(text, 5)
    const d = digits2(text, 8)
    const h = digits2(text, 11)
    const mi = digits2(text, 14)
    const sec = digits2(text, 17)
    const frac = digits3(text, 20)
    if (
      y >= 0 &&
      mo >= 1 &&
      mo <= 12 &&
      d >= 1 &&
      d <= 28 &&
      h >= 0 &&
      h <= 23 &&
      mi >= 0 &&
      mi <= 59 &&
      sec >= 0 &&
      sec <= 59 &&
      frac >= 0 &&
      text.charCodeAt(4) === 45 &&
      text.charCodeAt(7) === 45 &&
      text.charCodeAt(10) === 84 &&
      text.charCodeAt(13) === 58 &&
      text.charCodeAt(16) === 58
    )
      return daysFromCivil(y, mo, d) * 86400000 + h * 3600000 + mi * 60000 + sec * 1000 + frac
  }
  const m = ISO_UTC.exec(text)
  if (m === null) return Date.parse(text)
  const mo = Number(m[2])
  const d = Number(m[3])
  const h = Number(m[4])
  const mi = Number(m[5])
  const s = Number(m[6])
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return Date.parse(text)
  const frac = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000 + 1e-9)
  const y = Number(m[1])
  // a day past the month's end (2026-02-31) is for Date to judge
  if (d > 28 && d > monthLength(y, mo)) return Date.parse(text)
  return daysFromCivil(y, mo, d) * 86400000 + h * 3600000 + mi * 60000 + s * 1000 + frac
}

const monthLength = (y: number, m: number): number =>
  m === 2 ? (y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31
