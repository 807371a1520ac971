/**
 * K23 in the one fold (protocol 2 `turn/cancel`): a cancel the caller asked for and the turn then answered with a
 * normal stop reason is a stop, not a finished answer; a cancel the turn never answered is a stop read from the
 * last records; a new turn or prompt starts clean.
 */
import * as E from 'fp-ts/lib/Either.js'
import { describe, expect, it } from 'vitest'
import { foldEvents, foldRuns } from '../../src/core/fold.js'

const s = 's1'
const ev = (type: string, data: Record<string, unknown> = {}) => ({ type, sessionId: s, data })
const right = <A>(e: E.Either<unknown, A>): A => {
  if (E.isLeft(e)) throw new Error('expected Right')
  return e.right
}
const text = (t: string) => ev('assistant/message', { message: { content: [{ type: 'text', text: t }] } })

describe('turn/cancel (K23)', () => {
  it('a cancel then end_turn (completed) is stopped by the caller; the partial text is not the answer', () => {
    const r = right(
      foldEvents([ev('turn/start'), text('half an ans'), ev('turn/cancel'), ev('turn/end', { reason: { kind: 'completed' }, finishReason: 'end_turn' })]),
    )
    expect([r.ending, r.finishReason, r.response, r.inferred]).toStrictEqual([{ kind: 'stopped', by: 'caller' }, 'end_turn', null, false])
  })
  it('a cancel then a cut-off end is a stop too, keeping who asked and why', () => {
    const r = right(foldEvents([ev('turn/start'), ev('turn/cancel', { by: 'hook', reason: 'budget' }), ev('turn/end', { reason: { kind: 'max-tokens' } })]))
    expect(r.ending).toStrictEqual({ kind: 'stopped', by: 'hook', reason: 'budget' })
  })
  it('an abnormal end after a cancel keeps its own meaning (an error is still failed)', () => {
    const r = right(foldEvents([ev('turn/start'), ev('turn/cancel'), ev('turn/end', { reason: { kind: 'error', error: { message: 'boom' } } })]))
    expect(r.ending).toStrictEqual({ kind: 'failed', reason: 'error', error: { message: 'boom' } })
  })
  it('a cancel never answered is stopped by the caller, inferred', () => {
    const r = right(foldEvents([ev('turn/start'), text('so far'), ev('turn/cancel')]))
    expect([r.ending, r.inferred, r.response]).toStrictEqual([{ kind: 'stopped', by: 'caller' }, true, null])
  })
  it('a new turn after the cancelled one starts clean: its normal finish is an answer', () => {
    const runs = right(
      foldRuns([
        ev('turn/start'),
        ev('turn/cancel'),
        ev('turn/end', { reason: { kind: 'completed' } }),
        ev('turn/start'),
        text('done'),
        ev('turn/end', { reason: { kind: 'completed' } }),
      ]),
    )
    expect(runs.map((r) => [r.ending.kind, r.response])).toStrictEqual([['answered', 'done']])
  })
  it('a new prompt clears it too; a later turn/cancel of a child never stops the root', () => {
    const a = right(foldEvents([ev('turn/cancel'), ev('user/message', { message: 'again' }), text('ok'), ev('turn/end', { reason: { kind: 'completed' } })]))
    expect(a.ending).toStrictEqual({ kind: 'answered' })
    const b = right(
      foldEvents([
        ev('subagent/started', { parentSessionId: s, childSessionId: 'kid' }),
        { type: 'turn/cancel', sessionId: 'kid', data: {} },
        text('root answer'),
        ev('turn/end', { reason: { kind: 'completed' } }),
      ]),
    )
    expect([b.ending, b.response]).toStrictEqual([{ kind: 'answered' }, 'root answer'])
  })
})
