/**
 * The reader of Codex rollouts: the session files `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (also
 * `archived_sessions/`, and gzipped copies), one `{timestamp, type, payload}` record per line with `type`
 * `session_meta`, `response_item`, `event_msg`, `turn_context`, `compacted` or `world_state`
 * (`codex-rs` `RolloutItem`; field names as in formats.md §C2, `docs/formats.md`).
 *
 * Runs: each `event_msg.user_message` starts a run (the `response_item` user messages also carry
 * `<environment_context>` / `<user_instructions>` records, which are not prompts, so they are not used). A
 * `task_started` (alias `turn_started`) joins the run its prompt opened when no work was recorded in between
 * (newer builds write it just before or just after the `user_message`), and otherwise starts a run of its own.
 * Records after a turn's ending and before the next prompt (late tool outputs, token counts) belong to the
 * ended run, so a run is handed out when the next run starts or at the end of the input. A `user_message` that
 * arrives while a turn runs (a `task_started` was read, and work or its prompt came since; Codex "steer", K24)
 * belongs to that turn: the next `turn_context` of the same `turn_id` confirms it, and the turn ends at its
 * `task_complete`; only a `task_started` / `turn_context` of another turn id shows that the message was a new
 * turn's prompt (the turn before it never ended: its run is handed out, inferred), and a `turn_aborted` `replaced`
 * makes it the prompt of the next run. Live (`watch`), a run
 * whose turn has ended is also handed out when the input goes quiet ({@link RolloutReader.quiet}); a record
 * that still arrives for it before the next prompt is reported through `note` (a late token count with its
 * number of tokens, which are then in no printed run: the printed run cannot change, and the next run did not
 * spend them).
 *
 * Ending rules, in order:
 * - `task_complete` (alias `turn_complete`) → `answered`, or `failed` `error` when it carries an `error`
 *   (newer builds); `finishReason` is the record type as written; the response is its `last_agent_message`,
 *   else the last agent message of the run; its `duration_ms` is the run's duration.
 * - `turn_aborted.reason`: `interrupted` → `stopped` by `caller`; `replaced` (a new prompt replaced the running
 *   turn) → `stopped` by `caller`, reason `replaced`; `review_ended` (the host left review mode, which ends the
 *   review sub-turn) → `stopped` by `caller`, reason `review_ended`; `budget_limited` → `limit` `budget`; any
 *   other string → `failed` `unrecognized` with the raw string (K14); a missing reason → `failed`
 *   `unrecognized`. `finishReason` is the reason string (or `turn_aborted` when it has none).
 * - A second ending for the same turn is a diagnostic; the first one stands (K7).
 * - No task event (0.40 rollouts persist none): the ending is read from the run's last records and marked
 *   `inferred`: an agent message (`event_msg.agent_message`, an assistant `message` item, an `AgentMessage`
 *   `item_completed`) after the last tool call or output → `answered`, but only in a session that has shown no
 *   `task_started` / `task_complete` (a build that writes them and wrote none for this turn was cut off: the
 *   turn is `unfinished` however its last words read; `turn_aborted` alone says nothing, 2025 builds wrote only
 *   that one); an `event_msg.error` as the last word →
 *   `failed` `error` with `phase: 'stream'` (K1); anything else (a tool call, a tool output, reasoning, nothing
 *   after the prompt) → `unfinished` with that record's type. Tool outputs with a non-zero exit code are tool
 *   failures, not endings; `stream_error` (a retry) is not an ending either.
 *
 * Forks (K15): a rollout whose first `session_meta` names `forked_from_id`, or that opens with a `session_meta` of
 * another session before any turn of its own, starts with history copied from its parent (the parent's
 * `session_meta`, prompts, answers and `token_count`s, re-stamped with the fork's creation time). The copy is no
 * run and adds no usage: its records state nothing but their running totals, as a baseline (`usage/total` with
 * `baseline`), so the fork's first own total is differenced from the last copied one. The copy ends at the fork
 * point, the first record that opens the fork's own turn: a `turn_context` / `task_started` / `turn_started` whose
 * `turn_id` is a UUID v7 no older than the fork's own id (UUID v7s carry their creation time); else a task whose
 * `started_at` is no earlier than the fork's creation; else one of them or a `user_message` written at least a
 * second after it; else, when no copied `session_meta` of the parent was read, the first turn record. A diagnostic
 * counts the copied records; a fork with no turn of its own is the one `unfinished` run of an input with none.
 *
 * Usage and cost: `token_count.info.total_token_usage` is a running total of the session. Each change of it
 * is one model response: its difference from the previous total is added to the run it falls in (one priced
 * item without cost, under the model of the latest `turn_context`), so a run's usage is its last total minus
 * the last total before it started, and the runs of a log add up exactly to its final total (SPEC §3, K11).
 * A total that goes down (a restarted counter) is a diagnostic and counts from zero. `last_token_usage` is
 * not used. The model is the latest `turn_context.model`, or `thread_settings_applied.thread_settings.model` (newer
 * builds write the model change there). Codex reports no cost: `cost.totalUsd` is null and `missing` counts the responses.
 *
 * Translation (protocol 2): `session_meta` → `session/started`; `user_message` → `user/message` (and the run's
 * one `turn/start`); `task_started` → `turn/start`; agent messages → `assistant/message`; reasoning →
 * `assistant/chunk`; tool calls → `tool/call`, their outputs and end events → `tool/result`; `token_count` →
 * `usage/total` (counter `tokens`, under the latest model), which the fold differences (copied history: with
 * `baseline`, and nothing else);
 * `task_complete` / `turn_aborted` → `turn/end`; an inferred ending → a `turn/end` with `inferred`; the run
 * boundary (the next prompt, the end, or a live pause) → the root idle.
 *
 * `sessionId` is the first `session_meta.payload.id`. `turns` is 1 for a run with a prompt or a task start.
 * `toolCalls` counts `function_call`, `custom_tool_call`, `local_shell_call`, `web_search_call`,
 * `tool_search_call` and `image_generation_call` response items.
 *
 * @module
 */
import * as t from 'io-ts'
import type { RunEnding } from '../../core/RunEnding.js'
import type { Emit } from '../../core/translator.js'
import { BETWEEN, emitDiagnostic, emitIdle, emitRecord, nativeEvent, type Origin } from '../events.js'
import { count, isObject, short, type Obj } from '../json.js'
import { looksIsoTime, readTokens, toBuckets } from './shared.js'

const TOOL_CALLS = new Set(['function_call', 'custom_tool_call', 'local_shell_call', 'web_search_call', 'tool_search_call', 'image_generation_call'])
const TOOL_OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output', 'tool_search_output'])
const TOOL_END_EVENTS = new Set(['exec_command_end', 'patch_apply_end', 'mcp_tool_call_end', 'web_search_end'])
const PAYLOAD_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted', 'world_state'])

/** What the last significant record of a run was (for the inferred ending). */
type Last = 'none' | 'message' | 'tool' | 'reasoning' | 'error'

/** The ending of a `turn_aborted` reason (see the module doc). @internal */
export const abortedEnding = (reason: string): RunEnding => {
  switch (reason) {
    case 'interrupted':
      return { kind: 'stopped', by: 'caller', reason: 'interrupted' }
    case 'replaced':
      return { kind: 'stopped', by: 'caller', reason: 'replaced' }
    case 'review_ended':
      return { kind: 'stopped', by: 'caller', reason: 'review_ended' }
    case 'budget_limited':
      return { kind: 'limit', reason: 'budget' }
    default:
      return { kind: 'failed', reason: 'unrecognized', raw: reason }
  }
}

/** The `turn/end` reason of a `turn_aborted` reason string (the native words for {@link abortedEnding}). */
const abortedReason = (reason: string): Record<string, unknown> & { kind: string } => {
  switch (reason) {
    case 'interrupted':
    case 'replaced':
    case 'review_ended':
      return { kind: 'aborted', reason: { kind: 'user', reason } }
    case 'budget_limited':
      return { kind: 'limit', reason: 'budget' }
    default:
      return { kind: 'failed', reason: 'unrecognized', raw: reason }
  }
}

/** The text of an assistant `message` item: its `output_text` parts joined. */
const messageText = (content: unknown): string | null => {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return null
  let text: string | null = null
  for (const part of content) {
    if (isObject(part) && (part['type'] === 'output_text' || part['type'] === 'text') && typeof part['text'] === 'string') {
      text = text === null ? part['text'] : text + part['text']
    }
  }
  return text
}

/** The rollout translator's state (plain JSON). @internal */
export interface RolloutState {
  live: boolean
  sessionId: string | null
  model: string | null
  hasPrompt: boolean
  hasTask: boolean
  /**
   * The session has shown `task_started` / `task_complete` (or their `turn_` aliases): its build persists them,
   * so a turn without its `task_complete` did not complete. `turn_aborted` does not count: 2025 builds wrote it
   * without the others (shared/corpus codex-rollout).
   */
  writesTaskEvents: boolean
  activity: boolean
  /** The open run's turn ended (`task_complete`, `turn_aborted`). */
  decided: boolean
  last: Last
  lastKind: string | null
  lastError: { message: string; code?: string } | null
  lastAgent: string | null
  /** Runs handed out so far. */
  emitted: number
  /** Live: the ended run was handed out early (the input went quiet) and no new run has started since. */
  handedOut: boolean
  lateNoted: boolean
  /** The `turn_id` of the open run's turn (from `task_started` / `turn_context`), or `null`. */
  turnId: string | null
  /**
   * A `user_message` arrived while the turn was running (K24): a steer of that turn unless a new turn follows (a
   * `task_started` / `turn_context` of another turn id). `steerTime` is its time.
   */
  steer: boolean
  steerTime: string | null
  /** A `user_message` replaced the running turn (`turn_aborted` `replaced`): it is the prompt of the next run. */
  carried: boolean
  /**
   * K15: `copy` while the records are history the rollout copied from its parent (a fork: `forked_from_id`, or a
   * copied `session_meta` of another session before any turn of its own), `own` once the fork's own turns began.
   */
  fork: 'none' | 'copy' | 'own'
  /** The fork's own creation: the millisecond time of its UUID v7 id, and its `session_meta` time (ms), or `null`. */
  forkIdMs: number | null
  forkTimeMs: number | null
  /** A copied `session_meta` of another session was read (the parent's history is being replayed). */
  copiedMeta: boolean
  /** Records read as copied history. */
  copied: number
}

/** io-ts codec of {@link RolloutState}. @internal */
export const RolloutStateCodec: t.Type<RolloutState, unknown> = t.type({
  live: t.boolean,
  sessionId: t.union([t.string, t.null]),
  model: t.union([t.string, t.null]),
  hasPrompt: t.boolean,
  hasTask: t.boolean,
  writesTaskEvents: t.boolean,
  activity: t.boolean,
  decided: t.boolean,
  last: t.keyof({ none: null, message: null, tool: null, reasoning: null, error: null }),
  lastKind: t.union([t.string, t.null]),
  lastError: t.union([t.intersection([t.type({ message: t.string }), t.partial({ code: t.string })]), t.null]),
  lastAgent: t.union([t.string, t.null]),
  emitted: t.number,
  handedOut: t.boolean,
  lateNoted: t.boolean,
  turnId: t.union([t.string, t.null]),
  steer: t.boolean,
  steerTime: t.union([t.string, t.null]),
  carried: t.boolean,
  fork: t.keyof({ none: null, copy: null, own: null }),
  forkIdMs: t.union([t.number, t.null]),
  forkTimeMs: t.union([t.number, t.null]),
  copiedMeta: t.boolean,
  copied: t.number,
}) as unknown as t.Type<RolloutState, unknown>

/** A fresh rollout state. @internal */
export const newRolloutState = (live: boolean): RolloutState => ({
  live,
  sessionId: null,
  model: null,
  hasPrompt: false,
  hasTask: false,
  writesTaskEvents: false,
  activity: false,
  decided: false,
  last: 'none',
  lastKind: null,
  lastError: null,
  lastAgent: null,
  emitted: 0,
  handedOut: false,
  lateNoted: false,
  turnId: null,
  steer: false,
  steerTime: null,
  carried: false,
  fork: 'none',
  forkIdMs: null,
  forkTimeMs: null,
  copiedMeta: false,
  copied: 0,
})

const hasContent = (s: RolloutState): boolean => s.hasPrompt || s.hasTask || s.activity || s.decided

const mark = (s: RolloutState, last: Last, kind: string): void => {
  s.activity = true
  s.last = last
  s.lastKind = kind
}

/** The open run is over: an ending inferred from its last records when it has none, then the root idle. */
const flush = (s: RolloutState, emit: Emit): void => {
  if (!s.decided) {
    // a build that writes task events wrote none for this turn: it did not complete, whatever its last words
    if (s.last === 'message' && !s.writesTaskEvents) {
      emit(
        nativeEvent(
          'turn/end',
          { reason: { kind: 'completed' }, finishReason: null, inferred: true, ...(s.lastAgent !== null ? { text: s.lastAgent } : {}) },
          BETWEEN,
        ),
      )
    } else if (s.last === 'error' && s.lastError !== null) {
      emit(
        nativeEvent(
          'turn/end',
          { reason: { kind: 'failed', reason: 'error', phase: 'stream', error: s.lastError }, finishReason: null, inferred: true },
          BETWEEN,
        ),
      )
    } else {
      emit(
        nativeEvent(
          'turn/end',
          { reason: { kind: 'unfinished', ...(s.lastKind !== null ? { lastEventType: short(s.lastKind) } : {}) }, finishReason: null, inferred: true },
          BETWEEN,
        ),
      )
    }
  }
  emitIdle(emit)
  s.emitted++
  s.hasPrompt = false
  s.hasTask = false
  s.activity = false
  s.decided = false
  s.last = 'none'
  s.lastKind = null
  s.lastError = null
  s.lastAgent = null
  s.turnId = null
  s.steer = false
  s.steerTime = null
}

/**
 * Live, after an early hand-out: a record that would have joined the handed-out run in a replay. The next turn's
 * own records pass through to the next run. A late token count passes too (the fold names its tokens in a note:
 * they are in no printed run, and the running total moves on). Other late records are noted once. Returns
 * `true` when the record was dealt with.
 */
const lateRecord = (s: RolloutState, type: string, payload: unknown, emit: Emit): boolean => {
  const pt = isObject(payload) ? payload['type'] : undefined
  if (type === 'event_msg' && (pt === 'user_message' || pt === 'task_started' || pt === 'turn_started')) {
    s.handedOut = false
    return false
  }
  if (type === 'session_meta' || type === 'turn_context' || type === 'world_state') return false
  if (type === 'response_item' && isObject(payload) && pt === 'message' && payload['role'] === 'user') return false
  if (type === 'event_msg' && isObject(payload)) {
    if (pt === 'token_count') return false
    // the build writes task events even if this one is late: a later turn without task_complete is cut off
    if (pt === 'task_complete' || pt === 'turn_complete') s.writesTaskEvents = true
  }
  if (!s.lateNoted) {
    s.lateNoted = true
    emitDiagnostic(emit, `records after the ending of run ${s.emitted} came after it was handed out (the input had paused); they are not in it`, true)
  }
  return true
}

/** A line that is not a record: a diagnostic of the open run (live, after an early hand-out: a note). @internal */
export const rolloutDiagnostic = (s: RolloutState, message: string, emit: Emit): void => emitDiagnostic(emit, message, s.handedOut)

/** Live streams only: the input has gone quiet; a run whose turn has ended is handed out now. @internal */
export const rolloutQuiet = (s: RolloutState, emit: Emit): void => {
  if (!s.live || !s.decided) return
  flush(s, emit)
  s.handedOut = true
  s.lateNoted = false
}

/** The input failed while being read: a run whose `task_complete` (or other ending) had arrived is handed out. @internal */
export const rolloutFailed = (s: RolloutState, emit: Emit): void => {
  if (s.decided) flush(s, emit)
}

/** The input ended: hands out the open run (or one `unfinished` run when the input held none). @internal */
export const rolloutEnd = (s: RolloutState, emit: Emit): void => {
  if (s.fork === 'copy') {
    s.fork = 'own'
    emitDiagnostic(
      emit,
      `the rollout holds only history copied from its parent session (a fork with no turn of its own): ${s.copied} records, no run and no usage`,
    )
  }
  if (s.carried) {
    // a message replaced the last turn and no turn of its own followed: a run of its own, unfinished
    if (hasContent(s)) flush(s, emit)
    s.carried = false
    start(s, true, 'user_message', undefined, emit)
  }
  if (hasContent(s) || s.emitted === 0) flush(s, emit)
}

/** A turn began while a steer was pending (K24): the pending message was that turn's prompt, and the turn before it is over. */
const newTurnFromSteer = (s: RolloutState, emit: Emit): void => {
  const time = s.steerTime ?? undefined
  flush(s, emit)
  start(s, true, 'user_message', time, emit)
}

// ---- forks (K15) ------------------------------------------------------------------------------------------

/** The millisecond time a UUID v7 carries (its first 48 bits), or `null` when `id` is not a UUID v7. @internal */
export const uuidV7Ms = (id: unknown): number | null => {
  if (typeof id !== 'string' || id.length !== 36) return null
  if (id.charCodeAt(8) !== 45 || id.charCodeAt(13) !== 45 || id.charCodeAt(14) !== 55 || id.charCodeAt(18) !== 45 || id.charCodeAt(23) !== 45) return null
  let ms = 0
  for (let i = 0; i < 13; i++) {
    if (i === 8) continue
    const c = id.charCodeAt(i)
    const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1
    if (d < 0) return null
    ms = ms * 16 + d
  }
  return ms
}

/** Epoch milliseconds of an ISO-8601 time, or `null`. */
const isoMs = (t: unknown): number | null => {
  if (!looksIsoTime(t)) return null
  const ms = Date.parse(t)
  return Number.isFinite(ms) ? ms : null
}

/** The records from here to the fork point are history copied from the parent session (K15). */
const beginCopy = (s: RolloutState, meta: Obj | undefined, time: string | undefined): void => {
  s.fork = 'copy'
  s.forkIdMs = uuidV7Ms(s.sessionId)
  s.forkTimeMs = (meta !== undefined ? isoMs(meta['timestamp']) : null) ?? isoMs(time)
}

/**
 * Whether a record of a forked rollout opens the fork's own turn (the fork point), in this order: a turn record
 * (`turn_context`, `task_started`, `turn_started`) whose `turn_id` is a UUID v7 no older than the fork's own id;
 * else a `task_started` / `turn_started` whose `started_at` (seconds) is no earlier than the fork's creation;
 * else any of them or a `user_message` written at least a second after the fork's creation (copied records carry
 * their original time or the fork's creation time); else a turn record when no copied `session_meta` of the
 * parent was read (after a plain copy, the first turn record is the fork's own).
 */
const opensOwnTurn = (s: RolloutState, type: string, p: Obj, time: string | undefined): boolean => {
  const prompt = type === 'event_msg' && p['type'] === 'user_message'
  const tms = uuidV7Ms(p['turn_id'])
  if (!prompt && tms !== null && s.forkIdMs !== null) return tms >= s.forkIdMs
  const started = p['started_at']
  if (!prompt && type === 'event_msg' && typeof started === 'number' && Number.isFinite(started) && s.forkTimeMs !== null) {
    const ms = started > 1e12 ? started : started * 1000
    return ms >= Math.floor(s.forkTimeMs / 1000) * 1000
  }
  const at = isoMs(time)
  if (at !== null && s.forkTimeMs !== null && at >= s.forkTimeMs + 1000) return true
  return !prompt && !s.copiedMeta
}

/**
 * A record of a forked rollout before its fork point (K15): copied history, no run and no usage; its token counts
 * only move the running total (`usage/total` with `baseline`). Returns `false` for the record that opens the fork's
 * own turn (the copy ends there, with a diagnostic, and the record is read as usual).
 */
const copiedRecord = (s: RolloutState, type: string, p: Obj, time: string | undefined, emit: Emit): boolean => {
  const pt = p['type']
  const opener = type === 'turn_context' || (type === 'event_msg' && (pt === 'task_started' || pt === 'turn_started' || pt === 'user_message'))
  if (opener && opensOwnTurn(s, type, p, time)) {
    s.fork = 'own'
    emitDiagnostic(emit, `read ${s.copied} records before the fork point as history copied from the parent session: no run, no usage`, false, time)
    return false
  }
  s.copied++
  if (type === 'session_meta') {
    if (p['id'] !== s.sessionId) s.copiedMeta = true
  } else if (type === 'event_msg' && pt === 'token_count') {
    const info = p['info']
    if (isObject(info)) tokenCount(s, info, time, emit, true)
  }
  return true
}

const responseItem = (s: RolloutState, p: Obj, origin: Origin, emit: Emit): void => {
  const pt = p['type']
  if (typeof pt !== 'string') {
    emitRecord(emit, undefined, origin.time)
    return
  }
  const o = { time: origin.time, recordType: pt }
  if (pt === 'message') {
    if (p['role'] !== 'assistant') {
      emitRecord(emit, undefined, origin.time)
      return
    }
    const text = messageText(p['content'])
    mark(s, 'message', pt)
    if (text !== null) {
      s.lastAgent = text
      if (!s.decided) {
        emit(nativeEvent('assistant/message', { message: { content: [{ type: 'text', text }] } }, o))
        return
      }
    }
    emit(nativeEvent('assistant/chunk', { chunk: { type: pt } }, o))
  } else if (TOOL_CALLS.has(pt)) {
    mark(s, 'tool', pt)
    const id = p['call_id'] ?? p['id']
    const name = p['name']
    emit(nativeEvent('tool/call', { callId: typeof id === 'string' ? id : '', name: typeof name === 'string' ? name : pt }, o))
  } else if (TOOL_OUTPUTS.has(pt)) {
    mark(s, 'tool', pt)
    const id = p['call_id']
    emit(nativeEvent('tool/result', { callId: typeof id === 'string' ? id : '' }, o))
  } else if (pt === 'reasoning') {
    mark(s, 'reasoning', pt)
    emit(nativeEvent('assistant/chunk', { chunk: { type: pt } }, o))
  } else emitRecord(emit, undefined, origin.time)
}

const start = (s: RolloutState, prompt: boolean, kind: string, time: string | undefined, emit: Emit): void => {
  if (s.carried) {
    // the message that replaced the previous turn is this run's prompt
    s.carried = false
    start(s, true, 'user_message', undefined, emit)
    if (prompt) return
  }
  const joins = !s.decided && !s.activity && (prompt ? !s.hasPrompt : !s.hasTask)
  if (!joins) flush(s, emit)
  const o = { time, recordType: kind }
  const first = !s.hasPrompt && !s.hasTask
  if (prompt) s.hasPrompt = true
  else s.hasTask = true
  s.lastKind = kind
  if (first) emit(nativeEvent('turn/start', {}, o))
  if (prompt) emit(nativeEvent('user/message', { message: null }, o))
  else if (!first) emitRecord(emit, kind, time)
}

const terminal = (s: RolloutState, pt: string, p: Obj, time: string | undefined, emit: Emit): void => {
  if (s.decided) {
    emitRecord(emit, undefined, time)
    emitDiagnostic(emit, `ignored a ${pt} event after the turn had ended; the first ending stands`, false, time)
    return
  }
  const d = count(p['duration_ms'])
  const o = { time, recordType: pt }
  const extra = d !== undefined ? { durationMs: Math.min(d, Number.MAX_SAFE_INTEGER) } : {}
  s.decided = true
  if (s.steer) {
    // the message sent while the turn ran belonged to it (K24), unless it replaced the turn: then it is the next prompt
    s.steer = false
    if (pt === 'turn_aborted' && p['reason'] === 'replaced') s.carried = true
  }
  if (pt === 'turn_aborted') {
    const reason = p['reason']
    if (typeof reason !== 'string') {
      emitDiagnostic(emit, 'turn_aborted without a string reason', false, time)
      emit(nativeEvent('turn/end', { reason: { kind: 'failed', reason: 'unrecognized' }, finishReason: pt, ...extra }, o))
    } else {
      emit(nativeEvent('turn/end', { reason: abortedReason(reason), finishReason: reason, ...extra }, o))
    }
    return
  }
  const lastMsg = p['last_agent_message']
  const text = typeof lastMsg === 'string' ? lastMsg : s.lastAgent
  const err = p['error']
  if (err !== undefined && err !== null) {
    let message = 'task failed'
    let code: string | undefined
    if (typeof err === 'string') message = err
    else if (isObject(err)) {
      if (typeof err['message'] === 'string') message = err['message']
      const info = err['codex_error_info']
      if (typeof info === 'string') code = short(info)
      else if (isObject(info)) {
        const k = Object.keys(info)[0]
        if (k !== undefined) code = short(k)
      }
    } else emitDiagnostic(emit, `${pt} with an error that is neither text nor an object`, false, time)
    emit(nativeEvent('turn/end', { reason: { kind: 'error', error: code !== undefined ? { message, code } : { message } }, finishReason: pt, ...extra }, o))
    return
  }
  emit(nativeEvent('turn/end', { reason: { kind: 'completed' }, finishReason: pt, ...(text !== null ? { text } : {}), ...extra }, o))
}

/**
 * A `token_count`: its running total, for the fold to difference (one priced item per change). With `baseline`
 * (history copied from a fork's parent, K15) it only moves the running total: it is no usage of this log.
 */
const tokenCount = (s: RolloutState, info: unknown, time: string | undefined, emit: Emit, baseline = false): void => {
  if (info === undefined || info === null) {
    emitRecord(emit, undefined, time)
    return
  }
  if (!isObject(info)) {
    emitDiagnostic(emit, 'skipped a token_count whose info is not an object', s.handedOut, time)
    return
  }
  const total = readTokens(info['total_token_usage'])
  if (total === undefined) {
    emitDiagnostic(emit, 'skipped a token_count without a total_token_usage of token counts', s.handedOut, time)
    return
  }
  emit(
    nativeEvent(
      'usage/total',
      { counter: 'tokens', ...(s.model !== null ? { model: s.model } : {}), usage: toBuckets(total), ...(baseline ? { baseline: true } : {}) },
      { time },
    ),
  )
}

const event = (s: RolloutState, p: Obj, time: string | undefined, emit: Emit): void => {
  const pt = p['type']
  if (typeof pt !== 'string') {
    emitDiagnostic(emit, 'skipped an event_msg whose payload has no string type', false, time)
    return
  }
  const o = { time, recordType: pt }
  switch (pt) {
    case 'user_message':
      if (s.hasTask && !s.decided && (s.activity || s.hasPrompt)) {
        // sent while the turn runs (a Codex "steer", K24): it belongs to the running turn unless the next records
        // show a new turn began
        s.steer = true
        s.steerTime = time ?? null
        emitRecord(emit, pt, time)
        return
      }
      start(s, true, pt, time, emit)
      return
    case 'task_started':
    case 'turn_started': {
      s.writesTaskEvents = true
      const tid = p['turn_id']
      if (s.steer) {
        s.steer = false
        if (typeof tid === 'string' && tid === s.turnId) {
          // the running turn's own start, written again: the message was a steer of it
          emitRecord(emit, pt, time)
          return
        }
        // a new turn: the message sent before it was its prompt (the turn before it never ended)
        newTurnFromSteer(s, emit)
      }
      start(s, false, pt, time, emit)
      if (typeof tid === 'string') s.turnId = tid
      return
    }
    case 'thread_settings_applied': {
      // the model of the following requests (their token counts are that model's)
      const ts = p['thread_settings']
      if (isObject(ts) && typeof ts['model'] === 'string') s.model = ts['model']
      emitRecord(emit, undefined, time)
      return
    }
    case 'task_complete':
    case 'turn_complete':
    case 'turn_aborted':
      // 2025 builds persisted turn_aborted but neither task_started nor task_complete: it proves nothing
      if (pt !== 'turn_aborted') s.writesTaskEvents = true
      terminal(s, pt, p, time, emit)
      return
    case 'token_count':
      tokenCount(s, p['info'], time, emit)
      return
    case 'agent_message': {
      const m = p['message']
      mark(s, 'message', pt)
      if (typeof m === 'string') {
        s.lastAgent = m
        if (!s.decided) {
          emit(nativeEvent('assistant/message', { message: { content: [{ type: 'text', text: m }] } }, o))
          return
        }
      } else emitDiagnostic(emit, 'agent_message without a string message', false, time)
      emit(nativeEvent('assistant/chunk', { chunk: { type: pt } }, o))
      return
    }
    case 'agent_reasoning':
      mark(s, 'reasoning', pt)
      emit(nativeEvent('assistant/chunk', { chunk: { type: pt } }, o))
      return
    case 'error': {
      if (s.decided) {
        emitRecord(emit, undefined, time)
        emitDiagnostic(emit, 'an error event came after the turn had ended; the ending stands', false, time)
        return
      }
      const m = p['message']
      const info = p['codex_error_info']
      const code = typeof info === 'string' ? info : isObject(info) ? Object.keys(info)[0] : undefined
      s.lastError = { message: typeof m === 'string' ? m : 'error', ...(code !== undefined ? { code: short(code) } : {}) }
      mark(s, 'error', pt)
      emit(nativeEvent('stream/error', { error: s.lastError }, o))
      return
    }
    case 'item_completed': {
      const it = p['item']
      if (isObject(it) && it['type'] === 'AgentMessage') {
        const text = messageText(it['content'])
        mark(s, 'message', pt)
        if (text !== null) {
          s.lastAgent = text
          if (!s.decided) {
            emit(nativeEvent('assistant/message', { message: { content: [{ type: 'text', text }] } }, o))
            return
          }
        }
        emit(nativeEvent('assistant/chunk', { chunk: { type: pt } }, o))
        return
      }
      emitRecord(emit, undefined, time)
      return
    }
    default:
      if (TOOL_END_EVENTS.has(pt)) {
        mark(s, 'tool', pt)
        const id = p['call_id']
        emit(nativeEvent('tool/result', { callId: typeof id === 'string' ? id : '' }, o))
      } else emitRecord(emit, undefined, time)
      return
  }
}

/** Translates one rollout record (an object with a string `type`). @internal */
export const rolloutRecord = (s: RolloutState, v: Obj, type: string, emit: Emit): void => {
  if (!PAYLOAD_TYPES.has(type)) {
    emitRecord(emit)
    return
  }
  const payload = v['payload']
  if (s.handedOut && lateRecord(s, type, payload, emit)) return
  const ts = v['timestamp']
  const time = looksIsoTime(ts) ? ts : undefined
  if (!isObject(payload)) {
    emitDiagnostic(emit, `skipped a line of type ${type} whose payload is not an object`, false, time)
    return
  }
  if (s.fork === 'copy' && copiedRecord(s, type, payload, time, emit)) return
  switch (type) {
    case 'event_msg':
      event(s, payload, time, emit)
      return
    case 'response_item':
      responseItem(s, payload, { time }, emit)
      return
    case 'session_meta': {
      const id = payload['id']
      if (s.sessionId === null && typeof id === 'string') {
        s.sessionId = id
        emit(nativeEvent('session/started', {}, { sessionId: id, time }))
        const parent = payload['forked_from_id']
        if (typeof parent === 'string' && parent !== '') beginCopy(s, payload, time)
      } else if (s.fork === 'none' && typeof id === 'string' && id !== s.sessionId && s.sessionId !== null && !hasContent(s) && s.emitted === 0) {
        // the rollout opens with another session's records: a copy of its history (K15)
        beginCopy(s, undefined, time)
        s.copiedMeta = true
        s.copied++
      } else emitRecord(emit, undefined, time)
      return
    }
    case 'turn_context': {
      const m = payload['model']
      if (typeof m === 'string') s.model = m
      const tid = payload['turn_id']
      if (typeof tid === 'string') {
        if (s.steer) {
          s.steer = false
          // the running turn's next request: the message was a steer of it (K24); another turn id: a new turn began
          if (tid !== s.turnId) newTurnFromSteer(s, emit)
        }
        if (s.turnId === null && (s.hasTask || s.hasPrompt) && !s.decided) s.turnId = tid
      }
      emitRecord(emit, undefined, time)
      return
    }
    default:
      emitRecord(emit, undefined, time)
      return
  }
}
