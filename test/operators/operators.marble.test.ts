import * as E from 'fp-ts/lib/Either.js'
import { mergeMap, of, take, from, tap } from 'rxjs'
import { describe, expect, it } from 'vitest'
import { foldEvents, foldRuns } from '../../src/core/fold.js'
import { decodeEvent } from '../../src/core/decodeEvent.js'
import { decodeEvents, reduceRun, runResults, scanRun } from '../../src/operators/index.js'
import { scheduler } from '../support/marbles.js'
import { ev, idle, said, turnEnd, turnStart } from '../support/native.js'

const a = turnStart(1)
const b = said('hi', { inputTokens: 3, outputTokens: 2 })
const c = turnEnd(1, { kind: 'completed' })
const i = idle()
const bad = ev('turn/end', { turn: 1 })
const fold = (xs: unknown[]) =>
  E.getOrElseW((e) => {
    throw e
  })(foldEvents(xs))
const runs = (xs: unknown[]) =>
  E.getOrElseW((e) => {
    throw e
  })(foldRuns(xs))
const err = (xs: unknown[]) => {
  const r = foldEvents(xs)
  if (E.isRight(r)) throw new Error('expected an error')
  return r.left
}
const decoded = (x: unknown, n: number) =>
  E.getOrElseW((e) => {
    throw e
  })(decodeEvent(x, n))

describe('decodeEvents()', () => {
  it('happy path', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-c|', { a, b, c }).pipe(decodeEvents())).toBe('a-b-c|', { a: decoded(a, 0), b: decoded(b, 1), c: decoded(c, 2) })
    }))
  it('empty source', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('|').pipe(decodeEvents())).toBe('|')
    }))
  it('never', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-').pipe(decodeEvents())).toBe('-')
    }))
  it('passes a source error through', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-#', { a }, new Error('socket closed')).pipe(decodeEvents())).toBe('a-#', { a: decoded(a, 0) }, new Error('socket closed'))
    }))
  it('a malformed event is an error notification and the source is unsubscribed', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-x-c|', { a, x: bad, c })
      expectObservable(src.pipe(decodeEvents())).toBe('a-#', { a: decoded(a, 0) }, err([a, bad]))
      expectSubscriptions(src.subscriptions).toBe('^-!')
    }))
  it('early unsubscribe', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-b-c|', { a, b, c })
      expectObservable(src.pipe(decodeEvents()), '^--!').toBe('a-b', { a: decoded(a, 0), b: decoded(b, 1) })
      expectSubscriptions(src.subscriptions).toBe('^--!')
    }))
  it('counts the index per subscription', () =>
    scheduler().run(({ cold, expectObservable }) => {
      const piped = cold('a-x|', { a, x: bad }).pipe(decodeEvents())
      expectObservable(piped).toBe('a-#', { a: decoded(a, 0) }, err([a, bad]))
      expectObservable(piped).toBe('a-#', { a: decoded(a, 0) }, err([a, bad]))
    }))
})

describe('scanRun()', () => {
  it('emits the fold of each prefix', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-c|', { a, b, c }).pipe(scanRun())).toBe('a-b-c|', { a: fold([a]), b: fold([a, b]), c: fold([a, b, c]) })
    }))
  it('empty source emits nothing', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('|').pipe(scanRun())).toBe('|')
    }))
  it('passes a source error through', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a#', { a }, new Error('x')).pipe(scanRun())).toBe('a#', { a: fold([a]) }, new Error('x'))
    }))
  it('malformed event → error, source unsubscribed', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-x-c|', { a, x: bad, c })
      expectObservable(src.pipe(scanRun())).toBe('a-#', { a: fold([a]) }, err([a, bad]))
      expectSubscriptions(src.subscriptions).toBe('^-!')
    }))
  it('early unsubscribe', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-b-c|', { a, b, c })
      expectObservable(src.pipe(scanRun()), '^-!').toBe('a-', { a: fold([a]) })
      expectSubscriptions(src.subscriptions).toBe('^-!')
    }))
  it('two subscribers have independent state', () =>
    scheduler().run(({ cold, expectObservable }) => {
      const piped = cold('a-b|', { a, b }).pipe(scanRun())
      expectObservable(piped).toBe('a-b|', { a: fold([a]), b: fold([a, b]) })
      expectObservable(piped).toBe('a-b|', { a: fold([a]), b: fold([a, b]) })
    }))
})

describe('reduceRun()', () => {
  it('one result on completion', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-c|', { a, b, c }).pipe(reduceRun())).toBe('-----(r|)', { r: fold([a, b, c]) })
    }))
  it('empty source gives one unfinished run', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('|').pipe(reduceRun())).toBe('(r|)', { r: { ...fold([]), ending: { kind: 'unfinished' } } })
    }))
  it('never emits nothing', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-').pipe(reduceRun())).toBe('-')
    }))
  it('passes a source error through', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-#', { a }, new Error('x')).pipe(reduceRun())).toBe('--#', undefined, new Error('x'))
    }))
  it("sourceError: 'fail' ends the run as failed in phase stream", () =>
    scheduler().run(({ cold, expectObservable }) => {
      const r = fold([a, b])
      expectObservable(cold('a-b-#', { a, b }, new Error('connection reset')).pipe(reduceRun({ sourceError: 'fail' }))).toBe('----(r|)', {
        r: { ...r, ending: { kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'connection reset', name: 'Error' } }, response: null },
      })
    }))
  it("sourceError: 'fail' between runs: the last run stands", () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-c-i-#', { a, c, i }, new Error('gone')).pipe(reduceRun({ sourceError: 'fail' }))).toBe('------(r|)', { r: runs([a, c, i])[0] })
    }))
  it('malformed event → error, source unsubscribed', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-x-c|', { a, x: bad, c })
      expectObservable(src.pipe(reduceRun())).toBe('--#', undefined, err([a, bad]))
      expectSubscriptions(src.subscriptions).toBe('^-!')
    }))
  it('early unsubscribe', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-b-c|', { a, b, c })
      expectObservable(src.pipe(reduceRun()), '^-!').toBe('--')
      expectSubscriptions(src.subscriptions).toBe('^-!')
    }))
  it('two subscribers have independent state', () =>
    scheduler().run(({ cold, expectObservable }) => {
      const piped = cold('a-c|', { a, c }).pipe(reduceRun())
      expectObservable(piped).toBe('---(r|)', { r: fold([a, c]) })
      expectObservable(piped).toBe('---(r|)', { r: fold([a, c]) })
    }))
  it('does not break unsubscription chains', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-b-c|', { a, b, c })
      const piped = src.pipe(
        mergeMap((x) => of(x)),
        reduceRun(),
        mergeMap((x) => of(x)),
      )
      expectObservable(piped, '^-!').toBe('--')
      expectSubscriptions(src.subscriptions).toBe('^-!')
    }))
})

describe('runResults()', () => {
  it('emits each run as its root idle arrives, before completion', () =>
    scheduler().run(({ cold, expectObservable }) => {
      const r1 = runs([a, b, c, i])[0]
      expectObservable(cold('a-b-c-i---a-c|', { a, b, c, i }).pipe(runResults())).toBe('------x------(y|)', {
        x: r1,
        y: runs([a, b, c, i, a, c])[1],
      })
    }))
  it("sourceError: 'fail' after a closed run emits no extra run; mid-run it ends the run as failed", () =>
    scheduler().run(({ cold, expectObservable }) => {
      const r1 = runs([a, c, i])[0]
      expectObservable(cold('a-c-i-#', { a, c, i }, new Error('gone')).pipe(runResults({ sourceError: 'fail' }))).toBe('----x-|', { x: r1 })
      const open = runs([a, c, i, a])[1]
      expectObservable(cold('a-c-i-a-#', { a, c, i }, new Error('gone')).pipe(runResults({ sourceError: 'fail' }))).toBe('----x---(y|)', {
        x: r1,
        y: { ...open, ending: { kind: 'failed', reason: 'error', phase: 'stream', error: { message: 'gone', name: 'Error' } }, response: null },
      })
    }))
  it('a never-completing source still gets each result on time', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-c-i-----', { a, c, i }).pipe(runResults())).toBe('----x-----', { x: runs([a, c, i])[0] })
    }))
  it('empty source emits nothing', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('|').pipe(runResults())).toBe('|')
    }))
  it('passes a source error through', () =>
    scheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-#', { a }, new Error('x')).pipe(runResults())).toBe('--#', undefined, new Error('x'))
    }))
  it('malformed event → error, source unsubscribed', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-x-c|', { a, x: bad, c })
      expectObservable(src.pipe(runResults())).toBe('--#', undefined, err([a, bad]))
      expectSubscriptions(src.subscriptions).toBe('^-!')
    }))
  it('early unsubscribe', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const src = cold('a-c-i-a-c-i|', { a, c, i })
      expectObservable(src.pipe(runResults()), '^------!').toBe('----x--', { x: runs([a, c, i])[0] })
      expectSubscriptions(src.subscriptions).toBe('^------!')
    }))
  it('with messageId: drops events before the receipt, completes at the idle and unsubscribes', () =>
    scheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const receipt = ev('agent/inbox/spliced', { inserted: [{ id: 'm1' }] })
      const src = cold('a-c-i-r-a-c-i-a|', { a, c, i, r: receipt })
      const expected = E.getOrElseW((e) => {
        throw e
      })(foldRuns([a, c, i, receipt, a, c, i, a], { messageId: 'm1' }))
      expectObservable(src.pipe(runResults({ messageId: 'm1' }))).toBe('------------(x|)', { x: expected[0] })
      expectSubscriptions(src.subscriptions).toBe('^-----------!')
    }))
  it('two subscribers have independent state', () =>
    scheduler().run(({ cold, expectObservable }) => {
      const piped = cold('a-c-i|', { a, c, i }).pipe(runResults())
      expectObservable(piped).toBe('----x|', { x: runs([a, c, i])[0] })
      expectObservable(piped).toBe('----x|', { x: runs([a, c, i])[0] })
    }))
  it('stops listening to a synchronous source after take(n)', () => {
    const seen: unknown[] = []
    const out: unknown[] = []
    from([a, c, i, a, c, i, a, c, i])
      .pipe(
        tap((x) => seen.push(x)),
        runResults(),
        take(1),
      )
      .subscribe((r) => out.push(r))
    expect(out).toHaveLength(1)
    expect(seen).toHaveLength(3)
  })
})
