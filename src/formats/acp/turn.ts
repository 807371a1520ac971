/**
 * The ending of an ACP prompt turn, and the native events of a turn once it is over.
 *
 * **The events of one turn**, all of its session: `session/started` (the session becomes the fold's root),
 * `turn/start` at the prompt's line and the turn's first time, a `tool/call` per distinct `toolCallId` (and a
 * `tool/result` when its last status is `completed` or `failed`), the text as one `assistant/message`, a
 * `permission/denied` per rejected permission, the turn's diagnostics, the cost diagnostics, one `usage/add`
 * (the turn's usage, the session's model, the cost; an item even without usage, so a cost that is not known is
 * missing, never zero), the lobby's diagnostics, then the `turn/end` at the turn's last line and last time,
 * and the root idle. Events between the first and the last carry line 0 (or their diagnostic's own line, which
 * the `turn/end` then follows), so the run's line range and times are the turn's own, as the reader had them.
 * A diagnostic the turn dropped past the cap is emitted as one more diagnostic the fold drops, so
 * `diagnosticsDropped` counts it.
 *
 * @module
 * @internal
 */
import * as E from 'fp-ts/lib/Either.js'
import type { KnownEventType, SessionEvent } from '../../core/events.js'
import type { RunEnding } from '../../core/RunEnding.js'
import type { Emit } from '../../core/translator.js'
import { acpEndingFromEither } from '../../vocabularies/acp.js'
import { emitIdle, nativeEvent, type DataIn, type ReasonIn } from '../events.js'
import { emptyNotes, type AcpNotes, type AcpPendingItem, type AcpPermission, type AcpState, type AcpTool, type AcpTurn } from './state.js'
import { BAD_COUNT, countedBuckets, runCost } from './usage.js'

/**
 * The `RunEnding` of an ACP `StopReason` string (`end_turn`, `max_tokens`, `max_turn_requests`, `refusal`,
 * `cancelled`); any other string is `failed` `unrecognized` with the string in `raw` (SPEC §2 rule 3). The
 * table is the `acp` vocabulary's (SPEC §5), so reading a log and converting a value agree.
 * @since 0.1.0
 */
export const endingOfStopReason = (stopReason: string): RunEnding => {
  const r = acpEndingFromEither(stopReason)
  return E.isRight(r) ? r.right : { kind: 'failed', reason: 'unrecognized', raw: stopReason }
}

/** The `turn/end` reason that the fold reads back as `ending` (SPEC §4 table). @internal */
export const reasonOfEnding = (e: RunEnding): ReasonIn => {
  switch (e.kind) {
    case 'answered':
      return { kind: 'completed' }
    case 'cut_off':
      return { kind: 'cut-off', finishReason: e.finishReason }
    case 'stopped': {
      const by = e.by === 'caller' ? 'user' : e.by === 'abandoned' ? 'disposed' : e.by
      return { kind: 'aborted', reason: { kind: by, ...(e.reason !== undefined ? { reason: e.reason } : {}) } }
    }
    case 'failed': {
      const { kind: _k, ...rest } = e
      return { kind: 'failed', ...rest }
    }
    case 'blocked': {
      const { kind: _k, reason, ...rest } = e
      return { kind: 'blocked', ...rest, ...(reason !== undefined ? { message: reason } : {}) }
    }
    default:
      return e as unknown as ReasonIn
  }
}

/** The caller cancelled: `stopped` by `caller`. @internal */
export const CANCELLED: ReasonIn = { kind: 'aborted', reason: { kind: 'user' } }

/** An event of the turn's session at an explicit `line` (0: between records, no line of the log). */
const ev = <K extends KnownEventType>(
  type: K,
  data: DataIn<K>,
  sessionId: string,
  line: number | null | undefined,
  time?: string | number | null,
  recordType?: string,
): SessionEvent => {
  // '' is the session of a turn whose prompt response named none (a one-way capture without any session id)
  const e = nativeEvent(type, data, { sessionId: sessionId === '' ? null : sessionId, time: time ?? undefined, recordType })
  ;(e as { line?: number }).line = line ?? 0
  return e
}

/** Emits kept diagnostics, each at its own line. @internal */
export const emitNotes = (emit: Emit, sessionId: string | null, n: AcpNotes): void => {
  for (const d of n.diagnostics) {
    const e = nativeEvent('source/diagnostic', { message: d.message }, { sessionId })
    ;(e as { line?: number }).line = d.line ?? 0
    emit(e)
  }
}

/** Dropped diagnostics still count in the run's `diagnosticsDropped`: the fold counts each one past its cap. @internal */
export const emitDropped = (emit: Emit, sessionId: string | null, count: number): void => {
  for (let i = 0; i < count; i++) {
    const e = nativeEvent('source/diagnostic', { message: 'a diagnostic over the cap' }, { sessionId })
    ;(e as { line?: number }).line = 0
    emit(e)
  }
}

/**
 * Ends a turn that got no response: suspended on an open permission; with an unanswered `session/cancel`, no
 * ending of its own (the fold reads the `turn/cancel` the turn states as the stop, inferred: K23); else unfinished.
 * @internal
 */
export const abandon = (turn: AcpTurn): void => {
  const open: Array<AcpPendingItem> = []
  for (const k of Object.keys(turn.permissions)) open.push((turn.permissions[k] as AcpPermission).item)
  if (open.length > 0) {
    turn.reason = { kind: 'suspended', pending: open }
    turn.inferred = true
  } else if (turn.cancelRequested) {
    turn.reason = null
    turn.inferred = false
  } else {
    turn.reason = turn.lastType !== null ? { kind: 'unfinished', lastEventType: turn.lastType } : { kind: 'unfinished' }
  }
  turn.finishReason = null
  turn.closed = true
}

/** Emits a closed turn as one run (see the module doc) and forgets it; the lobby's diagnostics join it. @internal */
export const finalize = (s: AcpState, n: number, emit: Emit): void => {
  const key = `#${n}`
  const turn = s.turns[key]
  if (turn === undefined) return
  delete s.turns[key]
  if (s.closing === n) s.closing = null
  const sess = s.sessions[`#${turn.sessionId}`]
  if (sess !== undefined && sess.open === n) {
    sess.open = null
    // a session left with nothing to remember is exactly what `session()` makes anew: forget it (memory stays
    // flat in the number of sessions an agent-side capture names)
    if (!sess.fresh && sess.costUsd === null && sess.model === null && !sess.prompted && sess.loading === 0) delete s.sessions[`#${turn.sessionId}`]
  }
  const lobby = s.lobby
  s.lobby = emptyNotes()
  const sid = turn.sessionId
  emit(ev('session/started', {}, sid, 0))
  emit(ev('turn/start', {}, sid, turn.firstLine, turn.firstTime, turn.implicit ? undefined : 'session/prompt'))
  // the client asked the agent to stop (K23): a normal stop reason that answers it is still the stop, and a turn
  // that never answered it is stopped too — the fold's rule
  if (turn.cancelRequested) emit(ev('turn/cancel', {}, sid, 0, null, 'session/cancel'))
  for (const k of Object.keys(turn.tools)) {
    const tool = turn.tools[k] as AcpTool
    emit(ev('tool/call', { callId: k.slice(1), name: tool.title ?? tool.kind ?? 'unknown' }, sid, 0, null, 'tool_call'))
  }
  for (const k of Object.keys(turn.tools)) {
    const status = (turn.tools[k] as AcpTool).status
    if (status === 'completed') emit(ev('tool/result', { callId: k.slice(1) }, sid, 0, null, 'tool_call_update'))
    else if (status === 'failed') emit(ev('tool/result', { callId: k.slice(1), error: { message: 'failed' } }, sid, 0, null, 'tool_call_update'))
  }
  if (turn.text !== '') emit(ev('assistant/message', { message: { content: [{ type: 'text', text: turn.text }] } }, sid, 0, null, 'agent_message_chunk'))
  for (const d of turn.denials) emit(ev('permission/denied', { toolName: d.toolName, callId: d.callId }, sid, 0, null, 'session/request_permission'))
  emitNotes(emit, sid, turn.notes)
  const { cost, diagnostics } = runCost(turn.costBase, turn.costLast, turn.costOtherCurrency)
  for (const m of diagnostics) emit(ev('source/diagnostic', { message: m }, sid, 0))
  const { usage, bad } = countedBuckets(turn.usage)
  if (bad) emit(ev('source/diagnostic', { message: BAD_COUNT }, sid, 0))
  const model = sess?.model ?? null
  emit(ev('usage/add', { usage, ...(model !== null ? { model } : {}), ...(cost !== undefined ? { costUsd: cost } : {}) }, sid, 0))
  emitNotes(emit, sid, lobby)
  emitDropped(emit, sid, turn.notes.dropped + lobby.dropped)
  if (turn.reason === null && turn.cancelRequested) {
    // a cancel never answered: the turn's last record, and no ending of its own (the fold infers the stop)
    emit(ev('source/record', {}, sid, turn.lastLine, turn.lastTime, turn.lastType ?? undefined))
  } else {
    const reason = turn.reason ?? { kind: 'unfinished' }
    emit(ev('turn/end', { reason, finishReason: turn.finishReason, inferred: turn.inferred }, sid, turn.lastLine, turn.lastTime))
  }
  emitIdle(emit)
}

/** The answered turn waiting for a trailing `usage_update` is over: emit it. @internal */
export const flushClosing = (s: AcpState, emit: Emit): void => {
  if (s.closing === null) return
  const n = s.closing
  s.closing = null
  finalize(s, n, emit)
}
