/**
 * The skim reader (src/formats/skim/skim.ts) against `JSON.parse`: for any JSON text, the skim either declines or keeps
 * exactly the fields `JSON.parse` gives (the same reduction applied to the parsed value), and it declines every
 * line `JSON.parse` rejects. Properties over fast-check JSON values written with random whitespace and key order,
 * and over mutated bytes; examples for escapes, surrogates, duplicate keys, numbers and invalid input.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compileSkim, DECLINE, reduceParsed, skimLine } from '../../src/formats/skim/skim.js'
import { numRuns } from '../support/arbitraries.js'
import { Rng } from '../reliability/support/mutate.js'

const SPEC = compileSkim({
  type: true,
  a: true,
  b: { a: true, c: true, d: { x: true } },
  c: { when: (o) => o['a'] === 1, keep: true },
  d: { when: (o) => typeof o['type'] === 'string', keep: { a: true } },
})

const runs = numRuns()

/** The skim's answer, or the full parse's reduction, for one text; both sides as the test compares them. */
const both = (text: string | Buffer): { skim: unknown; full: unknown; parses: boolean } => {
  const buf = typeof text === 'string' ? Buffer.from(text) : text
  const skim = skimLine(buf, SPEC)
  let parsed: unknown
  let parses = true
  try {
    parsed = JSON.parse(buf.toString('utf8'))
  } catch {
    parses = false
  }
  return { skim, full: parses ? reduceParsed(parsed, SPEC) : undefined, parses }
}

const expectAgrees = (text: string | Buffer): boolean => {
  const { skim, full, parses } = both(text)
  if (!parses || full === undefined) {
    // JSON.parse rejects it, or it is no object: the skim must decline
    expect(skim).toBe(DECLINE)
    return false
  }
  if (skim === DECLINE) return false
  expect(skim).toStrictEqual(full)
  return true
}

/** JSON text of `v` with random whitespace between tokens and keys in a random order (seeded by `rnd`). */
const serialise = (v: unknown, rnd: () => number, ws: ReadonlyArray<string>): string => {
  const w = (): string => (rnd() < 0.5 ? '' : (ws[Math.floor(rnd() * ws.length)] as string).repeat(1 + Math.floor(rnd() * 2)))
  if (Array.isArray(v)) return `[${w()}${v.map((x) => `${w()}${serialise(x, rnd, ws)}${w()}`).join(',')}${w()}]`
  if (typeof v === 'object' && v !== null) {
    const keys = Object.keys(v)
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1))
      ;[keys[i], keys[j]] = [keys[j] as string, keys[i] as string]
    }
    return `{${w()}${keys.map((k) => `${JSON.stringify(k)}${w()}:${w()}${serialise((v as Record<string, unknown>)[k], rnd, ws)}${w()}`).join(',')}${w()}}`
  }
  return JSON.stringify(v) ?? 'null'
}

/** A seeded source of numbers in [0, 1) (the reliability suite's mulberry32). */
const rndOf = (seed: number): (() => number) => {
  const rng = new Rng(seed)
  return () => rng.next()
}

/** Objects whose keys often are the spec's, nested, with any JSON value below. */
const keyArb = fc.oneof(fc.constantFrom('type', 'a', 'b', 'c', 'd', 'x', 'é', '__proto__', 'ty\\u0070e'), fc.string({ maxLength: 4 }))
const { node: nodeArb } = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), tie('object'), fc.array(tie('node'), { maxLength: 3 })),
  object: fc.dictionary(keyArb, tie('node'), { maxKeys: 6 }),
}))
const recordArb = fc.dictionary(keyArb, nodeArb, { maxKeys: 8 })

describe('skimLine ≡ JSON.parse for the fields it keeps', () => {
  it('any JSON value, random whitespace and key order: declines or keeps exactly what JSON.parse gives', () => {
    let answered = 0
    fc.assert(
      fc.property(fc.oneof(recordArb, fc.jsonValue()), fc.integer(), (v, seed) => {
        if (expectAgrees(serialise(v, rndOf(seed), [' ', '\t', '\r', '\n']))) answered++
      }),
      { numRuns: runs },
    )
    // most generated records are objects the skim answers (the property is not vacuous)
    expect(answered).toBeGreaterThan(runs / 4)
  })

  it('mutated bytes (cut, spliced, escapes, control characters, invalid UTF-8): declines whatever JSON.parse rejects', () => {
    const pieces = [
      '\\',
      '\\u',
      '\\ud83d',
      '\\ud83d\\ude00',
      '"',
      '\u0001',
      '\t',
      '\\x',
      '\\u00e9',
      '{',
      '}',
      '[',
      ']',
      ',',
      ':',
      '-',
      '0',
      '01',
      '1.',
      '1e',
      'tru',
      'null',
      '\xff',
      'é',
    ]
    fc.assert(
      fc.property(recordArb, fc.integer(), fc.nat(), fc.constantFrom(...pieces), fc.boolean(), (v, seed, at, piece, cut) => {
        const text = serialise(v, rndOf(seed), [' '])
        const i = at % (text.length + 1)
        const bytes = Buffer.from(cut ? text.slice(0, i) : text.slice(0, i) + piece + text.slice(i), piece === '\xff' ? 'latin1' : 'utf8')
        // a latin1 `\xff` is an invalid UTF-8 byte: decoded as U+FFFD by both sides
        expectAgrees(bytes)
      }),
      { numRuns: runs },
    )
  })
})

describe('skimLine examples', () => {
  it('keeps the fields of the spec, exactly; skips the rest', () => {
    const line = '{"type":"t","big":"' + 'x'.repeat(5000) + '","b":{"a":[1,{"z":2}],"q":{"r":[true,false,null]},"c":-1.5e3},"a":1,"c":{"k":[1,2]}}'
    expect(skimLine(Buffer.from(line), SPEC)).toStrictEqual({ type: 't', b: { a: [1, { z: 2 }], c: -1500 }, a: 1, c: { k: [1, 2] } })
  })

  it('a conditional field is kept only when its condition holds for the other fields', () => {
    expect(skimLine(Buffer.from('{"c":[1],"a":2}'), SPEC)).toStrictEqual({ a: 2 })
    expect(skimLine(Buffer.from('{"c":[1],"a":1}'), SPEC)).toStrictEqual({ a: 1, c: [1] })
    expect(skimLine(Buffer.from('{"d":{"a":"x","b":"y"},"type":"z"}'), SPEC)).toStrictEqual({ type: 'z', d: { a: 'x' } })
  })

  it('decodes escapes in keys and values as JSON.parse does (surrogate pairs, lone surrogates, \\/)', () => {
    const line = '{"ty\\u0070e":"a\\"b\\\\c\\/d\\ud83d\\ude00\\ud800","\\u00e9":1,"é":2,"a":"\\u00e9 é"}'
    expect(skimLine(Buffer.from(line), SPEC)).toStrictEqual({ type: 'a"b\\c/d😀\ud800', a: 'é é' })
  })

  it('numbers convert as JSON.parse converts them', () => {
    for (const n of ['0', '-0', '1e400', '-1E-400', '123456789012345678901234567890', '0.1', '2.5e+3']) {
      expect(skimLine(Buffer.from(`{"a":${n}}`), SPEC)).toStrictEqual({ a: JSON.parse(n) })
    }
  })

  it('declines a spec key written twice (JSON.parse keeps the last), not a skipped one', () => {
    expect(skimLine(Buffer.from('{"a":1,"a":2}'), SPEC)).toBe(DECLINE)
    expect(skimLine(Buffer.from('{"a":1,"t\\u0079pe":"x","type":"y"}'), SPEC)).toBe(DECLINE)
    expect(skimLine(Buffer.from('{"z":1,"z":2,"a":3}'), SPEC)).toStrictEqual({ a: 3 })
  })

  it('declines invalid JSON anywhere, skipped values included', () => {
    for (const bad of [
      '{"a":1',
      '{"a":1}x',
      '{"z":01}',
      '{"z":1.}',
      '{"z":-}',
      '{"z":"\\x"}',
      '{"z":"\\u12g4"}',
      '{"z":"a\u0001b"}',
      '{"z":[1,]}',
      '{"z":{"k"}}',
      '{"z":tru}',
      '{"z":"' + 'x'.repeat(3000) + '\u0002"}',
      '{"z":"' + 'x'.repeat(3000),
      '{,}',
      '[1]',
    ]) {
      expect(skimLine(Buffer.from(bad), SPEC)).toBe(DECLINE)
    }
  })

  it('invalid UTF-8 in a kept string becomes U+FFFD as in the full decode', () => {
    const line = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xe2, 0x82]), Buffer.from('","type":"'), Buffer.from([0xff]), Buffer.from('"}')])
    expect(skimLine(line, SPEC)).toStrictEqual(reduceParsed(JSON.parse(line.toString('utf8')), SPEC))
  })

  it('nesting deep enough to exhaust the stack is declined, never thrown', () => {
    const deep = `{"b":${'['.repeat(200_000)}${']'.repeat(200_000)}}`
    expect(skimLine(Buffer.from(deep), SPEC)).toBe(DECLINE)
  })

  it('a spec cannot name __proto__ (a translator bug, thrown at compile time)', () => {
    expect(() => compileSkim(JSON.parse('{"__proto__":true}'))).toThrow(TypeError)
  })
})
