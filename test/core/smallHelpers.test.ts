/**
 * The one copy of each small helper (issue 16 item 8): names echoed in diagnostics and results
 * (src/core/names.ts), USD rounding (src/core/usd.ts), digit grouping (src/core/digits.ts) and the object check
 * (src/core/values.ts) — and that the formats' and the fold's diagnostics go through them.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { groupDigits } from '../../src/core/digits.js'
import { foldRuns } from '../../src/core/fold.js'
import { MAX_NAME_CHARS, quoteName, safeName } from '../../src/core/names.js'
import { roundUsd } from '../../src/core/usd.js'
import { isObject } from '../../src/core/values.js'
import { foldRecords } from '../../src/formats/records.js'

/** No lone surrogate (String#isWellFormed, which this project's `lib` does not declare). */
const wellFormed = (s: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)

describe('safeName', () => {
  it('keeps a name of at most 60 characters as it is, cuts a longer one to 57 and "..."', () => {
    expect(safeName('assistant')).toBe('assistant')
    expect(safeName('x'.repeat(60))).toBe('x'.repeat(60))
    expect(safeName('x'.repeat(61))).toBe(`${'x'.repeat(57)}...`)
    expect(safeName('x'.repeat(10_000)).length).toBe(MAX_NAME_CHARS)
  })

  it('replaces C0, DEL and C1 control characters with "?"', () => {
    expect(safeName('tool\u001b[31mred\u0007')).toBe('tool?[31mred?')
    expect(safeName('a\u007fb\u0085c\u009bd')).toBe('a?b?c?d')
    expect(safeName('line\nbreak\ttab\r')).toBe('line?break?tab?')
    expect(safeName('é ü 中 🙂')).toBe('é ü 中 🙂')
  })

  it('never splits a surrogate pair when it cuts', () => {
    const name = `${'x'.repeat(56)}🙂${'y'.repeat(10)}`
    expect(safeName(name)).toBe(`${'x'.repeat(56)}...`)
    expect(safeName(`${'x'.repeat(55)}🙂${'y'.repeat(10)}`)).toBe(`${'x'.repeat(55)}🙂...`)
  })

  it('any string: at most 60 characters, no control character, no lone surrogate made by the cut', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const out = safeName(s)
        expect(out.length).toBeLessThanOrEqual(MAX_NAME_CHARS)
        // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters that must not be there
        expect(out).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
        if (s.length > MAX_NAME_CHARS && wellFormed(s)) expect(wellFormed(out)).toBe(true)
      }),
    )
  })

  it('quoteName puts it in double quotes', () => {
    expect(quoteName('odd\u0000type')).toBe('"odd?type"')
  })

  it('the fold and the formats quote an unknown type the same way, control characters replaced', () => {
    const type = `evil\u001b]0;title\u0007${'z'.repeat(80)}`
    const native = foldRuns([
      { type: 'turn/start', sessionId: 's', data: { turn: 1 } },
      { type, sessionId: 's', data: {} },
      { type: 'turn/end', sessionId: 's', data: { turn: 1, reason: { kind: 'completed' } } },
      { type: 'session/status', sessionId: 's', data: { status: 'idle' } },
    ])
    expect(native._tag).toBe('Right')
    const nativeMessages = native._tag === 'Right' ? native.right.flatMap((r) => r.diagnostics.map((d) => d.message)) : []
    expect(nativeMessages).toStrictEqual([`ignored an event of unknown type ${quoteName(type)}`])
    const claude = foldRecords(
      [
        { type: 'system', subtype: 'init', session_id: 'c1', model: 'claude-sonnet-4' },
        { type, session_id: 'c1' },
        { type: 'result', subtype: 'success', is_error: false, session_id: 'c1', result: 'ok' },
      ],
      { format: 'claude-code' },
    )
    const claudeMessages = claude._tag === 'Right' ? claude.right.flatMap((r) => r.diagnostics.map((d) => d.message)) : []
    expect(claudeMessages).toStrictEqual([`ignored a record of unknown type ${quoteName(type)}`])
  })
})

describe('roundUsd', () => {
  it('rounds float noise away to 12 decimals, printing as the decimal figure', () => {
    expect(roundUsd(0.1 + 0.2)).toBe(0.3)
    expect(String(roundUsd(0.33115095000000005))).toBe('0.33115095')
    expect(roundUsd(0.0455704)).toBe(0.0455704)
    expect(roundUsd(1.0000000000004)).toBe(1)
    expect(roundUsd(1.0000000000006)).toBe(1.000000000001)
  })

  it('takes fewer decimals for a report (stats: a millionth of a USD)', () => {
    expect(roundUsd(1.23456789, 6)).toBe(1.234568)
    expect(roundUsd(0.0000004, 6)).toBe(0)
  })

  it('keeps a figure too large to round, NaN and infinities as they are', () => {
    expect(roundUsd(1e16 + 0.5)).toBe(1e16 + 0.5)
    expect(roundUsd(Number.NaN)).toBeNaN()
    expect(roundUsd(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY)
  })
})

describe('groupDigits', () => {
  it('writes integers as toLocaleString("en-US") does, without Intl', () => {
    expect(groupDigits(1_000_000)).toBe('1,000,000')
    expect(groupDigits(16_777_216)).toBe('16,777,216')
    expect(groupDigits(999)).toBe('999')
    expect(groupDigits(-1234567)).toBe('-1,234,567')
    fc.assert(fc.property(fc.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), (n) => groupDigits(n) === n.toLocaleString('en-US')))
  })
})

describe('isObject', () => {
  it('is true for plain objects only', () => {
    expect([{}, { a: 1 }, Object.create(null)].map(isObject)).toStrictEqual([true, true, true])
    expect([null, [], 'x', 1, undefined, true].map(isObject)).toStrictEqual([false, false, false, false, false, false])
  })
})
