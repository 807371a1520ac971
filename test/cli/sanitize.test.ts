/** cli/sanitize: the one sanitiser for terminal text, and C1-safe JSON. */
import { describe, expect, it } from 'vitest'
import { escapeC1, forTerminal } from '../../src/cli/sanitize.js'
import { safeJson } from '../../src/cli/io.js'

describe('forTerminal', () => {
  it.each([
    ['\u001b]8;;https://evil\u0007link\u001b]8;;\u0007', '\\x1b]8;;https://evil\\x07link\\x1b]8;;\\x07'],
    ['\u001b]52;c;ZXZpbA==\u0007', '\\x1b]52;c;ZXZpbA==\\x07'],
    ['\u001b[2J\u001b[H', '\\x1b[2J\\x1b[H'],
    ['a\u009bb', 'a\\x9bb'],
    ['line\nbreak\r', 'line\\nbreak\\r'],
    ['abc\u202edcba', 'abc\\u202edcba'],
    ['tab\there', 'tab here'],
    ['plain — ünïcødé ✔', 'plain — ünïcødé ✔'],
  ])('%j → %j', (input, want) => {
    expect(forTerminal(input)).toBe(want)
  })
})

describe('escapeC1 / safeJson', () => {
  it('escapes C1 controls and line separators JSON.stringify leaves raw; the value is unchanged', () => {
    const v = { model: 'm\u009b31m\u2028x', ok: 'é' }
    const text = safeJson(v)
    expect(text).toBe('{"model":"m\\u009b31m\\u2028x","ok":"é"}')
    expect(JSON.parse(text)).toStrictEqual(v)
    expect(escapeC1('{"a":1}')).toBe('{"a":1}')
    // twice in a row (a global regex's lastIndex must not skip the second)
    expect(escapeC1('"\u0085"')).toBe('"\\u0085"')
    expect(escapeC1('"\u0085"')).toBe('"\\u0085"')
  })
})
