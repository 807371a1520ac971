/**
 * The pipeline, for every format (SPEC §6): each format's fixtures — and mutations of them — lowered to native
 * events by its translator and folded by the one fold.
 *
 * 1. Resumability: fold a prefix, checkpoint the whole state (translator + fold) through JSON, decode it with the
 *    format's codec, fold the rest: the runs equal those of folding the whole, at any split points.
 * 2. One semantics: the pure `step` (a copy per event) over the lowered events gives, after every event, the
 *    same state as the mutable fast path, and the same runs.
 * 3. The lowered events are valid native events: each decodes (protocol 2) to itself.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { decodeEvent } from '../../src/core/decodeEvent.js'
import type { SessionEvent } from '../../src/core/events.js'
import { applyEvent, endFold, initialState, step, type FoldState } from '../../src/core/fold.js'
import { Pipeline, pipelineStateCodec, type PipelineState } from '../../src/core/pipeline.js'
import type { RunResult } from '../../src/core/RunResult.js'
import type { Translator } from '../../src/core/translator.js'
import { formatByName } from '../../src/formats/index.js'
import { numRuns } from '../support/arbitraries.js'
import { expectSame } from './support/equal.js'

const fixtures = new URL('../fixtures/', import.meta.url).pathname
const FORMAT_OF: Readonly<Record<string, string>> = {
  'claude-code-stream-json': 'claude-code',
  'claude-code-transcript': 'claude-code',
  'codex-exec-json': 'codex',
  'codex-rollout': 'codex',
  'gemini-stream-json': 'gemini',
  'ai-sdk-provider-chunks': 'ai-sdk',
  'ai-sdk-fullstream': 'ai-sdk',
  'openai-agents-stream': 'openai-agents',
  acp: 'acp',
}

interface Input {
  readonly name: string
  readonly format: string
  readonly lines: ReadonlyArray<string>
}

const inputs: Array<Input> = []
for (const dir of Object.keys(FORMAT_OF)) {
  for (const name of readdirSync(join(fixtures, dir)).sort()) {
    const path = join(fixtures, dir, name)
    if (!statSync(path).isFile() || /\.(md|json)$/.test(name)) continue
    inputs.push({ name: `${dir}/${name}`, format: FORMAT_OF[dir] as string, lines: readFileSync(path, 'utf8').split('\n') })
  }
}
const native = join(fixtures, '../../examples/native/session.jsonl')
inputs.push({ name: 'examples/native/session.jsonl', format: 'native', lines: readFileSync(native, 'utf8').split('\n') })

const translatorOf = (format: string): Translator<unknown> => formatByName(format)?.translator as Translator<unknown>

/** Feeds lines `from`..`to` (0-based, exclusive) to a pipeline, as a line reader would (blank lines skipped). */
const feed = (p: Pipeline, lines: ReadonlyArray<string>, from: number, to: number, out: Array<RunResult>): void => {
  for (let i = from; i < to; i++) {
    const l = lines[i] as string
    if (l.trim() === '') continue
    p.textLine(l, i + 1, i === lines.length - 1)
    out.push(...p.takeResults())
  }
}

const foldWhole = (input: Input, lines: ReadonlyArray<string>): Array<RunResult> => {
  const p = new Pipeline(translatorOf(input.format), { file: input.name })
  const out: Array<RunResult> = []
  feed(p, lines, 0, lines.length, out)
  p.end()
  out.push(...p.takeResults())
  return out
}

const foldResumed = (input: Input, lines: ReadonlyArray<string>, cuts: ReadonlyArray<number>): Array<RunResult> => {
  const t = translatorOf(input.format)
  const codec = pipelineStateCodec(t)
  let p = new Pipeline(t, { file: input.name })
  const out: Array<RunResult> = []
  let at = 0
  for (const cut of cuts) {
    feed(p, lines, at, cut, out)
    at = cut
    const decoded = codec.decode(JSON.parse(JSON.stringify(p.checkpoint())))
    if (E.isLeft(decoded)) throw new Error(`${input.name}: a checkpoint does not decode`)
    p = new Pipeline(t, { file: input.name }, decoded.right as PipelineState<unknown>)
  }
  feed(p, lines, at, lines.length, out)
  p.end()
  out.push(...p.takeResults())
  return out
}

/** A line of a log changed in one of a few ways (cut, dropped, duplicated, a field's type flipped). */
const mutate = (lines: ReadonlyArray<string>, ops: ReadonlyArray<[number, number]>): Array<string> => {
  const out = lines.slice()
  for (const [pos, op] of ops) {
    if (out.length === 0) break
    const i = pos % out.length
    const l = out[i] as string
    switch (op % 4) {
      case 0:
        out[i] = l.slice(0, Math.floor(l.length / 2))
        break
      case 1:
        out.splice(i, 1)
        break
      case 2:
        out.splice(i, 0, l)
        break
      default:
        out[i] = l.replace(/"(\w+)":("[^"]*"|\d+|true|false)/, '"$1":[]')
    }
  }
  return out
}

const cutsArb = (n: number): fc.Arbitrary<Array<number>> =>
  fc.uniqueArray(fc.integer({ min: 0, max: Math.max(0, n) }), { maxLength: 4 }).map((xs) => xs.sort((a, b) => a - b))

describe('pipeline, every format: checkpoint anywhere, resume, same runs', () => {
  it.each(inputs.map((i) => [i.name, i] as const))('%s', (_name, input) => {
    const whole = foldWhole(input, input.lines)
    fc.assert(
      fc.property(cutsArb(input.lines.length), (cuts) => {
        expectSame(foldResumed(input, input.lines, cuts), whole, 'resumed runs')
      }),
      { numRuns: Math.max(10, Math.floor(numRuns() / 10)) },
    )
  })

  it('mutated logs of every format resume to the same runs too', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...inputs),
        fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 6 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        (input, ops, rawCuts) => {
          const lines = mutate(input.lines, ops)
          const cuts = [...new Set(rawCuts.map((c) => c % (lines.length + 1)))].sort((a, b) => a - b)
          expectSame(foldResumed(input, lines, cuts), foldWhole(input, lines), 'resumed runs of a mutated log')
        },
      ),
      { numRuns: numRuns() },
    )
  })
})

/** The events a log lowers to, in order (with the line each came from). */
const lowered = (input: Input, lines: ReadonlyArray<string>): Array<[SessionEvent, number | undefined]> => {
  const out: Array<[SessionEvent, number | undefined]> = []
  const p = new Pipeline(translatorOf(input.format), { file: input.name, onEvent: (ev, line) => out.push([ev, line]) })
  feed(p, lines, 0, lines.length, [])
  p.end()
  return out
}

describe('pipeline, every format: one fold semantics for the lowered events', () => {
  it('the pure step equals the fast path after every event, and every lowered event decodes to itself', () => {
    fc.assert(
      fc.property(fc.constantFrom(...inputs), fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: 4 }), (input, ops) => {
        const lines = mutate(input.lines, ops)
        const events = lowered(input, lines)
        const options = { format: input.format, file: input.name, hold: true }
        let pure: FoldState = initialState(options)
        const fast = initialState(options)
        const pureRuns: Array<RunResult> = []
        const fastRuns: Array<RunResult> = []
        events.forEach(([ev, line], i) => {
          // the pure step applies the event where the pipeline did: at its record's line
          const withLine = ev.line === undefined && line !== undefined ? ({ ...ev, line } as SessionEvent) : ev
          pure = step(pure, withLine, i)
          if (pure.closed !== null) pureRuns.push(pure.closed)
          applyEvent(fast, ev, line)
          if (fast.closed !== null) fastRuns.push(fast.closed)
          expectSame(pure.run, fast.run, `state after event ${i} (${ev.type})`)
          const d = decodeEvent(JSON.parse(JSON.stringify(withLine)), i)
          expect(E.isRight(d) && d.right.type).toBe(ev.type)
        })
        pureRuns.push(...endFold(pure))
        fastRuns.push(...endFold(fast))
        expectSame(pureRuns, fastRuns, 'runs')
      }),
      { numRuns: numRuns() },
    )
  })
})
