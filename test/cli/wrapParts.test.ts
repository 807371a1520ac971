/**
 * `wrapParts`, how the CLI breaks a list of parts (`a · b · c`) to a width: between parts, and a part too wide for
 * a line of its own at its spaces (a fresh-user walkthrough at 60 columns read the legend under `stats --by model`
 * as `…with that model'…`, and `(its runs, tokens and co…` under a breakdown: cut, where they could wrap).
 */
import { describe, expect, it } from 'vitest'
import { textWidth, wrapParts } from '../../src/cli/stats/table.js'

describe('wrapParts', () => {
  it('breaks between parts, continuations after the indent', () => {
    expect(wrapParts(['one two', 'three', 'four five'], 15, '  ')).toBe('one two · three\n  four five')
    expect(wrapParts(['one', 'two'], undefined)).toBe('one · two')
  })

  it('breaks a part too wide for a line at its spaces, never cutting its words', () => {
    const legend = "a run of several models counts under each, with that model's tokens and cost"
    const out = wrapParts([legend, '~ estimated'], 60)
    expect(out).toBe("a run of several models counts under each, with that model's\ntokens and cost · ~ estimated")
    expect(out.split('\n').every((l) => textWidth(l) <= 60)).toBe(true)
  })

  it('keeps the lines of a part wrapped already; the next part follows its last line (stats at COLUMNS=20 wrote lines of one space)', () => {
    const cost = wrapParts(['cost ~$2.54 estimated (17 runs)'], 20, '  ', ' ')
    expect(cost).toBe('cost ~$2.54\n  estimated (17\n  runs)')
    const out = wrapParts([cost, '1 run unknown'], 20, '  ')
    expect(out).toBe('cost ~$2.54\n  estimated (17\n  runs)\n  1 run unknown')
    expect(out.split('\n').every((l) => l.trim() !== '' && textWidth(l) <= 20)).toBe(true)
    expect(wrapParts([cost, 'x'], 20, '  ')).toBe('cost ~$2.54\n  estimated (17\n  runs) · x')
  })

  it('cuts only a word wider than a line', () => {
    expect(wrapParts(['x', 'abcdefghijklmnop'], 10)).toBe('x\nabcdefghi…')
  })
})
