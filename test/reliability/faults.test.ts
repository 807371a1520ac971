/**
 * Live-stream faults in the operators: a source that errors mid-run (passed on untouched, or
 * `failed { phase: 'stream' }` on request), a slow consumer, an early unsubscribe (the state is dropped:
 * checked with WeakRef and a forced GC), and a source that never completes, where `runResults()` must emit
 * each finished run at the event that closes it.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import {
  asapScheduler,
  concat,
  concatMap,
  defer,
  finalize,
  from,
  interval,
  map,
  type Observable,
  observeOn,
  of,
  Subject,
  take,
  throwError,
  timer,
  toArray,
} from 'rxjs'
import { describe, expect, it } from 'vitest'
import { currentResult, foldEvents, initialState } from '../../src/core/fold.js'
import { resumeFold } from '../../src/core/resumeFold.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { decodeEvents, reduceRun, runResults, scanRun } from '../../src/operators/index.js'
import { expectSame } from './support/equal.js'
import { figure, FC_RUNS } from './support/runs.js'
import { nativeTraceArb, PLAIN_IDS } from './support/traces.js'

figure(`faults: ${FC_RUNS} runs per property (FC_NUM_RUNS)`)

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const collect = async (): Promise<void> => {
  for (let i = 0; i < 3; i++) {
    await new Promise((r) => setImmediate(r))
    gc()
  }
}

interface Notifications<A> {
  readonly values: Array<A>
  readonly error?: unknown
  readonly completed: boolean
}
const record = <A>(o: Observable<A>): Promise<Notifications<A>> =>
  new Promise((resolve) => {
    const values: Array<A> = []
    o.subscribe({
      next: (v) => values.push(v),
      error: (error: unknown) => resolve({ values, error, completed: false }),
      complete: () => resolve({ values, completed: true }),
    })
  })

const errorArb = fc.oneof(
  fc.string({ maxLength: 12 }).map((m) => new Error(m)),
  fc.string({ maxLength: 12 }).map((m) => new TypeError(m)),
  fc.constantFrom<unknown>('socket closed', { code: 'ECONNRESET' }, 42),
)
const tally = { errors: 0, slow: 0, unsubscribed: 0, hot: 0, emittedOnTime: 0 }

describe('a source that errors mid-run', () => {
  it('is passed on untouched (same error object) after what came before it, by every operator', async () => {
    await fc.assert(
      fc.asyncProperty(nativeTraceArb(30), fc.nat(), errorArb, async (trace, cut, error) => {
        const k = cut % (trace.length + 1)
        const src = concat(
          from(trace.slice(0, k)),
          throwError(() => error),
        )
        const prefix = resumeFold(initialState(), trace.slice(0, k))
        if (E.isLeft(prefix)) throw prefix.left
        const reduced = await record(src.pipe(reduceRun()))
        expect([reduced.values.length, reduced.error === error]).toStrictEqual([0, true])
        const runs = await record(src.pipe(runResults()))
        expect(runs.error === error).toBe(true)
        expectSame(runs.values, prefix.right.closed, 'runs before the error')
        const scans = await record(src.pipe(scanRun()))
        expect([scans.values.length, scans.error === error]).toStrictEqual([k, true])
        const decoded = await record(src.pipe(decodeEvents()))
        expect([decoded.values.length, decoded.error === error]).toStrictEqual([k, true])
        tally.errors++
      }),
      { numRuns: FC_RUNS },
    )
  })

  it("with sourceError: 'fail', ends the open run as failed in phase stream, keeping what it counted (between runs, the last run stands)", async () => {
    await fc.assert(
      fc.asyncProperty(nativeTraceArb(30), fc.nat(), errorArb, async (trace, cut, error) => {
        const k = cut % (trace.length + 1)
        const src = concat(
          from(trace.slice(0, k)),
          throwError(() => error),
        )
        const prefix = resumeFold(initialState(), trace.slice(0, k))
        if (E.isLeft(prefix)) throw prefix.left
        const st = prefix.right.state
        const open = st.run.draft
        const expectedError =
          error instanceof Error ? { message: error.message, name: error.name } : { message: typeof error === 'string' ? error : 'the source stream failed' }
        const check = (r: RunResult | undefined): void => {
          if (r === undefined) throw new Error('no result')
          expectSame(r.ending, { kind: 'failed', reason: 'error', phase: 'stream', error: expectedError }, 'ending')
          expectSame(
            [r.response, r.finishReason, r.turns, r.toolCalls, r.usage.inputTokens, r.usage.outputTokens, r.children.length],
            [null, st.run.finishReason, open.turns, open.toolCalls, open.usage.inputTokens, open.usage.outputTokens, open.children.length],
            'projections of the open run',
          )
        }
        // Between runs (nothing open) the error ends no run: reduceRun answers the last closed run as it was,
        // runResults adds nothing; with a run open, that run ends failed in phase stream.
        const open_ = st.run.draft.hasContent
        const reduced = await record(src.pipe(reduceRun({ sourceError: 'fail' })))
        expect([reduced.values.length, reduced.completed]).toStrictEqual([1, true])
        if (open_ || st.lastClosed === null) check(reduced.values[0])
        else expectSame(reduced.values[0], st.lastClosed, 'the last closed run stands')
        const runs = await record(src.pipe(runResults({ sourceError: 'fail' })))
        expect(runs.completed).toBe(true)
        if (open_) {
          expectSame(runs.values.slice(0, -1), prefix.right.closed, 'runs closed before the error')
          check(runs.values.at(-1))
        } else expectSame(runs.values, prefix.right.closed, 'runs closed before the error, and no other')
        tally.errors++
      }),
      { numRuns: FC_RUNS },
    )
  })

  it('a protocol error from the input is always an error notification, even with sourceError: fail', async () => {
    const bad = { type: 'turn/end', sessionId: 's', data: {} }
    const r = await record(from([{ type: 'turn/start', sessionId: 's', data: {} }, bad]).pipe(runResults({ sourceError: 'fail' })))
    expect([r.values.length, (r.error as { name: string; index: number }).name, (r.error as { index: number }).index]).toStrictEqual([0, 'ProtocolError', 1])
  })
})

describe('a slow consumer', () => {
  it('gets every run and every snapshot, in order and unchanged, however late it reads them', async () => {
    await fc.assert(
      fc.asyncProperty(nativeTraceArb(30), fc.boolean(), async (trace, realTime) => {
        // the source pushes everything at once; the consumer takes each value later (a timer or a microtask)
        const slow = <A>(o: Observable<A>): Observable<A> =>
          realTime
            ? o.pipe(concatMap((x) => timer(0).pipe(map(() => x))))
            : o.pipe(
                observeOn(asapScheduler),
                concatMap((x) => defer(() => Promise.resolve(x))),
              )
        const subject = new Subject<unknown>()
        const runsP = record(slow(subject.pipe(runResults())))
        const snapsP = record(slow(subject.pipe(scanRun())))
        for (const e of trace) subject.next(e)
        subject.complete()
        const [runs, snaps] = await Promise.all([runsP, snapsP])
        const fast = await record(from(trace).pipe(runResults()))
        expectSame(runs.values, fast.values, 'runs')
        expect(snaps.values.length).toBe(trace.length)
        // compared only now, after the whole stream: an emitted snapshot is never changed afterwards
        snaps.values.forEach((s, i) => {
          const f = foldEvents(trace.slice(0, i + 1))
          if (E.isLeft(f)) throw f.left
          expectSame(s, f.right, `snapshot ${i}`)
        })
        tally.slow++
      }),
      { numRuns: Math.max(20, Math.floor(FC_RUNS / 5)) },
    )
  })
})

describe('an early unsubscribe', () => {
  // The fold keeps a plain copy of each event it is handed (fields read once: core/plainData.ts), so the state
  // holds a copy of these arguments, not this object; a function inside them is kept as it is (not data), and
  // it is what the WeakRef watches: held while the state lives, gone once it is dropped.
  const pendingArgs = (): { arguments: object; event: unknown } => {
    const marker = (): string => 'rm -rf /tmp/x'
    const args = { cmd: marker, blob: 'x'.repeat(10_000) }
    return {
      arguments: marker,
      event: { type: 'turn/end', sessionId: 's', data: { turn: 1, reason: { kind: 'suspended', pending: [{ id: 'p', kind: 'approval', arguments: args }] } } },
    }
  }

  it.each([
    ['runResults', () => runResults()],
    ['scanRun', () => scanRun()],
    ['reduceRun', () => reduceRun()],
  ] as const)('%s: the source is unsubscribed and the fold state is dropped (WeakRef cleared after GC)', async (_name, op) => {
    const subject = new Subject<unknown>()
    let ref: WeakRef<object> | undefined
    const sub = (() => {
      const { arguments: args, event } = pendingArgs()
      ref = new WeakRef(args)
      const s = subject.pipe(op()).subscribe()
      subject.next({ type: 'turn/start', sessionId: 's', data: { turn: 1 } })
      subject.next(event)
      return s
    })()
    await collect()
    // while subscribed, the state holds the pending arguments …
    expect(ref?.deref()).toBeDefined()
    sub.unsubscribe()
    expect(subject.observed).toBe(false)
    await collect()
    // … and after the unsubscribe nothing does
    expect(ref?.deref()).toBeUndefined()
    tally.unsubscribed++
  })

  it('take(1) after the first run unsubscribes from a never-ending source and tears it down', async () => {
    let tornDown = false
    const events = [
      { type: 'turn/start', sessionId: 's', data: { turn: 1 } },
      { type: 'turn/end', sessionId: 's', data: { turn: 1, reason: { kind: 'completed' } } },
      { type: 'session/status', sessionId: 's', data: { status: 'idle' } },
    ]
    const source = interval(1).pipe(
      map((i) => events[i % events.length]),
      finalize(() => {
        tornDown = true
      }),
    )
    const r = await record(source.pipe(runResults(), take(1)))
    expect([r.values.length, r.values[0]?.ending, r.completed, tornDown]).toStrictEqual([1, { kind: 'answered' }, true, true])
  })

  it('10,000 subscribe/unsubscribe cycles on one hot source leave no observer behind', () => {
    const subject = new Subject<unknown>()
    for (let i = 0; i < 10_000; i++) {
      const s = subject.pipe(i % 2 === 0 ? runResults() : scanRun()).subscribe()
      subject.next({ type: 'turn/start', sessionId: 's', data: { turn: i } })
      s.unsubscribe()
    }
    expect(subject.observed).toBe(false)
    tally.unsubscribed += 10_000
  })
})

describe('a source that never completes', () => {
  it('runResults() emits each run at the very event that closes it (synchronously), and nothing else', () => {
    fc.assert(
      fc.property(nativeTraceArb(40), fc.option(fc.constant(PLAIN_IDS.message), { nil: undefined }), (trace, messageId) => {
        const o = messageId !== undefined ? { messageId } : {}
        const subject = new Subject<unknown>()
        const emitted: Array<RunResult> = []
        let completed = false
        subject.pipe(runResults(o)).subscribe({ next: (r) => emitted.push(r), complete: () => (completed = true) })
        let closed = 0
        trace.forEach((e, i) => {
          if (completed) return
          subject.next(e)
          const prefix = resumeFold(initialState(o), trace.slice(0, i + 1))
          if (E.isLeft(prefix)) throw prefix.left
          // on time: right after the closing event, the run is out; before it, it is not
          expectSame(emitted, prefix.right.closed, `runs after event ${i}`)
          if (prefix.right.closed.length > closed) tally.emittedOnTime += prefix.right.closed.length - closed
          closed = prefix.right.closed.length
          // with messageId the interval's end completes the operator and unsubscribes from the source
          if (prefix.right.state.done) expect([completed, subject.observed]).toStrictEqual([true, false])
        })
        if (!completed) expect(subject.observed).toBe(true)
        tally.hot++
      }),
      { numRuns: FC_RUNS },
    )
  })

  it('with real time: a run closed at t is emitted at t, while the source keeps going', async () => {
    const events = [
      { type: 'turn/start', sessionId: 's', data: { turn: 1 } },
      { type: 'assistant/message', sessionId: 's', data: { message: { content: [{ type: 'text', text: 'one' }] } } },
      { type: 'turn/end', sessionId: 's', data: { turn: 1, reason: { kind: 'completed' } } },
      { type: 'session/status', sessionId: 's', data: { status: 'idle' } },
    ]
    // how many events the source had produced when each result arrived (a count, not a clock: a loaded machine
    // can stall any timer, but it cannot reorder a synchronous emission)
    let produced = 0
    const producedAtEmission: Array<number> = []
    const source = interval(5).pipe(
      map((i) => {
        produced++
        return events[i % events.length]
      }),
    )
    const results = await new Promise<Array<RunResult>>((resolve) => {
      const out: Array<RunResult> = []
      const sub = source.pipe(runResults()).subscribe((r) => {
        producedAtEmission.push(produced)
        out.push(r)
        if (out.length === 3) {
          sub.unsubscribe()
          resolve(out)
        }
      })
    })
    expect(results.map((r) => [r.ending.kind, r.response])).toStrictEqual([
      ['answered', 'one'],
      ['answered', 'one'],
      ['answered', 'one'],
    ])
    // each result left in the same tick as its idle, before the source produced the next event
    expect(producedAtEmission).toStrictEqual([1, 2, 3].map((k) => k * events.length))
  })

  it('figures', () => {
    figure(
      `faults: ${tally.errors} source errors injected mid-stream, ${tally.slow} slow-consumer traces, ${tally.unsubscribed} early unsubscribes, ${tally.hot} never-completing traces (${tally.emittedOnTime} runs emitted on time)`,
    )
    expect(tally.errors).toBeGreaterThan(0)
  })
})

export { of, toArray, currentResult }
