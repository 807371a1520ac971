/**
 * The resumable fold: `FoldState` is a plain JSON value with its own io-ts codec, so a consumer can
 * checkpoint it after any event and resume. Folding a prefix, encoding the state to JSON, decoding it and
 * folding the rest equals folding the whole — at any number of checkpoints, with valid or invalid input.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { currentResult, foldRuns, hasOpenRun, initialState, NativeFolder, type FoldOptions, type FoldState } from '../../src/core/fold.js'
import { resumeFold } from '../../src/core/resumeFold.js'
import { decodeFoldState, encodeFoldState } from '../../src/core/FoldStateCodec.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { expectSame } from './support/equal.js'
import { renameEvent, renamingArb } from './support/ids.js'
import { figure, FC_RUNS } from './support/runs.js'
import { badEventArb, junkArb, nativeTraceArb, PLAIN_IDS } from './support/traces.js'

figure(`resume: ${FC_RUNS} runs per property (FC_NUM_RUNS)`)

const tally = { traces: 0, checkpoints: 0, invalid: 0, corrupted: 0, corruptedAccepted: 0 }

const traceArb = fc.oneof(
  nativeTraceArb(40),
  fc.tuple(nativeTraceArb(30), badEventArb, junkArb).map(([a, b, c]) => [...a, b.event, ...c]),
)
const optionsArb: fc.Arbitrary<FoldOptions> = fc.constantFrom<FoldOptions>({}, { messageId: PLAIN_IDS.message }, { file: 'log.jsonl' })

/** Folds `events` with a JSON checkpoint at each cut; the runs closed on the way plus the open run at the end. */
const foldWithCheckpoints = (events: ReadonlyArray<unknown>, cuts: ReadonlyArray<number>, options: FoldOptions): E.Either<unknown, Array<RunResult>> => {
  const points = [...new Set(cuts.map((c) => c % (events.length + 1)))].sort((a, b) => a - b)
  let state: FoldState = initialState(options)
  const runs: Array<RunResult> = []
  let prev = 0
  for (const p of [...points, events.length]) {
    const r = resumeFold(state, events.slice(prev, p))
    if (E.isLeft(r)) return E.left(r.left.toJSON())
    runs.push(...r.right.closed)
    // checkpoint: to JSON text and back through the codec
    const text = encodeFoldState(r.right.state)
    const back = decodeFoldState(text)
    if (E.isLeft(back)) throw new Error(`a checkpoint did not decode: ${back.left.message}`)
    expectSame(back.right, r.right.state, 'restored state')
    state = back.right
    prev = p
    tally.checkpoints++
  }
  // as foldRuns: the open run at the end, or one unfinished run when the input had none
  if (hasOpenRun(state) || runs.length === 0) runs.push(currentResult(state))
  return E.right(runs)
}

describe('resumable fold', () => {
  it('prefix → JSON checkpoint → decode → rest equals the whole, at up to 5 checkpoints', () => {
    fc.assert(
      fc.property(traceArb, fc.array(fc.nat(), { minLength: 1, maxLength: 5 }), optionsArb, (events, cuts, options) => {
        const whole = foldRuns(events, options)
        const resumed = foldWithCheckpoints(events, cuts, options)
        if (E.isLeft(whole)) {
          tally.invalid++
          expectSame(resumed, E.left(whole.left.toJSON()), 'error after resuming')
        } else expectSame(resumed, E.right(whole.right), 'runs after resuming')
        tally.traces++
      }),
      { numRuns: FC_RUNS },
    )
  })

  it('a consumer resuming with NativeFolder(options, decodedState) sees the same state as one that never stopped', () => {
    fc.assert(
      fc.property(nativeTraceArb(40), fc.nat(), renamingArb, fc.boolean(), (plain, cut, ren, hostile) => {
        const events = hostile ? plain.map((e) => renameEvent(ren, e)) : plain
        const k = cut % (events.length + 1)
        const first = new NativeFolder()
        for (const e of events.slice(0, k)) first.push(e)
        const back = decodeFoldState(encodeFoldState(first.state))
        if (E.isLeft(back)) throw new Error('checkpoint did not decode')
        const second = new NativeFolder({}, back.right)
        for (const e of events.slice(k)) second.push(e)
        const straight = new NativeFolder()
        for (const e of events) straight.push(e)
        expectSame(second.state, straight.state, 'state')
      }),
      { numRuns: FC_RUNS },
    )
  })

  it('the state is a plain value: only plain objects and arrays, finite numbers, JSON and structuredClone round-trip', () => {
    fc.assert(
      fc.property(nativeTraceArb(40), (events) => {
        const f = new NativeFolder()
        for (const e of events) f.push(e)
        const stack: Array<unknown> = [f.state]
        while (stack.length > 0) {
          const v = stack.pop()
          if (typeof v === 'number') expect(Number.isFinite(v)).toBe(true)
          else if (typeof v === 'object' && v !== null) {
            const proto = Object.getPrototypeOf(v)
            expect(proto === Object.prototype || proto === Array.prototype || proto === null).toBe(true)
            for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k])
          } else expect(['string', 'boolean'].includes(typeof v) || v === null).toBe(true)
        }
        expectSame(JSON.parse(JSON.stringify(f.state)), JSON.parse(JSON.stringify(structuredClone(f.state))), 'structuredClone')
      }),
      { numRuns: FC_RUNS },
    )
  })

  it('a corrupted checkpoint is rejected with a ProtocolError or, when still a state, resumes without throwing', () => {
    fc.assert(
      fc.property(
        nativeTraceArb(20),
        fc.nat(),
        fc.nat(),
        fc.constantFrom('cut', 'flip', 'null', 'string', 'array', 'negative', 'drop'),
        (events, a, b, how) => {
          const f = new NativeFolder()
          for (const e of events) f.push(e)
          const text = encodeFoldState(f.state)
          const i = a % text.length
          let bad: string
          switch (how) {
            case 'cut':
              bad = text.slice(0, i)
              break
            case 'flip':
              bad = `${text.slice(0, i)}${String.fromCharCode(32 + (b % 90))}${text.slice(i + 1)}`
              break
            default: {
              const obj = JSON.parse(text) as Record<string, unknown>
              const paths: Array<[Record<string, unknown>, string]> = []
              const stack: Array<unknown> = [obj]
              while (stack.length > 0) {
                const v = stack.pop()
                if (typeof v === 'object' && v !== null)
                  for (const k of Object.keys(v)) {
                    paths.push([v as Record<string, unknown>, k])
                    stack.push((v as Record<string, unknown>)[k])
                  }
              }
              const [holder, key] = paths[b % paths.length] as [Record<string, unknown>, string]
              if (how === 'drop') delete holder[key]
              else holder[key] = how === 'null' ? null : how === 'string' ? 'x' : how === 'array' ? [] : -1
              bad = JSON.stringify(obj)
            }
          }
          tally.corrupted++
          const back = decodeFoldState(bad)
          if (E.isRight(back)) {
            tally.corruptedAccepted++
            // still shaped like a state: resuming must not throw
            resumeFold(back.right, events)
            currentResult(back.right)
          } else expect(back.left.name).toBe('ProtocolError')
        },
      ),
      { numRuns: FC_RUNS },
    )
  })

  it('a re-delivery after a checkpoint is still dropped (the seq memory is part of the state)', () => {
    const ev = (seq: number, type: string, data: unknown) => ({ type, sessionId: 's', seq, data })
    const a = [
      ev(1, 'turn/start', { turn: 1 }),
      ev(2, 'assistant/message', { message: { content: [{ type: 'text', text: 'a' }] }, usage: { inputTokens: 10, outputTokens: 1 } }),
    ]
    const b = [a[1], ev(3, 'turn/end', { turn: 1, reason: { kind: 'completed' } })]
    const first = resumeFold(initialState(), a)
    if (E.isLeft(first)) throw first.left
    const back = decodeFoldState(encodeFoldState(first.right.state))
    if (E.isLeft(back)) throw back.left
    const second = resumeFold(back.right, b)
    if (E.isLeft(second)) throw second.left
    const r = currentResult(second.right.state)
    expect([r.ending.kind, r.usage.inputTokens, r.diagnostics]).toStrictEqual([
      'answered',
      10,
      [{ message: 'dropped a repeated delivery (seq 2 was already applied in this session)' }],
    ])
  })

  it('figures', () => {
    figure(
      `resume: ${tally.traces} traces with ${tally.checkpoints} JSON checkpoints (${tally.invalid} invalid); ${tally.corrupted} corrupted checkpoints (${tally.corruptedAccepted} still state-shaped, resumed)`,
    )
    expect(tally.traces).toBeGreaterThan(0)
  })
})
