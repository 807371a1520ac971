import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { foldEvents, foldRuns, initialState, step, currentResult } from '../../src/core/fold.js'
import { decodeEvent } from '../../src/core/decodeEvent.js'
import type { RunResult } from '../../src/core/RunResult.js'
import { type ProtocolError, isProtocolError } from '../../src/core/ProtocolError.js'
import { answeredRun, ev, finished, idle, said, started, toolCall, turnEnd, turnStart } from '../support/native.js'

const right = (x: E.Either<ProtocolError, RunResult>): RunResult => {
  if (E.isLeft(x)) throw new Error(`expected Right, got ${x.left.message}`)
  return x.right
}
const left = (x: E.Either<ProtocolError, unknown>): ProtocolError => {
  if (E.isRight(x)) throw new Error('expected Left')
  return x.left
}

describe('turn/end reasons → endings (SPEC §4 table)', () => {
  const cases: Array<[unknown, unknown]> = [
    [{ kind: 'completed' }, { kind: 'answered' }],
    [{ kind: 'max-tokens' }, { kind: 'cut_off', finishReason: 'max_tokens' }],
    [{ kind: 'refusal' }, { kind: 'cut_off', finishReason: 'refusal' }],
    [{ kind: 'context-window' }, { kind: 'cut_off', finishReason: 'context_window' }],
    [{ kind: 'content-filter' }, { kind: 'cut_off', finishReason: 'content_filter' }],
    [
      { kind: 'aborted', reason: { kind: 'user' } },
      { kind: 'stopped', by: 'caller' },
    ],
    [
      { kind: 'aborted', reason: { kind: 'parent' } },
      { kind: 'stopped', by: 'parent' },
    ],
    [
      { kind: 'aborted', reason: { kind: 'hook', reason: 'budget hook' } },
      { kind: 'stopped', by: 'hook', reason: 'budget hook' },
    ],
    [
      { kind: 'aborted', reason: { kind: 'disposed' } },
      { kind: 'stopped', by: 'abandoned' },
    ],
    [
      { kind: 'aborted', reason: { kind: 'legacy' } },
      { kind: 'stopped', by: 'caller' },
    ],
    [
      { kind: 'blocked', guardrail: 'pii', phase: 'output', message: 'no' },
      { kind: 'blocked', guardrail: 'pii', phase: 'output', reason: 'no' },
    ],
    [
      { kind: 'limit', reason: 'request_limit', field: 'max_requests', actual: 5, limit: 5 },
      { kind: 'limit', reason: 'request_limit', field: 'max_requests', actual: 5, limit: 5 },
    ],
    [
      { kind: 'suspended', pending: [{ id: 'p1', kind: 'approval', toolName: 'Bash', arguments: '{"cmd":"rm"}' }] },
      { kind: 'suspended', pending: [{ id: 'p1', kind: 'approval', toolName: 'Bash', arguments: '{"cmd":"rm"}' }] },
    ],
    [
      { kind: 'error', error: { message: 'boom', code: 'E1' } },
      { kind: 'failed', reason: 'error', error: { message: 'boom', code: 'E1' } },
    ],
    [{ kind: 'interrupted' }, { kind: 'failed', reason: 'interrupted' }],
    [{ kind: 'galaxy-brain' }, { kind: 'failed', reason: 'unrecognized', raw: 'galaxy-brain' }],
  ]
  it.each(cases)('%j', (reason, ending) => {
    const r = right(foldEvents([turnStart(1), turnEnd(1, reason)]))
    expect(r.ending).toStrictEqual(ending)
    expect(r.finishReason).toBe((reason as { kind: string }).kind)
  })
})

describe('foldEvents', () => {
  it('answers with the last root assistant text, usage and cost', () => {
    const r = right(foldEvents(answeredRun('Hello there')))
    expect(r.ending).toStrictEqual({ kind: 'answered' })
    expect(r.response).toBe('Hello there')
    expect(r.turns).toBe(1)
    expect(r.usage.inputTokens).toBe(10)
    expect(r.usage.outputTokens).toBe(5)
    expect(r.cost).toStrictEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(r.sessionId).toBe('root')
    expect(r.format).toBe('native')
  })

  it('empty input is one unfinished run', () => {
    const r = right(foldEvents([]))
    expect(r.ending).toStrictEqual({ kind: 'unfinished' })
    expect(r.finishReason).toBeNull()
    expect(r.response).toBeNull()
  })

  it('a missing terminal event is unfinished, never answered (SPEC §2 rule 2; K10)', () => {
    const r = right(foldEvents([turnStart(1), said('partial answer'), toolCall('c1')]))
    expect(r.ending).toStrictEqual({ kind: 'unfinished', lastEventType: 'tool/call' })
    expect(r.response).toBeNull()
  })

  it('max-tokens is sticky within its turn; a new turn clears it', () => {
    expect(right(foldEvents([turnStart(1), turnEnd(1, { kind: 'max-tokens' }), turnEnd(1, { kind: 'completed' })])).ending).toStrictEqual({
      kind: 'cut_off',
      finishReason: 'max_tokens',
    })
    expect(right(foldEvents([turnStart(1), turnEnd(1, { kind: 'max-tokens' }), turnStart(2), turnEnd(2, { kind: 'completed' })])).ending).toStrictEqual({
      kind: 'answered',
    })
  })

  it('the last root turn/end wins across turns of one run', () => {
    const r = right(
      foldEvents([turnStart(1), turnEnd(1, { kind: 'error', error: { message: 'x' } }), turnStart(2), said('ok'), turnEnd(2, { kind: 'completed' })]),
    )
    expect(r.ending).toStrictEqual({ kind: 'answered' })
    expect(r.turns).toBe(2)
    expect(r.finishReason).toBe('completed')
  })

  it('a subagent never sets the ending or the response (K9); its usage counts', () => {
    const r = right(
      foldEvents([
        turnStart(1),
        said('root answer', { inputTokens: 100, outputTokens: 10 }, { costUsd: 0.01, model: 'a' }),
        started('root', 'kid'),
        said('child answer', { inputTokens: 50, outputTokens: 5, cacheReadTokens: 7 }, { costUsd: 0.02, model: 'b' }, 'kid'),
        turnEnd(1, { kind: 'error', error: { message: 'child broke' } }, 'kid'),
        turnEnd(1, { kind: 'completed' }),
      ]),
    )
    expect(r.ending).toStrictEqual({ kind: 'answered' })
    expect(r.response).toBe('root answer')
    expect(r.children).toStrictEqual([
      { sessionId: 'kid', ending: { kind: 'failed', reason: 'error', error: { message: 'child broke' } }, finishReason: 'error' },
    ])
    expect(r.usage.inputTokens).toBe(150)
    expect(r.usage.cacheReadTokens).toBe(7)
    expect(r.usage.byModel['b']).toStrictEqual({ inputTokens: 50, cacheReadTokens: 7, cacheWriteTokens: 0, outputTokens: 5, reasoningTokens: 0, costUsd: 0.02 })
    expect(r.cost).toStrictEqual({ totalUsd: 0.03, complete: true, missing: 0 })
  })

  it('subagent/finished sets the child ending from its stop reason', () => {
    const r = right(foldEvents([turnStart(1), started('root', 'kid'), finished('root', 'kid', 'max-tokens'), turnEnd(1, { kind: 'completed' })]))
    expect(r.children).toStrictEqual([{ sessionId: 'kid', ending: { kind: 'cut_off', finishReason: 'max_tokens' }, finishReason: 'max-tokens' }])
  })

  it('a missing cost is not zero (K12)', () => {
    const r = right(
      foldEvents([
        turnStart(1),
        said('a', { inputTokens: 1, outputTokens: 1 }, { costUsd: 0.5, model: 'priced' }),
        said('b', { inputTokens: 1, outputTokens: 1 }, { model: 'unpriced' }),
        turnEnd(1, { kind: 'completed' }),
      ]),
    )
    expect(r.cost).toStrictEqual({ totalUsd: null, complete: false, missing: 1 })
    expect(r.usage.byModel['priced']?.costUsd).toBe(0.5)
    expect(r.usage.byModel['unpriced']?.costUsd).toBeNull()
  })

  it('root idle delimits runs; foldEvents answers the last one', () => {
    const events = [...answeredRun('first'), turnStart(2), turnEnd(2, { kind: 'aborted', reason: { kind: 'user' } }), idle()]
    const runs = E.getOrElseW(() => [])(foldRuns(events))
    expect(runs.map((r) => r.ending.kind)).toStrictEqual(['answered', 'stopped'])
    expect(runs[1]?.response).toBeNull()
    expect(right(foldEvents(events)).ending).toStrictEqual({ kind: 'stopped', by: 'caller' })
  })

  it('records with no run content after the last idle do not make a run', () => {
    const runs = E.getOrElseW(() => [])(foldRuns([...answeredRun(), idle(), ev('step/end', {})]))
    expect(runs).toHaveLength(1)
  })

  it('owned interval (seed 002): events before the receipt are dropped, the interval closes at root idle', () => {
    const events = [
      turnStart(1),
      turnEnd(1, { kind: 'error', error: { message: 'earlier run' } }),
      idle(),
      ev('agent/inbox/spliced', { inserted: [{ id: 'other' }] }),
      ev('agent/inbox/spliced', { inserted: [{ id: 'mine' }] }),
      turnStart(2),
      said('for you'),
      turnEnd(2, { kind: 'completed' }),
      idle(),
      turnStart(3),
      turnEnd(3, { kind: 'error', error: { message: 'later' } }),
    ]
    const runs = E.getOrElseW(() => [])(foldRuns(events, { messageId: 'mine' }))
    expect(runs).toHaveLength(1)
    expect(runs[0]?.ending).toStrictEqual({ kind: 'answered' })
    expect(runs[0]?.response).toBe('for you')
    expect(runs[0]?.turns).toBe(1)
  })

  it('drops a repeated seq in the same session with a diagnostic, applies a late one', () => {
    const u = { inputTokens: 10, outputTokens: 1 }
    const r = right(
      foldEvents([
        { ...turnStart(1), seq: 1 },
        { ...said('a', u), seq: 2 },
        { ...said('a', u), seq: 2 },
        { ...said('b', u), seq: 4 },
        { ...said('c', u), seq: 3 },
        { ...turnEnd(1, { kind: 'completed' }), seq: 5 },
      ]),
    )
    expect(r.usage.inputTokens).toBe(30)
    expect(r.response).toBe('c')
    expect(r.diagnostics.map((d) => d.message)).toStrictEqual([
      'dropped a repeated delivery (seq 2 was already applied in this session)',
      'applied an event whose seq 3 is lower than an earlier one in this session',
    ])
  })

  it('a re-delivered unknown event is dropped by its seq like any other', () => {
    const r = right(
      foldEvents([
        { ...turnStart(1), seq: 1 },
        { ...ev('todo/write', {}), seq: 2 },
        { ...ev('todo/write', {}), seq: 2 },
        { ...turnEnd(1, { kind: 'completed' }), seq: 3 },
      ]),
    )
    expect(r.diagnostics.map((d) => d.message)).toStrictEqual([
      'ignored an event of unknown type "todo/write"',
      'dropped a repeated delivery (seq 2 was already applied in this session)',
    ])
  })

  it('unknown types and malformed non-terminal events are diagnostics, not errors', () => {
    const r = right(foldEvents([turnStart(1), ev('todo/write', {}), ev('assistant/message', { message: 42 }), turnEnd(1, { kind: 'completed' })]))
    expect(r.ending.kind).toBe('answered')
    expect(r.diagnostics.map((d) => d.message)).toStrictEqual([
      'ignored an event of unknown type "todo/write"',
      'skipped a "assistant/message" event whose data at message is not { content: Array<object> }',
    ])
  })

  it('reads the JSON-RPC wrappers of seed 002', () => {
    const r = right(
      foldEvents([
        { method: 'session.event', params: { sessionId: 's', event: { type: 'turn/start', data: { turn: 1 } } } },
        { method: 'session.event', params: { sessionId: 's', event: { type: 'turn/end', data: { turn: 1, reason: { kind: 'completed' } } } } },
        { method: 'session.status', params: { sessionId: 's', status: 'idle' } },
        { jsonrpc: '2.0', id: 3, result: { messageId: 'm' } },
      ]),
    )
    expect(r.ending).toStrictEqual({ kind: 'answered' })
    expect(r.sessionId).toBe('s')
  })

  it('hostile ids are ordinary ids', () => {
    for (const id of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const r = right(
        foldEvents([
          turnStart(1, id),
          said('x', { inputTokens: 1, outputTokens: 1 }, { model: id, costUsd: 1 }, id),
          started(id, `${id}-kid`),
          turnEnd(1, { kind: 'completed' }, id),
        ]),
      )
      expect(r.sessionId).toBe(id)
      expect(Object.keys(r.usage.byModel)).toStrictEqual([id])
      expect(r.usage.byModel[id]?.inputTokens).toBe(1)
      expect(r.children[0]?.sessionId).toBe(`${id}-kid`)
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
    }
  })
})

describe('protocol errors (SPEC §4)', () => {
  it('a known reason kind with a field of the wrong type: the hint names the field types, not the kind', () => {
    const e = left(foldEvents([turnStart(1), ev('turn/end', { turn: 1, reason: { kind: 'limit', reason: 'max_turns', limit: 'many' } })]))
    expect([e.path, e.message]).toStrictEqual([
      'reason.limit',
      "event #1 (turn/end) at reason.limit: expected number; a known reason kind's fields must have the types of SPEC §4's table",
    ])
  })

  it('a turn/end without reason', () => {
    const e = left(foldEvents([turnStart(1), ev('turn/end', { turn: 1 })]))
    expect(e.toJSON()).toStrictEqual({
      name: 'ProtocolError',
      kind: 'turn-end',
      message: 'event #1 (turn/end) at reason: expected an object with a string kind; a turn/end must carry data.reason with a string kind (SPEC §4)',
      index: 1,
      path: 'reason',
      expected: 'an object with a string kind',
      eventType: 'turn/end',
    })
  })

  it('a non-string reason.kind, even in an earlier turn/end', () => {
    const e = left(foldEvents([turnStart(1), turnEnd(1, { kind: 7 }), turnStart(2), turnEnd(2, { kind: 'completed' })]))
    expect([e.kind, e.index, e.path, e.expected]).toStrictEqual(['turn-end', 1, 'reason.kind', 'string'])
  })

  it('a known reason kind with a field of the wrong type names the data path, not union indices', () => {
    const e = left(foldEvents([turnEnd(1, { kind: 'error', error: { message: 5 } })]))
    expect([e.path, e.expected]).toStrictEqual(['reason.error.message', 'string'])
    const l = left(foldEvents([turnEnd(1, { kind: 'limit', reason: 'x', actual: 'many' })]))
    expect(l.path).toBe('reason.actual')
  })

  it('a subagent turn/end is validated too', () => {
    expect(left(foldEvents([started('root', 'kid'), ev('turn/end', { reason: null }, 'kid')])).index).toBe(1)
  })

  it('an event without a string type; a non-object', () => {
    expect(left(foldEvents([{ data: {} }])).toJSON()).toMatchObject({ kind: 'event', index: 0, path: 'type', expected: 'string' })
    expect(left(foldEvents([turnStart(1), 'hello'])).toJSON()).toMatchObject({ kind: 'event', index: 1, path: '' })
  })

  it('the first bad event is reported whatever follows (error locality)', () => {
    const e = left(foldEvents([turnStart(1), ev('turn/end', {}), { nonsense: true }]))
    expect(e.index).toBe(1)
  })

  it('messages never contain input values', () => {
    const secret = 'SECRET-VALUE-123'
    const e = left(foldEvents([turnEnd(1, { kind: { secret } })]))
    expect(e.message).not.toContain(secret)
    expect(JSON.stringify(e.toJSON())).not.toContain(secret)
    expect(isProtocolError(e)).toBe(true)
  })

  it('.at() adds file and line', () => {
    const e = left(decodeEvent({ type: 'turn/end', data: {} }, 4)).at(5, 'log.jsonl')
    expect(e.message.startsWith('log.jsonl:5: event #4 (turn/end) at reason')).toBe(true)
    expect(e.toJSON()).toMatchObject({ file: 'log.jsonl', line: 5, index: 4 })
  })
})

describe('step', () => {
  it('is pure and equals the fold', () => {
    const events = answeredRun('pure')
    let s = initialState()
    const before = JSON.stringify(s)
    const s1 = step(
      s,
      E.getOrElseW(() => {
        throw new Error('bad')
      })(decodeEvent(events[0], 0)),
      0,
    )
    expect(JSON.stringify(s)).toBe(before)
    s = s1
    events.slice(1).forEach((e, i) => {
      const d = decodeEvent(e, i + 1)
      if (E.isRight(d)) s = step(s, d.right, i + 1)
    })
    expect(currentResult(s)).toStrictEqual(right(foldEvents(events)))
  })
})
