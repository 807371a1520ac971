/**
 * Properties of the fold, the JSONL reader and the operators (fast-check; runs from FC_NUM_RUNS):
 * chunking invariance at any byte offset, operator ≡ fold for valid and invalid input, error locality,
 * purity of `step` under deep freezing, codec round-trips, hostile ids, and no prototype pollution.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { from, lastValueFrom, toArray } from 'rxjs'
import { describe, expect, it } from 'vitest'
import { decodeEvent } from '../../src/core/decodeEvent.js'
import { dataCodecs, isKnownEventType } from '../../src/core/events.js'
import { currentResult, foldEvents, foldRuns, initialState, NativeFolder, step, type FoldState } from '../../src/core/fold.js'
import { resumeFold } from '../../src/core/resumeFold.js'
import { decodeFoldState, encodeFoldState, FoldStateCodec, RunEndingCodec } from '../../src/core/FoldStateCodec.js'
import { isProtocolError, type ProtocolError } from '../../src/core/ProtocolError.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { LineSplitter } from '../../src/io/lines.js'
import { replayStream } from '../../src/node/replay.js'
import { decodeEvents, reduceRun, runResults, scanRun } from '../../src/operators/index.js'
import { expectSame } from './support/equal.js'
import { deepFreeze } from './support/freeze.js'
import { prototypeFingerprint, prototypesClean, renameEvent, renameResult, renamingArb, withPollutingKeys } from './support/ids.js'
import { chunksOf, cutsArb, docOptionsArb, oracleLines, source, toJsonl, type Line } from './support/jsonl.js'
import { figure, FC_RUNS } from './support/runs.js'
import { badEventArb, junkArb, nativeEventArb, nativeTraceArb, PLAIN_IDS } from './support/traces.js'

figure(`properties: ${FC_RUNS} runs per property (FC_NUM_RUNS)`)

const opts = { numRuns: FC_RUNS }
const tally: Record<string, number> = {}
const count = (what: string, n = 1): void => {
  tally[what] = (tally[what] ?? 0) + n
}

/** A trace that may hold one bad event (and anything after it). */
const maybeInvalidArb = fc.oneof(
  nativeTraceArb(),
  fc.tuple(nativeTraceArb(), badEventArb, junkArb).map(([ok, bad, junk]) => [...ok, bad.event, ...junk]),
)

const splitLines = (chunks: ReadonlyArray<Buffer>): Array<Line> => {
  const out: Array<Line> = []
  const s = new LineSplitter((text, lineNo, unterminated) => out.push({ text, lineNo, unterminated }))
  for (const c of chunks) s.push(c)
  s.end()
  return out
}

interface Replayed {
  readonly runs: Array<RunResult>
  readonly error?: unknown
  readonly notes?: ReadonlyArray<string>
  readonly failure?: string
}

const replay = async (chunks: ReadonlyArray<Buffer>, format: 'native' | 'auto'): Promise<Replayed> => {
  const runs: Array<RunResult> = []
  try {
    const o = await replayStream(source(chunks), (r) => runs.push(r), { format, file: 'log.jsonl' })
    return { runs, notes: o.notes, ...(o.error !== undefined ? { error: o.error.toJSON() } : {}) }
  } catch (e) {
    return { runs, failure: isProtocolError(e) ? JSON.stringify(e.toJSON()) : e instanceof Error ? `${e.name}: ${e.message}` : 'non-error' }
  }
}

const settle = async <A>(p: Promise<A>): Promise<E.Either<unknown, A>> => p.then(E.right, E.left)
const errJson = (e: unknown): unknown => (isProtocolError(e) ? e.toJSON() : e)

describe('JSONL reader: chunking invariance', () => {
  it('splitting the bytes anywhere (inside a UTF-8 character, between \\r and \\n, inside the BOM) gives the same lines', () => {
    fc.assert(
      fc.property(
        fc
          .tuple(
            fc.array(fc.oneof(nativeEventArb, fc.constantFrom('RAW:not json', 'RAW:{"type":"turn/st', 'RAW:  \u00e9\u65e5\ud83d\ude42')), { maxLength: 30 }),
            docOptionsArb,
          )
          .chain(([values, o]) => {
            const doc = toJsonl(values, o)
            return fc.tuple(fc.constant(doc.bytes), cutsArb(doc.bytes))
          }),
        ([bytes, cuts]) => {
          const chunks = chunksOf(bytes, cuts)
          expectSame(splitLines(chunks), oracleLines(bytes), 'lines')
          count('chunking: documents', 1)
          count('chunking: chunks', chunks.length)
        },
      ),
      opts,
    )
  })

  it('replay (native and auto) over any chunking gives the same runs, error (index, line) and notes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc
          .tuple(
            fc.oneof(
              nativeTraceArb(25),
              fc.tuple(nativeTraceArb(20), badEventArb, junkArb).map(([a, b, c]) => [...a, b.event, ...c]),
            ),
            docOptionsArb,
          )
          .chain(([values, o]) => {
            const doc = toJsonl(values, o)
            return fc.tuple(fc.constant(doc.bytes), cutsArb(doc.bytes))
          }),
        async ([bytes, cuts]) => {
          const chunks = chunksOf(bytes, cuts)
          for (const format of ['native', 'auto'] as const) {
            const whole = await replay([bytes], format)
            const split = await replay(chunks, format)
            expectSame(split, whole, `${format} replay`)
          }
          count('replay chunking: documents')
        },
      ),
      opts,
    )
  })
})

describe('operators ≡ fold (valid and invalid input)', () => {
  it('reduceRun ≡ foldEvents, runResults ≡ the runs resumeFold closes, scanRun ≡ prefix folds, decodeEvents ≡ decodeEvent', async () => {
    await fc.assert(
      fc.asyncProperty(maybeInvalidArb, fc.option(fc.constantFrom(PLAIN_IDS.message, 'other'), { nil: undefined }), async (inputs, messageId) => {
        const o = messageId !== undefined ? { messageId } : {}
        // reduceRun
        const folded = foldEvents(inputs, o)
        const reduced = await settle(lastValueFrom(from(inputs).pipe(reduceRun(o))))
        if (E.isRight(folded)) expectSame(reduced, E.right(folded.right), 'reduceRun')
        else {
          if (E.isRight(reduced)) throw new Error('reduceRun succeeded where foldEvents failed')
          expectSame(errJson(reduced.left), folded.left.toJSON(), 'reduceRun error')
        }
        // runResults: the runs closed so far, then the open one on completion (or the error)
        const emitted: Array<RunResult> = []
        const results = await settle(
          new Promise<void>((resolve, reject) =>
            from(inputs)
              .pipe(runResults(o))
              .subscribe({ next: (r) => emitted.push(r), error: reject, complete: resolve }),
          ),
        )
        const bad = E.isLeft(folded) ? folded.left.index : inputs.length
        const resumed = resumeFold(initialState(o), inputs.slice(0, bad))
        if (E.isLeft(resumed)) throw new Error('the valid prefix failed')
        const expected = [...resumed.right.closed]
        const st = resumed.right.state
        if (E.isRight(folded) && !st.done && st.run.draft.hasContent) expected.push(currentResult(st))
        expectSame(emitted, expected, 'runResults emissions')
        if (E.isLeft(folded) && !st.done) {
          if (E.isRight(results)) throw new Error('runResults completed where foldEvents failed')
          expectSame(errJson(results.left), folded.left.toJSON(), 'runResults error')
        } else expect(E.isRight(results)).toBe(true) // (with messageId, it completes when the owned interval closes)
        // foldRuns agrees with runResults, except that an input with no run gives one unfinished run
        if (E.isRight(folded)) {
          const runs = foldRuns(inputs, o)
          if (E.isLeft(runs)) throw new Error('foldRuns failed where foldEvents succeeded')
          if (emitted.length === 0 && !st.done) expectSame(runs.right, [currentResult(st)], 'foldRuns with no run')
          else expectSame(runs.right, emitted, 'foldRuns ≡ runResults')
        }
        // scanRun
        const snaps: Array<RunResult> = []
        const scanned = await settle(
          new Promise<void>((resolve, reject) =>
            from(inputs)
              .pipe(scanRun(o))
              .subscribe({ next: (r) => snaps.push(r), error: reject, complete: resolve }),
          ),
        )
        expect(snaps.length).toBe(bad)
        snaps.forEach((snap, i) => {
          const prefix = foldEvents(inputs.slice(0, i + 1), o)
          if (E.isLeft(prefix)) throw new Error('a valid prefix failed')
          expectSame(snap, prefix.right, `scanRun emission ${i}`)
        })
        if (E.isLeft(folded)) expectSame(E.isLeft(scanned) ? errJson(scanned.left) : 'completed', folded.left.toJSON(), 'scanRun error')
        // decodeEvents
        const decoded = await settle(lastValueFrom(from(inputs).pipe(decodeEvents(), toArray())))
        if (E.isRight(folded)) {
          if (E.isLeft(decoded)) throw new Error('decodeEvents failed where foldEvents succeeded')
          expectSame(
            decoded.right,
            inputs.map((x, i) => E.getOrElseW(() => null)(decodeEvent(x, i))),
            'decodeEvents',
          )
        } else expectSame(E.isLeft(decoded) ? errJson(decoded.left) : 'completed', folded.left.toJSON(), 'decodeEvents error')
        count(E.isLeft(folded) ? 'operators: invalid inputs' : 'operators: valid inputs')
      }),
      opts,
    )
  })
})

describe('error locality', () => {
  it('the first bad event is reported (index, path, line) whatever follows it', async () => {
    await fc.assert(
      fc.asyncProperty(nativeTraceArb(), badEventArb, junkArb, junkArb, async (ok, bad, junk1, junk2) => {
        const a = foldEvents([...ok, bad.event, ...junk1])
        const b = foldEvents([...ok, bad.event, ...junk2])
        if (E.isRight(a) || E.isRight(b)) throw new Error('expected a protocol error')
        expect([a.left.kind, a.left.index]).toStrictEqual([bad.kind, ok.length])
        expectSame(a.left.toJSON(), b.left.toJSON(), 'error')
        // the same through the JSONL reader: the line is the bad event's line (blank lines count)
        const doc = toJsonl([...ok, bad.event, ...junk1.map((j) => (typeof j === 'string' ? `RAW:${j}` : j))], {
          unterminated: false,
          bom: false,
          crlf: [],
          blanks: [[0, '']],
          badUtf8At: undefined,
        })
        const r = await replay([doc.bytes], 'native')
        const e = r.error as { index: number; line: number; kind: string } | undefined
        expect(e === undefined ? undefined : [e.kind, e.index, e.line]).toStrictEqual([bad.kind, ok.length, ok.length + 2])
        count('error locality: cases')
      }),
      opts,
    )
  })
})

describe('step is pure', () => {
  it('never mutates its inputs: deep-frozen state and events, same result as the mutable fast path', () => {
    fc.assert(
      fc.property(nativeTraceArb(), (inputs) => {
        deepFreeze(inputs)
        let s: FoldState = deepFreeze(initialState())
        const before = encodeFoldState(s)
        inputs.forEach((x, i) => {
          const d = decodeEvent(x, i)
          if (E.isLeft(d)) throw new Error('valid trace failed to decode')
          const next = step(s, deepFreeze(d.right), i)
          // the same step again gives an equal state (no hidden state)
          expectSame(step(s, d.right, i), next, 'repeated step')
          s = deepFreeze(next)
        })
        expect(encodeFoldState(initialState())).toBe(before)
        const f = new NativeFolder()
        for (const x of inputs) f.push(x)
        expectSame(s, f.state, 'state')
        // foldEvents over frozen inputs works (nothing writes into caller objects)
        expect(E.isRight(foldEvents(inputs))).toBe(true)
        count('purity: events stepped', inputs.length)
      }),
      opts,
    )
  })
})

describe('codecs round-trip', () => {
  it('decodeEvent is idempotent through JSON; known events satisfy their data codec', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(nativeEventArb, fc.jsonValue({ maxDepth: 3 })), { maxLength: 20 }), (inputs) => {
        inputs.forEach((x, i) => {
          const d = decodeEvent(x, i)
          if (E.isLeft(d)) return
          const again = decodeEvent(JSON.parse(JSON.stringify(d.right)), i)
          if (E.isLeft(again)) throw new Error('a decoded event does not decode again')
          expectSame(again.right, JSON.parse(JSON.stringify(d.right)), 'decoded event')
          if (isKnownEventType(d.right.type)) expect((dataCodecs[d.right.type] as { is: (u: unknown) => boolean }).is(d.right.data)).toBe(true)
          count('codec: events round-tripped')
        })
      }),
      opts,
    )
  })

  it('FoldState and RunEnding: is() holds after every event; encode → decode gives the same value', () => {
    fc.assert(
      fc.property(nativeTraceArb(), (inputs) => {
        const f = new NativeFolder()
        for (const x of inputs) {
          f.push(x)
          expect(FoldStateCodec.is(f.state)).toBe(true)
          const r = currentResult(f.state)
          expect(RunEndingCodec.is(r.ending)).toBe(true)
          const e = RunEndingCodec.decode(JSON.parse(JSON.stringify(r.ending)))
          if (E.isLeft(e)) throw new Error('an ending does not decode')
          expectSame(e.right, r.ending, 'ending')
        }
        const back = decodeFoldState(encodeFoldState(f.state))
        if (E.isLeft(back)) throw new Error(`a state does not decode: ${back.left.message}`)
        expectSame(back.right, f.state, 'state')
        count('codec: states round-tripped')
      }),
      opts,
    )
  })
})

describe('hostile ids', () => {
  it('__proto__, constructor, toString … behave like any other id (renaming commutes with the fold)', () => {
    fc.assert(
      fc.property(maybeInvalidArb, renamingArb, (inputs, ren) => {
        const messageId = PLAIN_IDS.message
        const plain = foldRuns(inputs, { messageId })
        const hostile = foldRuns(
          inputs.map((x) => renameEvent(ren, x)),
          { messageId: ren[messageId] as string },
        )
        if (E.isLeft(plain)) {
          if (E.isRight(hostile)) throw new Error('renaming ids removed a protocol error')
          expectSame(hostile.left.toJSON(), plain.left.toJSON(), 'error')
        } else {
          if (E.isLeft(hostile)) throw new Error('renaming ids made a protocol error')
          expectSame(
            hostile.right,
            plain.right.map((r) => renameResult(ren, r)),
            'runs',
          )
        }
        const all = foldRuns(inputs.map((x) => renameEvent(ren, x)))
        const allPlain = foldRuns(inputs)
        if (E.isRight(all) && E.isRight(allPlain))
          expectSame(
            all.right,
            allPlain.right.map((r) => renameResult(ren, r)),
            'runs without messageId',
          )
        count('hostile ids: traces renamed')
      }),
      opts,
    )
  })

  it('no input changes Object.prototype: __proto__ / constructor.prototype keys on every object', async () => {
    const fingerprint = prototypeFingerprint()
    await fc.assert(
      fc.asyncProperty(maybeInvalidArb, async (inputs) => {
        const texts = inputs.map((x) => withPollutingKeys(x))
        const values = texts.map((t) => JSON.parse(t) as unknown)
        foldRuns(values)
        await settle(lastValueFrom(from(values).pipe(reduceRun())))
        const doc = Buffer.from(`${texts.join('\n')}\n`)
        await replay([doc], 'native')
        await replay([doc], 'auto')
        const f = new NativeFolder()
        for (const v of values) if (f.push(v) !== undefined) break
        decodeFoldState(encodeFoldState(f.state))
        expect(prototypesClean(fingerprint)).toBe(true)
        // the extra keys change nothing (they are not fields of the protocol)
        const plain = foldRuns(inputs)
        const keyed = foldRuns(values)
        if (E.isRight(plain) && E.isRight(keyed)) expectSame(keyed.right.map(withoutArguments), plain.right.map(withoutArguments), 'runs with extra keys')
        count('pollution: events with __proto__ keys', values.length)
      }),
      opts,
    )
  })
})

/** A result without pending tool arguments (opaque payloads kept as given, extra keys and all). */
const withoutArguments = (r: RunResult): unknown => {
  const strip = (e: RunResult['ending']): unknown => (e.kind === 'suspended' ? { ...e, pending: e.pending.map(({ arguments: _a, ...p }) => p) } : e)
  return { ...r, ending: strip(r.ending), children: r.children.map((c) => ({ ...c, ending: strip(c.ending) })) }
}

describe('figures', () => {
  it('prints what the properties tried', () => {
    for (const [k, v] of Object.entries(tally)) figure(`${k}: ${v}`)
    expect(Object.keys(tally).length).toBeGreaterThan(0)
  })
})

export type { ProtocolError }
