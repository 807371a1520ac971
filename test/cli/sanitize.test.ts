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

  it('escapes the bidi controls and DEL too, which reorder or hide what a terminal shows (the hostile-input trial found them raw)', () => {
    const v = { model: 'safe\u202egnp.exe', a: '\u200e\u200f\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u007f', ok: 'é — ✔ \u2027\u2030' }
    const text = safeJson(v)
    expect(text).toBe(
      '{"model":"safe\\u202egnp.exe","a":"\\u200e\\u200f\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u007f","ok":"é — ✔ \u2027\u2030"}',
    )
    expect(JSON.parse(text)).toStrictEqual(v)
    // the same set forTerminal escapes, beyond C0 (which JSON escapes itself)
    for (let c = 0x7f; c <= 0x206f; c++) {
      const ch = String.fromCharCode(c)
      expect(escapeC1(JSON.stringify(ch)) !== JSON.stringify(ch)).toBe(forTerminal(ch) !== ch)
    }
  })
})
