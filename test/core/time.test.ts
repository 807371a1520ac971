import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isoFromMs, msFromIso } from '../../src/core/time.js'
import { numRuns } from '../support/arbitraries.js'

describe('fast ISO-8601 conversions equal Date', () => {
  it('isoFromMs(ms) = new Date(ms).toISOString() for any epoch millisecond of years 0000-9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62167219200000, max: 253402300799999 }), (ms) => {
        expect(isoFromMs(ms)).toBe(new Date(ms).toISOString())
      }),
      { numRuns: numRuns() },
    )
  })
  it('msFromIso(text) = Date.parse(text), for ISO text with any fraction, and for other text', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 253402300799999 }), fc.nat(999_999), (ms, frac) => {
        const base = new Date(ms).toISOString().slice(0, 19)
        for (const t of [`${base}Z`, `${base}.${frac}Z`, `${base}.${String(frac % 1000).padStart(3, '0')}Z`]) expect(msFromIso(t)).toBe(Date.parse(t))
      }),
      { numRuns: numRuns() },
    )
    for (const t of [
      '2026-02-29T00:00:00Z',
      '2024-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-11-30T10:00:00+02:00',
      // 24 characters, not the canonical form: through Date
      '2025-09-24T18:00:00.12xZ',
      '2025-09-24 18:00:00.123Z',
      '+025-09-24T18:00:00.123Z',
      '2025-09-24T18:00:00,123Z',
      '2025-09-24T24:00:00.000Z',
      '2025-09-24T18:60:00.000Z',
      '2025-00-24T18:00:00.000Z',
      '2025-09-00T18:00:00.000Z',
      '2025-09-24T18:00:00.000z',
      '0000-01-01T00:00:00.000Z',
      'yesterday',
      '',
    ]) {
      const a = msFromIso(t)
      const b = Date.parse(t)
      expect(Number.isNaN(a) ? 'NaN' : a).toBe(Number.isNaN(b) ? 'NaN' : b)
    }
  })
})
