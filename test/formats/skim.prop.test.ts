/**
 * The skim (src/formats/skim/skim.ts, the Claude Code transcript and Codex rollout skims) changes no result: every replay
 * gives the same `RunResult`s, byte for byte as JSON, with the skim off (`skim: false`, every line parsed whole),
 * on every line (`'all'`; with lines of ASCII bytes only skimmed too, `skimSettings.asciiLines`, and declined as the
 * readers decline them) and on long lines (`true`). Over every corpus file and fixture of the four Claude Code
 * and Codex shapes and the homes tree; over those logs re-serialised with random whitespace and key order; over
 * lines mutated by hand (cut, escapes, changed types, duplicate keys, control characters, invalid UTF-8); and over
 * mutations of the reliability suite's generator. Runs from FC_NUM_RUNS.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SkimKernel, type SkimMode, skimCounts, skimKernel, skimSettings, useSkimKernel } from '../../src/formats/skim/skim.js'
import { nativeSkim } from '../../src/node/nativeSkim.js'
import { replayStream } from '../../src/node/replay.js'
import { numRuns } from '../support/arbitraries.js'
import { loadSeeds, mutation } from '../reliability/support/mutate.js'
import { Rng } from '../reliability/support/mutate.js'

const ROOT = join(import.meta.dirname, '../..')
const FIXTURES = join(ROOT, 'test/fixtures')
const runs = numRuns()

const walk = (d: string): Array<string> =>
  readdirSync(d)
    .sort()
    .flatMap((n) => {
      const p = join(d, n)
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.jsonl') ? [p] : []
    })

const FILES = ['claude-code-transcript', 'claude-code-stream-json', 'codex-rollout', 'codex-exec-json', 'homes'].flatMap((d) => walk(join(FIXTURES, d)))
const SKIMMED = FILES.filter((f) => /claude-code-transcript|codex-rollout|homes/.test(f))

/** The replay of `input` in one skim mode, as JSON: its runs, outcome and notes (or the error it rejects with). */
const replayJson = async (input: Buffer, skim: SkimMode, format = 'auto', chunk = 65_536): Promise<string> => {
  const chunks: Array<Buffer> = []
  for (let i = 0; i < input.length; i += chunk) chunks.push(input.subarray(i, i + chunk))
  const runsOut: Array<unknown> = []
  try {
    const source = (async function* () {
      yield* chunks
    })()
    const outcome = await replayStream(source, (r) => runsOut.push(r), { file: 'input.jsonl', skim, format: format as 'auto' })
    return JSON.stringify({ runs: runsOut, outcome })
  } catch (e) {
    // a rejection (an undetectable format, a protocol error) must be the same too; a TypeError is a bug of the test
    if (e instanceof TypeError) throw e
    return JSON.stringify({ runs: runsOut, rejected: e instanceof Error ? `${e.name}: ${e.message}` : String(e) })
  }
}

/**
 * Asserts the modes agree on `input`: off, every line (ASCII lines skimmed too, and declined as the readers do)
 * and long lines. Returns the lines the skim answered with ASCII lines skimmed.
 */
const agree = async (input: Buffer, format = 'auto', chunk = 65_536): Promise<number> => {
  const off = await replayJson(input, false, format, chunk)
  const before = skimCounts.answered
  skimSettings.asciiLines = true
  let all: string
  try {
    all = await replayJson(input, 'all', format, chunk)
  } finally {
    skimSettings.asciiLines = false
  }
  const answered = skimCounts.answered - before
  expect(all).toBe(off)
  expect(await replayJson(input, 'all', format, chunk)).toBe(off)
  expect(await replayJson(input, true, format, chunk)).toBe(off)
  return answered
}

const lines = (text: string): Array<string> => text.split('\n').filter((l) => l.trim() !== '')

/** `l` parsed, or `undefined` when it is not JSON (a mutation then leaves the line as it is). */
const parsedOf = (l: string): unknown => {
  try {
    return JSON.parse(l) as unknown
  } catch {
    return undefined
  }
}

/** JSON text of `v` with random whitespace (spaces; sometimes tabs) and keys in a random order. */
const reserialise = (v: unknown, rnd: () => number): string => {
  const w = (): string => (rnd() < 0.6 ? '' : rnd() < 0.9 ? ' '.repeat(1 + Math.floor(rnd() * 3)) : '\t')
  if (Array.isArray(v)) return `[${w()}${v.map((x) => `${reserialise(x, rnd)}${w()}`).join(`,${w()}`)}]`
  if (typeof v === 'object' && v !== null) {
    const keys = Object.keys(v)
    for (let i = keys.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1))
      ;[keys[i], keys[j]] = [keys[j] as string, keys[i] as string]
    }
    return `{${w()}${keys.map((k) => `${JSON.stringify(k)}${w()}:${w()}${reserialise((v as Record<string, unknown>)[k], rnd)}`).join(`,${w()}`)}${w()}}`
  }
  return JSON.stringify(v)
}

/** A seeded source of numbers in [0, 1) (the reliability suite's mulberry32). */
const rndOf = (seed: number): (() => number) => {
  const rng = new Rng(seed)
  return () => rng.next()
}

/** Hand-made mutations of one line (as text or bytes): each keeps or breaks JSON in a way the skim must match. */
const MUTATIONS: ReadonlyArray<(line: string, rnd: () => number) => string | Buffer> = [
  // cut anywhere
  (l, r) => l.slice(0, Math.floor(r() * l.length)),
  // an escape (valid or not) inserted anywhere
  (l, r) => {
    const i = Math.floor(r() * l.length)
    return l.slice(0, i) + (['\\"', '\\\\', '\\u00e9', '\\ud83d\\ude00', '\\x', '\\u12', '\\n'][Math.floor(r() * 7)] as string) + l.slice(i)
  },
  // a control character or an invalid UTF-8 byte inserted anywhere
  (l, r) => {
    const i = Math.floor(r() * l.length)
    const b = Buffer.from(l)
    return Buffer.concat([b.subarray(0, i), Buffer.from([r() < 0.5 ? 1 : 0xff]), b.subarray(i)])
  },
  // a duplicate of a key the translators read, before or after the original
  (l, r) => {
    const key = ['type', 'message', 'payload', 'isSidechain', 'timestamp', 'sessionId'][Math.floor(r() * 6)] as string
    const val = ['"user"', '"event_msg"', '{}', 'null', 'true', '[]', '"x"'][Math.floor(r() * 7)] as string
    return r() < 0.5 ? `{"${key}":${val},${l.slice(1)}` : `${l.slice(0, -1)},"${key}":${val}}`
  },
  // a value of another type at a field the translators read (parsed, changed, written back)
  (l, r) => {
    const v = parsedOf(l)
    if (v === undefined) return l
    const values = [null, 0, -1, 1.5, 'x', '', true, [], {}, [{ type: 'text', text: 'y' }], { type: 'x' }]
    const walkChange = (o: unknown, depth: number): void => {
      if (typeof o !== 'object' || o === null || depth > 4) return
      const keys = Object.keys(o)
      if (keys.length === 0) return
      const k = keys[Math.floor(r() * keys.length)] as string
      const rec = o as Record<string, unknown>
      if (r() < 0.4 || typeof rec[k] !== 'object' || rec[k] === null) rec[k] = values[Math.floor(r() * values.length)]
      else walkChange(rec[k], depth + 1)
    }
    walkChange(v, 0)
    return JSON.stringify(v)
  },
  // a key written with an escape (the same key for JSON.parse)
  (l) => l.replace('"type"', '"ty\\u0070e"'),
  // non-ASCII text (raw, or as \u escapes) in string values the translators read or not (parsed, changed, written back)
  (l, r) => {
    const v = parsedOf(l)
    if (v === undefined) return l
    const texts = ['é', '→ ', '😀', '日本語', '\ud800', 'Ω']
    const walkChange = (o: unknown, depth: number): void => {
      if (typeof o !== 'object' || o === null || depth > 5) return
      const rec = o as Record<string, unknown>
      for (const k of Object.keys(rec)) {
        const x = rec[k]
        if (typeof x === 'string' && r() < 0.4)
          rec[k] = r() < 0.5 ? `${texts[Math.floor(r() * texts.length)]}${x}` : `${x}${texts[Math.floor(r() * texts.length)]}`
        else walkChange(x, depth + 1)
      }
    }
    walkChange(v, 0)
    const text = JSON.stringify(v)
    return r() < 0.3 ? text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : text
  },
]

/** The native kernel (dist/native, built by `npm run build`), or `null` where none was built. */
const KERNEL = nativeSkim()

/** Runs the enclosing describe's tests with `kernel` installed (`null`: the skim in JavaScript). */
const withKernel = (kernel: SkimKernel | null): void => {
  let before: SkimKernel | null = null
  beforeAll(() => {
    before = skimKernel()
    useSkimKernel(kernel)
  })
  afterAll(() => useSkimKernel(before))
}

/** Both suites: the skim in JavaScript, and with the native kernel (skipped where none was built). */
const suites = (name: string, kernel: SkimKernel | null): void => {
  describe(`skim ≡ full parse, ${name}: corpus and fixtures`, () => {
    withKernel(kernel)
    it.each(FILES.map((f) => [f.slice(FIXTURES.length + 1), f]))('%s: the same results in every skim mode', async (_name, file) => {
      await agree(readFileSync(file))
    })

    it('the skim answers most lines of the transcripts and rollouts (the property is not vacuous)', async () => {
      let answered = 0
      let total = 0
      for (const f of SKIMMED) {
        const text = readFileSync(f)
        total += lines(text.toString('utf8')).length
        answered += await agree(text)
      }
      expect(total).toBeGreaterThan(1000)
      // all but the head lines the sniffer parsed (handed to the reader parsed) and each file's first record (parsed
      // whole: it decides the shape)
      expect(answered).toBeGreaterThan(total * 0.8)
    })
  })

  describe(`skim ≡ full parse, ${name}: re-serialised and mutated lines`, () => {
    withKernel(kernel)
    const logs = SKIMMED.map((f) => lines(readFileSync(f, 'utf8'))).filter((ls) => ls.length > 0)

    it('logs re-serialised with random whitespace and key order', async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat(logs.length - 1), fc.integer(), fc.nat(), async (which, seed, from) => {
          const ls = logs[which] as Array<string>
          const rnd = rndOf(seed)
          const start = from % ls.length
          const picked = ls.slice(start, start + 40).map((l) => reserialise(JSON.parse(l), rnd))
          // the first line decides the shape: keep it as written half of the time
          if (start === 0 && rnd() < 0.5) picked[0] = ls[0] as string
          await agree(Buffer.from(`${picked.join('\n')}\n`), 'auto', 1 + Math.floor(rnd() * 70_000))
        }),
        { numRuns: Math.max(20, Math.floor(runs / 5)) },
      )
    })

    it('lines mutated by hand: cut, escapes, control characters, invalid UTF-8, duplicate keys, changed types', async () => {
      await fc.assert(
        fc.asyncProperty(fc.nat(logs.length - 1), fc.integer(), fc.nat(), fc.nat(MUTATIONS.length - 1), async (which, seed, from, op) => {
          const ls = logs[which] as Array<string>
          const rnd = rndOf(seed)
          const start = from % ls.length
          const picked: Array<string | Buffer> = ls.slice(start, start + 30)
          for (let i = 0; i < picked.length; i++)
            if (i > 0 && rnd() < 0.3) picked[i] = (MUTATIONS[op] as (l: string, r: () => number) => string | Buffer)(picked[i] as string, rnd)
          const input = Buffer.concat(picked.flatMap((p) => [Buffer.isBuffer(p) ? p : Buffer.from(p), Buffer.from('\n')]))
          await agree(input, rnd() < 0.8 ? 'auto' : rnd() < 0.5 ? 'claude-code' : 'codex')
        }),
        { numRuns: Math.max(20, Math.floor(runs / 5)) },
      )
    })

    it('mutations of the reliability suite (its generator, seeded): the same results with and without the skim', async () => {
      const seeds = loadSeeds(FIXTURES)
      const n = Math.max(50, runs * 2)
      for (let i = 0; i < n; i++) {
        const m = mutation(20261201, i, seeds)
        const fi = m.argv.indexOf('--format')
        await agree(m.input, fi >= 0 ? (m.argv[fi + 1] as string) : 'auto', i % 7 === 0 ? 997 : 65_536)
      }
    })
  })
}

suites('in JavaScript', null)
if (KERNEL !== null) suites('with the native kernel', KERNEL)
else describe.skip('skim ≡ full parse, with the native kernel: none was built for this platform (npm run build says why)', () => {})
