/**
 * The skim reader (src/formats/skim/skim.ts) against `JSON.parse`: for any JSON text, the skim either declines or keeps
 * exactly the fields `JSON.parse` gives (the same reduction applied to the parsed value), and it declines every
 * line `JSON.parse` rejects. Properties over fast-check JSON values (ASCII and not) written with random whitespace
 * and key order, and over mutated bytes; examples for escapes, surrogates, duplicate keys, numbers, non-ASCII text
 * and invalid input. The properties skim ASCII lines too (`skimLine(…, true)`), which the readers decline.
 */
import { isDeepStrictEqual } from 'node:util'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileSkim, DECLINE, reduceParsed, type SkimKernel, skimKernel, skimLine, skimPlan, skimRecords, useSkimKernel } from '../../src/formats/skim/skim.js'
import { nativeSkim } from '../../src/node/nativeSkim.js'
import { numRuns } from '../support/arbitraries.js'
import { Rng } from '../reliability/support/mutate.js'

const SPEC = compileSkim({
  type: true,
  a: true,
  b: { a: true, c: true, d: { x: true } },
  c: { when: 'a', in: ['yes', true], keep: true },
  d: { when: 'type', in: ['t', 'z', 'x', 'ça → 😀', 'é'], keep: { a: true } },
})

const runs = numRuns()

/** The native kernel (dist/native, built by `npm run build`), or `null` where none was built. */
const KERNEL = nativeSkim()
useSkimKernel(null)

/** Runs the enclosing describe's tests with `kernel` installed (`null`: the skim in JavaScript). */
const withKernel = (kernel: SkimKernel | null): void => {
  let before: SkimKernel | null = null
  beforeAll(() => {
    before = skimKernel()
    useSkimKernel(kernel)
  })
  afterAll(() => useSkimKernel(before))
}

/** The skim's answer, or the full parse's reduction, for one text; both sides as the test compares them. */
const both = (text: string | Buffer): { skim: unknown; full: unknown; parses: boolean } => {
  const buf = typeof text === 'string' ? Buffer.from(text) : text
  const skim = skimLine(buf, SPEC, true)
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
  // node's deep equality (own keys, prototypes, -0): vitest's reads an own `constructor` key as the object's type,
  // so two equal objects with such a key would differ
  if (!isDeepStrictEqual(skim, full)) expect(skim).toStrictEqual(full)
  return true
}

/** A JSON string literal of `s`, its non-ASCII characters written as `\uXXXX` escapes a third of the time. */
const literalOf = (s: string, rnd: () => number): string => {
  const text = JSON.stringify(s)
  return rnd() < 0.34 ? text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text
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
    return `{${w()}${keys.map((k) => `${literalOf(k, rnd)}${w()}:${w()}${serialise((v as Record<string, unknown>)[k], rnd, ws)}${w()}`).join(',')}${w()}}`
  }
  if (typeof v === 'string') return literalOf(v, rnd)
  return JSON.stringify(v) ?? 'null'
}

/** A seeded source of numbers in [0, 1) (the reliability suite's mulberry32). */
const rndOf = (seed: number): (() => number) => {
  const rng = new Rng(seed)
  return () => rng.next()
}

/** Objects whose keys often are the spec's, nested, with any JSON value below. */
const keyArb = fc.oneof(
  fc.constantFrom('type', 'a', 'b', 'c', 'd', 'x', 'é', '__proto__', 'ty\\u0070e', '\u2192', 'constructor', 'toString'),
  fc.string({ maxLength: 4 }),
  fc.string({ maxLength: 3, unit: 'grapheme' }),
)
/** Strings with non-ASCII text (accents, arrows, emoji, lone surrogates), which the skim reads from their bytes. */
const textArb = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('é', '→ x', '😀', 'a\u00e9'),
)
const { node: nodeArb } = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, fc.jsonValue({ maxDepth: 2 }), textArb, tie('object'), fc.array(tie('node'), { maxLength: 3 })),
  object: fc.dictionary(keyArb, tie('node'), { maxKeys: 6 }),
}))
const recordArb = fc.dictionary(keyArb, nodeArb, { maxKeys: 8 })

describe.each([
  ['in JavaScript', null],
  ['with the native kernel', KERNEL],
] as const)('skimLine ≡ JSON.parse for the fields it keeps, %s', (name, kernel) => {
  if (kernel === null && name !== 'in JavaScript') {
    it.skip('no native kernel was built for this platform (npm run build says why)', () => {})
    return
  }
  withKernel(kernel)
  it('any JSON value, random whitespace and key order: declines or keeps exactly what JSON.parse gives', () => {
    let answered = 0
    fc.assert(
      fc.property(fc.oneof(recordArb, fc.jsonValue()), fc.integer(), (v, seed) => {
        if (expectAgrees(serialise(v, rndOf(seed), [' ', '\t', '\r', '\n']))) answered++
      }),
      { numRuns: runs },
    )
    // most generated records are objects the skim answers (the property is not vacuous); the kernel declines only
    // escaped keys and condition values, so it answers most of them
    expect(answered).toBeGreaterThan(kernel === null ? runs / 4 : runs / 3)
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
      '\f',
      '\u000b',
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

/** The skim of `text` (ASCII lines too, as the properties skim them). */
const skim = (text: string | Buffer): ReturnType<typeof skimLine> => skimLine(typeof text === 'string' ? Buffer.from(text) : text, SPEC, true)

describe('skimLine examples, in JavaScript', () => {
  withKernel(null)
  it('keeps the fields of the spec, exactly; drops the rest', () => {
    const line = '{"type":"t","big":"' + 'x'.repeat(5000) + '","b":{"a":[1,{"z":2}],"q":{"r":[true,false,null]},"c":-1.5e3},"a":true,"c":{"k":[1,2]}}'
    expect(skim(line)).toStrictEqual({ type: 't', b: { a: [1, { z: 2 }], c: -1500 }, a: true, c: { k: [1, 2] } })
  })

  it('a reader declines a line of ASCII bytes only (its full parse costs the same) and skims one with a non-ASCII byte', () => {
    expect(skimLine(Buffer.from('{"type":"t","big":"plain"}'), SPEC)).toBe(DECLINE)
    expect(skimLine(Buffer.from('{"type":"t","big":"→ é 😀"}'), SPEC)).toStrictEqual({ type: 't' })
    expect(skimLine(Buffer.from('{"type":"→","big":"x"}'), SPEC)).toStrictEqual({ type: '→' })
  })

  it('a kept string with non-ASCII text is read as UTF-8, in nested and whole values too', () => {
    const line = '{"type":"ça → 😀","a":{"k":["é",{"x":"ü"}]},"b":{"a":"日本","z":"ß"},"d":{"a":"ø"}}'
    expect(skimLine(Buffer.from(line), SPEC)).toStrictEqual({ type: 'ça → 😀', a: { k: ['é', { x: 'ü' }] }, b: { a: '日本' }, d: { a: 'ø' } })
  })

  it('declines a line whose kept non-ASCII text may come from a \\u escape; answers when the escapes stand for ASCII', () => {
    // an escaped é beside a raw one: the Latin-1 reading cannot tell them apart
    expect(skimLine(Buffer.from('{"type":"é","big":"\\u00e9"}'), SPEC)).toBe(DECLINE)
    expect(skimLine(Buffer.from('{"type":"é","big":"\\ud83d\\ude00"}'), SPEC)).toBe(DECLINE)
    // escapes of ASCII (an ANSI colour, a quote) change nothing
    expect(skimLine(Buffer.from('{"type":"é\\u001b[0m\\"","big":"\\u0041"}'), SPEC)).toStrictEqual({ type: 'é\u001b[0m"' })
    // an escaped non-ASCII character in a line whose kept strings are ASCII: answered
    expect(skimLine(Buffer.from('{"type":"t","big":"\\u00e9 é"}'), SPEC)).toStrictEqual({ type: 't' })
  })

  it('declines a non-ASCII key inside a kept whole value (two could read as one), not one it drops', () => {
    expect(skimLine(Buffer.from('{"a":{"é":1}}'), SPEC)).toBe(DECLINE)
    expect(skimLine(Buffer.from('{"a":{"e":1},"é":{"é":2}}'), SPEC)).toStrictEqual({ a: { e: 1 } })
    // two invalid bytes both read as U+FFFD: the full parse has one key where the Latin-1 reading has two
    const two = Buffer.concat([Buffer.from('{"a":{"'), Buffer.from([0xff]), Buffer.from('":1,"'), Buffer.from([0xfe]), Buffer.from('":2}}')])
    expect(skimLine(two, SPEC)).toBe(DECLINE)
  })

  it('a conditional field is kept only when its condition holds for the other fields', () => {
    expect(skim('{"c":[1],"a":2}')).toStrictEqual({ a: 2 })
    expect(skim('{"c":[1],"a":true}')).toStrictEqual({ a: true, c: [1] })
    expect(skim('{"c":[1],"a":"yes"}')).toStrictEqual({ a: 'yes', c: [1] })
    expect(skim('{"c":[1],"a":1}')).toStrictEqual({ a: 1 })
    expect(skim('{"d":{"a":"x","b":"y"},"type":"z"}')).toStrictEqual({ type: 'z', d: { a: 'x' } })
  })

  it('decodes escapes in keys and values as JSON.parse does; declines a kept string an escape makes non-ASCII', () => {
    const line = '{"ty\\u0070e":"a\\"b\\\\c\\/d\\n","\\u00e9":1,"é":2,"a":"\\u0041 e"}'
    expect(skim(line)).toStrictEqual({ type: 'a"b\\c/d\n', a: 'A e' })
    // surrogate pairs, lone surrogates, an escaped é: kept, they would need the line's own decoding
    for (const value of ['\\ud83d\\ude00', '\\ud800', '\\u00e9 e']) expect(skim(`{"a":"${value}"}`)).toBe(DECLINE)
    expect(skim('{"a":"\\ud83d\\ude00","type":"t"}')).toBe(DECLINE)
    // dropped, they change nothing
    expect(skim('{"z":"\\ud83d\\ude00 é","type":"t"}')).toStrictEqual({ type: 't' })
  })

  it('numbers convert as JSON.parse converts them', () => {
    for (const n of ['0', '-0', '1e400', '-1E-400', '123456789012345678901234567890', '0.1', '2.5e+3']) {
      expect(skim(`{"a":${n}}`)).toStrictEqual({ a: JSON.parse(n) })
    }
  })

  it('a key written twice keeps the last value, as JSON.parse does', () => {
    expect(skim('{"a":1,"a":2}')).toStrictEqual({ a: 2 })
    expect(skim('{"a":1,"t\\u0079pe":"x","type":"y"}')).toStrictEqual({ a: 1, type: 'y' })
    expect(skim('{"z":1,"z":2,"a":3}')).toStrictEqual({ a: 3 })
  })

  it('keys Object.prototype has are kept only when the line has them', () => {
    const proto = compileSkim(JSON.parse('{"constructor":true,"toString":{"a":true}}'))
    expect(skimLine(Buffer.from('{"x":"é"}'), proto)).toStrictEqual({})
    expect(skimLine(Buffer.from('{"constructor":"é","toString":{"a":1,"b":2}}'), proto)).toStrictEqual({ constructor: 'é', toString: { a: 1 } })
    expect(skimLine(Buffer.from('{"__proto__":{"a":1},"type":"é"}'), SPEC)).toStrictEqual({ type: 'é' })
  })

  it('declines invalid JSON anywhere, dropped values included', () => {
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
      '{"z":"é"}\u00a0',
      '{"z":"é"} \ufeff',
      '{,}',
      '[1]',
      ' {"a":1}',
    ]) {
      expect(skim(bad)).toBe(DECLINE)
    }
  })

  it('invalid UTF-8 in a kept string becomes U+FFFD as in the full decode', () => {
    const line = Buffer.concat([
      Buffer.from('{"a":"x'),
      Buffer.from([0xe2, 0x82]),
      Buffer.from('","type":"'),
      Buffer.from([0xff]),
      Buffer.from('\\n'),
      Buffer.from([0xf0, 0x9f]),
      Buffer.from('\\""}'),
    ])
    expect(skimLine(line, SPEC)).toStrictEqual(reduceParsed(JSON.parse(line.toString('utf8')), SPEC))
    expect(skimLine(line, SPEC)).toStrictEqual({ a: 'x\ufffd', type: '\ufffd\n\ufffd"' })
  })

  it('nesting deep enough to exhaust the stack is declined, never thrown', () => {
    const deep = `{"b":${'['.repeat(200_000)}${']'.repeat(200_000)},"type":"é"}`
    expect(skimLine(Buffer.from(deep), SPEC)).toBe(DECLINE)
  })

  it('a spec cannot name __proto__ (a translator bug, thrown at compile time)', () => {
    expect(() => compileSkim(JSON.parse('{"__proto__":true}'))).toThrow(TypeError)
  })
})

describe.skipIf(KERNEL === null)('skimLine examples, with the native kernel', () => {
  withKernel(KERNEL)
  const full = (line: string | Buffer): unknown => {
    const buf = typeof line === 'string' ? Buffer.from(line) : line
    return reduceParsed(JSON.parse(buf.toString('utf8')), SPEC)
  }

  it('answers lines of ASCII bytes too, dropping the rest unparsed', () => {
    const line = '{"type":"t","big":"' + 'x'.repeat(5000) + '","b":{"a":[1,{"z":2}],"q":{"r":[true,false,null]},"c":-1.5e3},"a":true,"c":{"k":[1,2]}}'
    expect(skimLine(Buffer.from(line), SPEC, false)).toStrictEqual({ type: 't', b: { a: [1, { z: 2 }], c: -1500 }, a: true, c: { k: [1, 2] } })
  })

  it('keeps the bytes of kept strings, so \\u escapes, non-ASCII keys and invalid UTF-8 read as in the full parse', () => {
    for (const line of [
      '{"type":"\\u00e9\\ud83d\\ude00","a":{"\\u00e9":1,"é":2}}',
      '{"a":{"é":1,"\\u00e9":2},"type":"ça → 😀","d":{"a":"\\u2192"}}',
      '{"type":"x","d":{"a":"\\ud800"}}',
    ])
      expect(skimLine(Buffer.from(line), SPEC)).toStrictEqual(full(line))
    const bad = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from([0xe2, 0x82]), Buffer.from('","type":"'), Buffer.from([0xff]), Buffer.from('"}')])
    expect(skimLine(bad, SPEC)).toStrictEqual({ a: 'x\ufffd', type: '\ufffd' })
  })

  it('declines an escaped key where keys are matched, and a condition value with an escape; answers where they are dropped', () => {
    expect(skimLine(Buffer.from('{"ty\\u0070e":"x","a":1}'), SPEC)).toBe(DECLINE)
    expect(skimLine(Buffer.from('{"type":"\\u0074","d":{"a":1}}'), SPEC)).toBe(DECLINE)
    expect(skimLine(Buffer.from('{"q":{"ty\\u0070e":"x"},"a":1}'), SPEC)).toStrictEqual({ a: 1 })
    expect(skimLine(Buffer.from('{"type":"\\u0074"}'), SPEC)).toStrictEqual({ type: 't' })
  })

  it('a conditional field follows its condition, wherever either sits and whichever is written last', () => {
    expect(skimLine(Buffer.from('{"d":{"a":1,"b":2},"type":"z"}'), SPEC)).toStrictEqual({ type: 'z', d: { a: 1 } })
    expect(skimLine(Buffer.from('{"d":{"a":1},"type":"z","type":"no"}'), SPEC)).toStrictEqual({ type: 'no' })
    expect(skimLine(Buffer.from('{"type":"no","d":{"a":1},"type":"z","d":{"a":2}}'), SPEC)).toStrictEqual({ type: 'z', d: { a: 2 } })
    expect(skimLine(Buffer.from('{"c":[1],"a":true}'), SPEC)).toStrictEqual({ a: true, c: [1] })
    expect(skimLine(Buffer.from('{"c":[1],"a":"true"}'), SPEC)).toStrictEqual({ a: 'true' })
    expect(skimLine(Buffer.from('{"c":[1]}'), SPEC)).toStrictEqual({})
  })

  it('declines what JSON.parse rejects: grammar, control characters, numbers, trailing bytes', () => {
    for (const bad of [
      '{"a":1,}',
      '{"a":01}',
      '{"a":1.}',
      '{"a":-}',
      '{"a":1e}',
      '{"a":"\u0001"}',
      '{"x":"\t"}',
      '{"x":"\\x"}',
      '{"x":"\\u12"}',
      '{"x":tru}',
      '{"x":[1,]}',
      '{"x":1} x',
      '{"x":1}}',
      '{"x" 1}',
      '{"x":1',
      '{"x":"',
    ]) {
      expect(() => JSON.parse(bad)).toThrow()
      expect(skimLine(Buffer.from(bad), SPEC)).toBe(DECLINE)
    }
    expect(skimLine(Buffer.from('{"a":-0.5e+3} \t\r'), SPEC)).toStrictEqual({ a: -500 })
  })

  it('strings of any length, with escapes, quotes and control characters at any offset of its 16- and 64-byte blocks, read as JSON.parse reads them', () => {
    // the kernel reads a string 16 bytes first, then 64 at a time, an escape clearing the bits it covers (one that
    // ends past a block starts the next): each piece lands at offsets around those edges, kept ('a') and dropped ('q')
    const piece = fc.constantFrom('x', 'é', '\\n', '\\"', '\\\\', '\\u00e9', '\\ud83d\\ude00', '\\u12', '\\x', '"', '\u0001', '\\', ' ')
    const text = fc.tuple(fc.nat(140), fc.array(fc.tuple(fc.nat(140), piece), { maxLength: 4 }), fc.nat(20)).map(([len, inserts, pad]) => {
      let s = 'y'.repeat(len)
      for (const [at, p] of inserts) s = s.slice(0, Math.min(at, s.length)) + p + s.slice(Math.min(at, s.length))
      return { s, pad }
    })
    fc.assert(
      fc.property(text, fc.constantFrom('a', 'q'), ({ s, pad }, key) => {
        const line = `{"type":"t","${key}":"${s}"${' '.repeat(pad)},"b":{"a":1}}`
        let parsed: unknown
        try {
          parsed = JSON.parse(line)
        } catch {
          expect(skimLine(Buffer.from(line), SPEC)).toBe(DECLINE)
          return
        }
        const got = skimLine(Buffer.from(line), SPEC)
        if (got !== DECLINE) expect(got).toStrictEqual(reduceParsed(parsed, SPEC))
        // only a kept string's escapes of non-ASCII characters may make the skim decline a valid line
        else expect(key === 'a' && /\\u(?!00[0-7])/.test(s)).toBe(true)
      }),
      { numRuns: Math.max(runs, 2000) },
    )
  })

  it('nesting past 512 levels is declined; below it is answered', () => {
    expect(skimLine(Buffer.from(`{"q":${'['.repeat(600)}${']'.repeat(600)},"a":1}`), SPEC)).toBe(DECLINE)
    expect(skimLine(Buffer.from(`{"q":${'['.repeat(400)}${']'.repeat(400)},"a":1}`), SPEC)).toStrictEqual({ a: 1 })
  })

  it('any bytes at or above 0x80 in kept strings and keys read as Node decodes them (WHATWG UTF-8, U+FFFD per bad subpart)', () => {
    // bytes a JSON string may hold raw: anything but a quote, a backslash and a control character
    const high = fc.integer({ min: 0x80, max: 0xff })
    const plain = fc.constantFrom(0x41, 0x20, 0x7e, 0x7f)
    const lead = fc.constantFrom(0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xc0, 0xc1, 0xff)
    const cont = fc.constantFrom(0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf)
    const stringBytes = fc.array(fc.oneof(high, plain, lead, cont), { maxLength: 24 })
    fc.assert(
      fc.property(stringBytes, stringBytes, stringBytes, (value, key, dropped) => {
        const line = Buffer.concat([
          Buffer.from('{"type":"'),
          Buffer.from(value),
          Buffer.from('","q":"'),
          Buffer.from(dropped),
          Buffer.from('","a":{"'),
          Buffer.from(key),
          Buffer.from('":"'),
          Buffer.from(value),
          Buffer.from('"}}'),
        ])
        // the whole value `a` and its non-ASCII key are kept: both read from the escapes the kernel writes
        expect(skimLine(line, SPEC)).toStrictEqual(full(line))
      }),
      { numRuns: runs * 5 },
    )
  })

  it('kept text with many non-ASCII characters fits (escapes are longer than the bytes) or is declined, never cut', () => {
    // emoji, accents and arrows: escapes up to three times their bytes, which the output has room for
    const text = '😀é→'.repeat(2000)
    const line = Buffer.from(JSON.stringify({ type: text, a: text, q: 'x' }))
    expect(skimLine(line, SPEC)).toStrictEqual({ type: text, a: text })
    // invalid bytes only: six output bytes each (one U+FFFD escape), more than the room the line alone is given:
    // whole where the output buffer kept from longer lines has room, else declined (the reader parses it whole)
    for (const n of [3000, 300_000]) {
      const bad = Buffer.concat([Buffer.from('{"type":"'), Buffer.alloc(n, 0xff), Buffer.from('"}')])
      const v = skimLine(bad, SPEC)
      if (v !== DECLINE) expect(v).toStrictEqual({ type: '\ufffd'.repeat(n) })
      expect(full(bad)).toStrictEqual({ type: '\ufffd'.repeat(n) })
    }
    const many = Buffer.concat([Buffer.from('{"type":"'), Buffer.alloc(300_000, 0xff), Buffer.from('"}')])
    expect(skimLine(many, SPEC)).toBe(DECLINE)
  })
})

describe.skipIf(KERNEL === null || KERNEL.skimLines === undefined)('skimRecords: runs of lines at once, with the native kernel', () => {
  withKernel(KERNEL)
  /** What the one-line path reads of the lines of `chunk` from `from`, stopping where a run must stop. */
  const oneByOne = (chunk: Buffer, from: number, limit: number): { records: Array<unknown>; lines: number; next: number; at: Array<number> } => {
    const records: Array<unknown> = []
    const at: Array<number> = []
    let lines = 0
    let pos = from
    for (;;) {
      const nl = chunk.indexOf(10, pos)
      if (nl === -1) break
      let end = nl
      if (end > pos && chunk[end - 1] === 13) end--
      if (end > pos) {
        if (end - pos >= limit || chunk[pos] !== 123) break
        const v = skimLine(chunk.subarray(pos, end), SPEC, true)
        if (v === DECLINE) break
        records.push(v)
        at.push(lines)
      }
      lines++
      pos = nl + 1
    }
    return { records, lines, next: pos, at }
  }
  const lineArb = fc.oneof(
    { weight: 6, arbitrary: fc.tuple(recordArb, fc.integer()).map(([v, seed]) => serialise(v, rndOf(seed), [' ', '\t'])) },
    { weight: 1, arbitrary: fc.constantFrom('', '\r', '  ', 'text', '[1]', '{"a":1,}', '{"ty\\u0070e":1}', '{"type":"\u00e9 → 😀"}\r') },
  )

  it('takes the lines the one-line skim answers, in order, with their line indexes; stops where that skim stops', () => {
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 12 }), fc.boolean(), fc.nat(40), fc.integer({ min: 8, max: 400 }), (lines, cutLast, skip, limit) => {
        const text = lines.join('\n') + (cutLast ? '' : '\n')
        const chunk = Buffer.from(`${'x'.repeat(skip)}\n${text}`)
        const from = skip + 1
        const want = oneByOne(chunk, from, limit)
        const got = skimRecords(chunk, from, SPEC, limit)
        expect(got).toBeDefined()
        if (got === undefined) return
        expect(got.lines).toBe(want.lines)
        expect(got.next).toBe(want.next)
        expect(got.records.length).toBe(want.records.length)
        for (let k = 0; k < want.records.length; k++) {
          if (!isDeepStrictEqual(got.records[k], want.records[k])) expect(got.records[k]).toStrictEqual(want.records[k])
          expect(got.meta[2 * k]).toBe(want.at[k])
        }
      }),
      { numRuns: runs },
    )
  })

  it('stops full after about 48 KiB of text and goes on from there when called again, to the same records', () => {
    const text = 'é→x'.repeat(300)
    const chunk = Buffer.from(Array.from({ length: 200 }, (_, i) => JSON.stringify({ a: i, type: text, q: 'dropped' })).join('\n') + '\n')
    const want = oneByOne(chunk, 0, 1 << 20)
    const records: Array<unknown> = []
    let at = 0
    let lines = 0
    let calls = 0
    for (;;) {
      const run = skimRecords(chunk, at, SPEC, 1 << 20)
      expect(run).toBeDefined()
      if (run === undefined) break
      calls++
      records.push(...run.records)
      lines += run.lines
      at = run.next
      if (!run.more) break
      expect(run.records.length).toBeGreaterThan(0)
    }
    expect(calls).toBeGreaterThan(3)
    expect(records).toStrictEqual(want.records)
    expect(lines).toBe(200)
    expect(at).toBe(chunk.length)
  })

  it('never writes past its output when escapes make the text longer than the lines (hostile input, found by fuzzing)', () => {
    const kernel = KERNEL as SkimKernel
    const skimLines = kernel.skimLines?.bind(kernel)
    expect(skimLines).toBeDefined()
    if (skimLines === undefined) return
    const handle = kernel.compile(skimPlan(SPEC))
    // invalid bytes become six-byte \ufffd escapes: the first line leaves one byte of the output, and the room of
    // the second came out below zero (a size_t wrapped): the kernel wrote past the output's end
    const cases: Array<[Buffer, (n: number) => number]> = [
      // the fuzzer's reproducer, with the least output the kernel takes
      [Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff]), Buffer.from('" }\n{}\n')]), (n) => n + 2],
      // the same with the room the reader gives (3n + 16)
      [Buffer.concat([Buffer.from('{"a":"'), Buffer.alloc(14, 0xff), Buffer.from('"}\n{}\n{"a":1}\n')]), (n) => 3 * n + 16],
      [Buffer.concat([Buffer.from('{"a":"'), Buffer.alloc(40, 0xff), Buffer.from('"}\n{}\n')]), (n) => 3 * n + 16],
    ]
    for (const [chunk, roomOf] of cases) {
      const room = roomOf(chunk.length)
      const backing = Buffer.alloc(room + 64, 0xee)
      const out = backing.subarray(0, room)
      const state = new Int32Array(4)
      const meta = new Int32Array(16)
      let at = 0
      const records: Array<unknown> = []
      for (let calls = 0; calls < 10 && at < chunk.length; calls++) {
        const n = skimLines(chunk, at, out, handle, state, meta, 1 << 20, 1 << 30)
        expect(n).toBeGreaterThanOrEqual(0)
        // the bytes after the output are untouched
        expect(backing.subarray(room).every((b) => b === 0xee)).toBe(true)
        if (n > 0) records.push(...(JSON.parse(out.toString('latin1', 0, state[2] as number)) as Array<unknown>))
        if ((state[1] as number) === 0) break
        at = state[0] as number
      }
      // what it took is what the full parse gives; a line it left is read by the one-line path
      expect(records).toStrictEqual(
        chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l !== '')
          .slice(0, records.length)
          .map((l) => reduceParsed(JSON.parse(l), SPEC)),
      )
    }
  })

  it("gives the offset after each record's newline, and takes empty lines between records", () => {
    const chunk = Buffer.from('{"a":1}\n\n\r\n{"a":2,"z":[1]}\r\n{"a":3')
    const got = skimRecords(chunk, 0, SPEC, 1000)
    expect(got?.records).toStrictEqual([{ a: 1 }, { a: 2 }])
    expect(got?.lines).toBe(4)
    expect(got?.next).toBe(chunk.indexOf('{"a":3'))
    expect([...(got?.meta.subarray(0, 4) ?? [])]).toStrictEqual([0, 8, 3, chunk.indexOf('{"a":3')])
  })
})
