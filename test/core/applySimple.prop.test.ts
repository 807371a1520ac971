/**
 * core/fold: `applyEvent`'s shortcut for the most frequent events (text deltas, steps, tool calls and results,
 * turn starts, inbox receipts of the root session in mid-run) changes the state exactly as the general path
 * (`applyGeneral`) does — after every event, in replay and live mode, with and without an owned interval, with
 * repeated, late and missing `seq`s, events of children and of no session, translated lines and record types.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/core/events.js'
import { applyEvent, applyGeneral, endFold, initialState, type FoldOptions, type FoldState, type SeqCache } from '../../src/core/fold.js'
import { numRuns } from '../support/arbitraries.js'

const simpleTypes = ['assistant/chunk', 'step/start', 'step/end', 'tool/call', 'tool/result', 'turn/start', 'agent/inbox/spliced'] as const

const dataOf = (type: string, n: number): Record<string, unknown> => {
  switch (type) {
    case 'assistant/chunk':
      return { turn: 1, step: 1, chunk: { type: 'text-delta', text: `t${n}` } }
    case 'tool/call':
      return { callId: `c${n}`, name: 'Bash', arguments: '{}' }
    case 'tool/result':
      return { callId: `c${n}`, message: 'ok' }
    case 'agent/inbox/spliced':
      return { inserted: [{ id: n % 3 === 0 ? 'mine' : `m${n}` }] }
    case 'turn/end':
      return { turn: 1, reason: { kind: n % 4 === 0 ? 'max-tokens' : 'completed' } }
    case 'session/status':
      return { status: n % 3 === 0 ? 'running' : 'idle' }
    case 'subagent/started':
      return { parentSessionId: 'root', childSessionId: 'kid' }
    case 'assistant/message':
      return { message: { content: [{ type: 'text', text: `a${n}` }] }, usage: { inputTokens: n, outputTokens: 1 }, model: n % 2 ? 'm1' : 'm2' }
    default:
      return { turn: 1, step: 1 }
  }
}

/** One event: mostly the shortcut's types from the root, with every envelope variation the shortcut must refuse. */
const eventArb = fc
  .record({
    type: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...simpleTypes) },
      { weight: 2, arbitrary: fc.constantFrom('turn/end', 'session/status', 'subagent/started', 'assistant/message', 'source/record', 'session/started') },
    ),
    session: fc.oneof({ weight: 6, arbitrary: fc.constant('root') }, { weight: 1, arbitrary: fc.constantFrom('kid', null, '__proto__') }),
    // the seq step: mostly up by one, sometimes a repeat, a lower one, or none
    seq: fc.oneof({ weight: 6, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.constantFrom(0, -2, -5, null) }),
    line: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(0, 7) }),
    recordType: fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constant('raw') }),
    time: fc.oneof(fc.constant(undefined), fc.nat(1e6)),
    n: fc.nat(20),
  })
  .map((r) => r)

type Spec = typeof eventArb extends fc.Arbitrary<infer T> ? T : never

/** The events of a trace, with seqs made from the steps (per session). */
const build = (specs: ReadonlyArray<Spec>): Array<SessionEvent> => {
  const seqs = new Map<string | null, number>()
  return specs.map((r) => {
    let seq: number | undefined
    if (r.seq !== null) {
      const prev = seqs.get(r.session) ?? 0
      seq = Math.max(0, prev + r.seq)
      if (r.seq > 0) seqs.set(r.session, seq)
    }
    return {
      type: r.type,
      sessionId: r.session,
      ...(seq !== undefined ? { seq } : {}),
      ...(r.time !== undefined ? { time: r.time } : {}),
      ...(r.line !== undefined ? { line: r.line } : {}),
      ...(r.recordType !== undefined ? { recordType: r.recordType } : {}),
      data: dataOf(r.type, r.n),
    } as unknown as SessionEvent
  })
}

const optionsArb: fc.Arbitrary<FoldOptions> = fc.record({ hold: fc.boolean(), messageId: fc.constantFrom(undefined, 'mine') }).map((o) => ({
  hold: o.hold,
  ...(o.messageId !== undefined ? { messageId: o.messageId } : {}),
}))

/** The shortcut's preconditions, restated: the events where the test compares it with the general path. */
const shortcutApplies = (s: FoldState, ev: SessionEvent, cache: SeqCache | undefined): boolean =>
  !s.done &&
  s.open &&
  !s.afterClose &&
  s.root !== null &&
  ev.sessionId === s.root &&
  ev.line === undefined &&
  simpleTypes.includes(ev.type as (typeof simpleTypes)[number]) &&
  (ev.seq === undefined || (cache !== undefined && cache.id === s.root && cache.mem !== undefined && ev.seq > cache.mem.max))

describe('applyEvent shortcut', () => {
  it('gives the state the general path gives, after every event (with the seq cache, and without)', () => {
    let shortcut = 0
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 60 }), optionsArb, (specs, options) => {
        const events = build(specs)
        for (const withCache of [true, false]) {
          const a = initialState(options)
          const b = initialState(options)
          const ca: SeqCache | undefined = withCache ? { id: null, mem: undefined } : undefined
          const cb: SeqCache | undefined = withCache ? { id: null, mem: undefined } : undefined
          events.forEach((ev, i) => {
            if (shortcutApplies(a, ev, ca)) shortcut++
            applyEvent(a, ev, i + 1, ca)
            applyGeneral(b, ev, i + 1, cb)
            expect([i, JSON.stringify(a)]).toStrictEqual([i, JSON.stringify(b)])
          })
          expect(endFold(a)).toStrictEqual(endFold(b))
        }
      }),
      { numRuns: numRuns() * 5 },
    )
    // the traces did exercise the shortcut's types (not a test that cannot fail for want of input)
    expect(shortcut).toBeGreaterThan(100)
  })

  it('takes the shortcut for a text delta of the root in mid-run, with the same state as the general path', () => {
    const evs = [
      { type: 'turn/start', sessionId: 'root', seq: 1, time: 10, data: { turn: 1 } },
      { type: 'assistant/chunk', sessionId: 'root', seq: 2, time: 20, data: { turn: 1, chunk: { type: 'text-delta', text: 'a' } } },
      { type: 'tool/call', sessionId: 'root', seq: 3, time: 30, data: { callId: 'c', name: 'Bash' } },
      { type: 'assistant/chunk', sessionId: 'root', seq: 3, time: 40, data: { turn: 1 } },
    ] as unknown as Array<SessionEvent>
    const a = initialState({ hold: true })
    const b = initialState({ hold: true })
    const ca: SeqCache = { id: null, mem: undefined }
    const cb: SeqCache = { id: null, mem: undefined }
    evs.forEach((ev, i) => {
      applyEvent(a, ev, i + 1, ca)
      applyGeneral(b, ev, i + 1, cb)
    })
    expect(a).toStrictEqual(b)
    // the repeated seq 3 was dropped with a diagnostic; the tool call and the turn counted once
    expect(a.run.draft.toolCalls).toBe(1)
    expect(a.run.draft.turns).toBe(1)
    // the dropped delivery is not the run's last record
    expect(a.run.draft.lastLine).toBe(3)
    expect(a.run.draft.lastTime).toBe(30)
    expect(a.run.lastEventType).toBe('tool/call')
    expect(a.run.draft.diagnostics.map((d) => d.message)).toStrictEqual(['dropped a repeated delivery (seq 3 was already applied in this session)'])
  })
})
