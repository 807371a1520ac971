/**
 * The reader of `codex exec --json` output: JSONL `ThreadEvent`s (`thread.started`, `turn.started`,
 * `turn.completed`, `turn.failed`, `item.started|updated|completed`, `error`), as written by
 * `codex-rs/exec/src/event_processor_with_jsonl_output.rs` and typed by `@openai/codex-sdk`.
 *
 * Ending rules (one run per turn):
 * - `turn.completed` → `answered`; `turn.failed` → `failed` `error` with `error.message` (the exec mapper already
 *   falls back to the last `error` event's message). `finishReason` is the terminal event's type.
 * - No terminal event (an interrupted turn emits none; a killed process neither): `failed` with `phase: 'stream'`
 *   when the last record is a top-level `error`, `suspended` (one pending `question`) when it is a
 *   `request_user_input`, else `unfinished` with the last record's type. Never `answered` (SPEC §2 rule 2, K1, K10).
 * - A second terminal record, or an `error`, after the turn ended does not change the ending: it is a diagnostic
 *   of that run (K7). A `turn.started` while a turn is still open ends the open one (unfinished).
 * - A run is handed out when the next turn starts (or a new thread, or an item without `turn.started`) or at the
 *   end of the input; live, at its terminal record (`codex exec` exits right after its turn), and a terminal or
 *   error record after it is a note.
 *
 * Translation (protocol 2): `thread.started` → `session/started` (the thread is the run's session);
 * `turn.started` → `turn/start`; an `agent_message` item → `assistant/message`; a tool item, completed, →
 * `tool/call` (each id once); other items → `assistant/chunk`; `turn.completed` / `turn.failed` → `turn/end`
 * (`completed` / `error`), its usage a `usage/add`; a top-level `error` → `stream/error`; a trailing
 * `request_user_input` → a `suspended` `turn/end` when the run is handed out; the run boundary → the root idle.
 *
 * Usage and cost: each `turn.completed.usage` is one priced item with no cost (Codex reports none:
 * `cost.totalUsd` null, `missing` 1 per turn). The exec mapper builds it from the thread's running total
 * (`ThreadTokenUsage.total`), so when a second `turn.completed` of the same thread has every count ≥ the
 * previous one's, it is read as a running total and this turn's usage is the difference; otherwise (some count
 * went down) it is taken as this turn's own usage. The first turn of a resumed thread may include earlier turns:
 * nothing in the stream tells them apart. Buckets are converted as in `toBuckets`.
 *
 * @module
 */
import * as t from 'io-ts'
import type { SessionEvent } from '../../core/events.js'
import type { Emit } from '../../core/translator.js'
import { BETWEEN, emitDiagnostic, emitIdle, emitRecord, nativeEvent } from '../events.js'
import { newIdRing, ringAdd, IdRingCodec, type IdRing } from '../idRing.js'
import { isObject, type Obj } from '../json.js'
import { CodexTokensCodec, minus, notBelow, readTokens, toBuckets, type CodexTokens } from './shared.js'

/** Item types that are tool calls (`toolCalls` counts their completed items, each id once). */
const TOOL_ITEMS = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'web_search', 'collab_tool_call'])

/** Tool item ids remembered per run (a later repeat beyond them would count again). */
const MAX_ITEM_IDS = 4096

/** The exec translator's state (plain JSON). @internal */
export interface ExecState {
  live: boolean
  /** The thread id of the last `thread.started`. */
  thread: string | null
  /** The open run's turn ended (`turn.completed` / `turn.failed`). */
  decided: boolean
  /** The open run has content. */
  content: boolean
  /** `turn.started` records in the open run. */
  turns: number
  /** The ids of the tool items counted in the open run (the last {@link MAX_ITEM_IDS}). */
  itemIds: IdRing
  /** The id of a `request_user_input` that is the open run's last word, else `null`. */
  pendingInput: string | null
  /** The message of a top-level `error` that is the open run's last word (a `turn.failed` without one uses it). */
  lastError: string | null
  /** The last `turn.completed` usage of this thread (a running total when the next one covers it). */
  prevUsage: CodexTokens | null
  /** Live: the run was handed out at its terminal record and no new turn has started since. */
  liveEnded: boolean
}

/** io-ts codec of {@link ExecState}. @internal */
export const ExecStateCodec: t.Type<ExecState, unknown> = t.type({
  live: t.boolean,
  thread: t.union([t.string, t.null]),
  decided: t.boolean,
  content: t.boolean,
  turns: t.number,
  itemIds: IdRingCodec,
  pendingInput: t.union([t.string, t.null]),
  lastError: t.union([t.string, t.null]),
  prevUsage: t.union([CodexTokensCodec, t.null]),
  liveEnded: t.boolean,
}) as unknown as t.Type<ExecState, unknown>

/** A fresh exec state. @internal */
export const newExecState = (live: boolean): ExecState => ({
  live,
  thread: null,
  decided: false,
  content: false,
  turns: 0,
  itemIds: newIdRing(),
  pendingInput: null,
  lastError: null,
  prevUsage: null,
  liveEnded: false,
})

/**
 * The `assistant/chunk` of an item record: the same event object for each record and item type (the fold and
 * the printers only read events), so the bulk of a log's records allocate nothing. At most {@link MAX_CHUNK_TYPES}
 * pairs of record and item type are remembered; others get a fresh event.
 */
const MAX_CHUNK_TYPES = 64
const chunkEvents = new Map<string, Map<string, SessionEvent>>()
const chunkEvent = (type: string, itemType: string): SessionEvent => {
  let byItem = chunkEvents.get(type)
  if (byItem === undefined) {
    byItem = new Map()
    if (chunkEvents.size < MAX_CHUNK_TYPES) chunkEvents.set(type, byItem)
  }
  let ev = byItem.get(itemType)
  if (ev === undefined) {
    ev = nativeEvent('assistant/chunk', { chunk: { type: itemType } }, { recordType: type })
    if (byItem.size < MAX_CHUNK_TYPES) byItem.set(itemType, ev)
  }
  return ev
}

/** The open run is over: a trailing `request_user_input` suspends it; the root idle closes it. */
const flush = (s: ExecState, emit: Emit): void => {
  if (!s.decided && s.pendingInput !== null) {
    emit(nativeEvent('turn/end', { reason: { kind: 'suspended', pending: [{ id: s.pendingInput, kind: 'question' }] }, finishReason: null }, BETWEEN))
  }
  emitIdle(emit)
  s.decided = false
  s.content = false
  s.turns = 0
  s.itemIds = newIdRing()
  s.pendingInput = null
  s.lastError = null
}

/** Live: a terminal or error record after the run was handed out is a note, never a new run. */
const late = (s: ExecState, type: string, emit: Emit): boolean => {
  if (!s.liveEnded) return false
  emitDiagnostic(emit, `ignored a ${type} record after the turn had ended; the first ending stands`, true)
  return true
}

const item = (s: ExecState, v: Obj, type: string, emit: Emit): void => {
  if (s.decided) flush(s, emit)
  const it = v['item']
  if (!isObject(it) || typeof it['type'] !== 'string') {
    emitDiagnostic(emit, `skipped a ${type} record whose item is not an object with a string type`)
    return
  }
  s.content = true
  s.pendingInput = null
  s.lastError = null
  const itemType = it['type']
  if (type === 'item.completed' && itemType === 'agent_message') {
    const text = it['text']
    if (typeof text === 'string') {
      emit(nativeEvent('assistant/message', { message: { content: [{ type: 'text', text }] } }, { recordType: type }))
      return
    }
    emit(chunkEvent(type, itemType))
    emitDiagnostic(emit, 'agent_message item without a string text')
    return
  }
  if (type === 'item.completed' && TOOL_ITEMS.has(itemType)) {
    const id = it['id']
    // each id once in a run (a tool item without an id always counts)
    if (typeof id !== 'string' || ringAdd(s.itemIds, id, MAX_ITEM_IDS)) {
      emit(nativeEvent('tool/call', { callId: typeof id === 'string' ? id : '', name: itemType }, { recordType: type }))
      return
    }
  }
  emit(chunkEvent(type, itemType))
}

const completed = (s: ExecState, v: Obj, emit: Emit): void => {
  const raw = v['usage']
  if (raw !== undefined && raw !== null) {
    const usage = readTokens(raw)
    if (usage === undefined) emitDiagnostic(emit, 'skipped the usage of a turn.completed record: not an object of token counts')
    else {
      const prev = s.prevUsage
      // the exec mapper writes the thread's running total: a turn whose counts all cover the previous one's is differenced
      const turn = prev !== null && notBelow(prev, usage) ? minus(usage, prev) : usage
      s.prevUsage = usage
      emit(nativeEvent('usage/add', { usage: toBuckets(turn) }, { recordType: 'turn.completed' }))
    }
  }
  emit(nativeEvent('turn/end', { reason: { kind: 'completed' }, finishReason: 'turn.completed' }, { recordType: 'turn.completed' }))
}

const failed = (v: Obj, emit: Emit, trailing: string | null): void => {
  const err = v['error']
  let message: string
  if (isObject(err) && typeof err['message'] === 'string') message = err['message']
  else {
    emitDiagnostic(emit, 'turn.failed without an error object carrying a string message')
    message = trailing ?? 'turn failed'
  }
  emit(nativeEvent('turn/end', { reason: { kind: 'error', error: { message } }, finishReason: 'turn.failed' }, { recordType: 'turn.failed' }))
}

/**
 * Translates one `codex exec --json` record (an object with a string `type`).
 * @internal
 */
export const execRecord = (s: ExecState, v: Obj, type: string, emit: Emit): void => {
  switch (type) {
    case 'thread.started': {
      s.liveEnded = false
      if (s.decided || s.content) flush(s, emit)
      const id = v['thread_id']
      if (typeof id === 'string') {
        if (id !== s.thread) s.prevUsage = null
        s.thread = id
        emit(nativeEvent('session/started', {}, { sessionId: id, recordType: type }))
      } else {
        emitRecord(emit, type)
        emitDiagnostic(emit, 'thread.started without a string thread_id')
      }
      s.pendingInput = null
      s.lastError = null
      return
    }
    case 'turn.started':
      s.liveEnded = false
      if (s.decided || s.turns > 0) flush(s, emit)
      s.turns++
      s.content = true
      s.pendingInput = null
      s.lastError = null
      emit(nativeEvent('turn/start', {}, { recordType: type }))
      return
    case 'item.started':
    case 'item.updated':
    case 'item.completed':
      s.liveEnded = false
      item(s, v, type, emit)
      return
    case 'turn.completed':
    case 'turn.failed':
      if (late(s, type, emit)) return
      if (s.decided) {
        emitRecord(emit)
        emitDiagnostic(emit, `ignored a ${type} record after the turn had ended; the first ending stands`)
        return
      }
      s.content = true
      s.pendingInput = null
      if (type === 'turn.completed') completed(s, v, emit)
      else failed(v, emit, s.lastError)
      s.lastError = null
      s.decided = true
      if (s.live) {
        flush(s, emit)
        s.liveEnded = true
      }
      return
    case 'error': {
      if (late(s, type, emit)) return
      const m = v['message']
      if (s.decided) {
        emitRecord(emit)
        emitDiagnostic(emit, 'an error record came after the turn had ended; the ending stands')
        return
      }
      if (typeof m !== 'string') emitDiagnostic(emit, 'error record without a string message')
      s.content = true
      s.pendingInput = null
      s.lastError = typeof m === 'string' ? m : 'error'
      emit(nativeEvent('stream/error', { error: { message: typeof m === 'string' ? m : 'error' } }, { recordType: type }))
      return
    }
    case 'request_user_input': {
      if (s.decided) {
        emitRecord(emit)
        return
      }
      s.content = true
      s.lastError = null
      const id = typeof v['call_id'] === 'string' ? v['call_id'] : typeof v['id'] === 'string' ? v['id'] : 'request_user_input'
      emit(nativeEvent('assistant/chunk', { chunk: { type } }, { recordType: type }))
      s.pendingInput = id
      return
    }
    default:
      // Unknown or unused event types (item.plan.delta, …) are ignored: the format grows.
      emitRecord(emit)
      return
  }
}

/** The input failed while being read: a run whose `turn.completed` / `turn.failed` had arrived is closed. @internal */
export const execFailed = (s: ExecState, emit: Emit): void => {
  if (s.decided) flush(s, emit)
}

/** The input ended: a trailing `request_user_input` suspends the open run (the fold hands it out). @internal */
export const execEnd = (s: ExecState, emit: Emit): void => {
  if (s.liveEnded && !s.content) return
  if (!s.decided && s.pendingInput !== null && s.content) {
    emit(nativeEvent('turn/end', { reason: { kind: 'suspended', pending: [{ id: s.pendingInput, kind: 'question' }] }, finishReason: null }, BETWEEN))
    s.pendingInput = null
  }
}
