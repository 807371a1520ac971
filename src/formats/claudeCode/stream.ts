/**
 * The Claude Code stream-json translator (`claude -p --output-format stream-json --verbose`, the Agent SDK's
 * `SDKMessage` JSONL or objects, and the records of `--output-format json`). See `../claudeCode.ts` for the
 * rules.
 *
 * Translation (protocol 2): `system/init` → `session/started` (the process's session is the root; a new one
 * starts fresh running totals); a root assistant message → `turn/start` (a new `message.id`), `tool/call`s,
 * `subagent/started` for Task/Agent calls, then `assistant/message` (`messageId` = `message.id`, so streaming
 * copies replace each other's usage; a `<synthetic>` message carries no usage), then, when it is a synthetic
 * API error, `stream/error` (reason `provider_error`); a subagent's message (`parent_tool_use_id`) → the same
 * facts in that child's session, plus one root `assistant/chunk` (subagent work is run content); a user record
 * → `tool/result`s or `user/message`, and a Task's result → that child's `turn/end`; `task_started` /
 * `task_notification` → `subagent/started` / the child's `turn/end`; `permission_denied` → `permission/denied`;
 * a root `result` → `usage/total` running totals (`modelUsage` per model, `total_cost_usd` with `num_turns`,
 * counters per process session, which the fold differences), `permission/denied` for denials not reported by an
 * earlier run, then `turn/end` (reason of the rules below, `finishReason` = `terminal_reason` ?? `subtype`,
 * `text` = the result text, `structuredOutput`, `durationMs`) and the root idle. A further root `result` with
 * nothing in between is stated as a `turn/end` after that idle: the fold makes it a diagnostic of the closed run
 * (replay) or a note (live), K7. A `result` of another session is that child's `turn/end`. A root message that is
 * a provider error object (K25) → `assistant/chunk` and `stream/error` (`provider_error`, phase `provider`); a
 * record repeating its message's text (K26) is stated without it; an earlier message written again → its tool
 * calls and an `assistant/chunk`, its usage in a session that is neither root nor child (the fold replaces the
 * copy's). A result without `modelUsage` → its `usage` as a running total (`usage/total`, counter per process).
 * The result's `text` is the whole final message when the result holds only part of it (K19).
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import type { NativeUsage } from '../../core/events.js'
import type { Emit } from '../../core/translator.js'
import { emitDiagnostic, emitIdle, emitRecord, nativeEvent, type Origin, type ReasonIn } from '../events.js'
import { isObject, str, wholeCount, type Obj } from '../json.js'
import {
  ABORTED_BY_USER,
  COMPLETED,
  IdSetCodec,
  LastUsageCodec,
  NO_DATA,
  SYNTHETIC_MODEL,
  USER_MESSAGE,
  addId,
  amount,
  anthropicBuckets,
  apiErrorMessage,
  assistantBlocks,
  badRecord,
  classifyUserText,
  clip,
  cutOffReason,
  endingError,
  failedToolResult,
  hasId,
  joinText,
  lastBlockEvents,
  messageContent,
  messageData,
  messageUsage,
  modelUsageEntry,
  newIdSet,
  num,
  originOf,
  providerErrorOf,
  repeatsText,
  repeatsUsage,
  timeOf,
  unknownType,
  type IdSet,
  type LastUsage,
} from './shared.js'
import { NO_MODEL } from '../../core/RunResult.js'

/** Record types of stream-json that carry nothing for the run (read and ignored without a diagnostic). */
const IGNORED_TYPES: ReadonlySet<string> = new Set([
  'stream_event',
  'tool_progress',
  'rate_limit_event',
  'auth_status',
  'conversation_reset',
  'keep_alive',
  'control_request',
  'control_response',
  'control_cancel_request',
  'prompt_suggestion',
])

const LIMIT_TERMINAL: ReadonlyMap<string, string> = new Map([
  ['max_turns', 'max_turns'],
  ['budget_exhausted', 'cost_limit'],
  ['structured_output_retry_exhausted', 'structured_output_retries'],
  ['blocking_limit', 'context_window'],
  ['prompt_too_long', 'context_window'],
  ['rapid_refill_breaker', 'rapid_refill_breaker'],
])
const LIMIT_SUBTYPE: ReadonlyMap<string, string> = new Map([
  ['error_max_turns', 'max_turns'],
  ['error_max_budget_usd', 'cost_limit'],
  ['error_max_structured_output_retries', 'structured_output_retries'],
])
const ERROR_TERMINAL: ReadonlyMap<string, string> = new Map([
  ['model_error', 'provider_error'],
  ['api_error', 'provider_error'],
  ['image_error', 'error'],
  ['malformed_tool_use_exhausted', 'error'],
  ['turn_setup_failed', 'error'],
  ['tool_deferred_unavailable', 'error'],
])

/** Permission denials seen by earlier runs of the process, remembered to not report them again. */
const DENIAL_WINDOW = 4096
/** Denials of `system/permission_denied` records between a result and the next message, held for the next run. */
const MAX_LATE_DENIALS = 256
/** Models of one process whose `modelUsage` totals are remembered (as many as the fold keeps counters for). */
const MAX_MODELS = 256

/**
 * A fatal error that is the run's last word so far: a synthetic API-error assistant message, or a provider error
 * object in place of the message (K25: `name` its error type, `phase` `provider`). @internal
 */
export interface Fatal {
  message: string
  code: string | null
  name?: string
  phase?: string
}

/** What the run showed before its `result`, for the ending rules. @internal */
export interface RunFlags {
  sawInterrupt: boolean
  lastStop: string | null
  lastAssistantError: string | null
  refusalNoFallback: boolean
  fatal: Fatal | null
  /** The type of the last content block of the last root assistant message (K18). */
  lastBlock: string | null
  /** A root tool_result came after the last root assistant message. */
  resultAfter: boolean
}

/** The stream-json translator's state (plain JSON). @internal */
export interface StreamState extends RunFlags {
  /** The session the fold was last told is the root (`session/started`). */
  told: string | null
  /** The root session of the open run (its root assistant messages'), else `null`. */
  runSid: string | null
  /** The session of the last `system/init` (the process). */
  processSession: string | null
  /** Counts process sessions: the running-total counters of a new one start from zero. */
  gen: number
  /** The `message.id` of the last root assistant message of the open run. */
  lastRootId: string | null
  /** The whole text of that message so far (its records' texts joined by blank lines), `null` when none (K19). */
  lastRootText: string | null
  /** Root message ids of the open run (a re-written earlier message is not a new turn, K26). */
  rootIds: IdSet
  /** The model of the open run's root messages, `null` when none, `''` when they named several. */
  runModel: string | null
  /** The last record's type as an unfinished run names it (`assistant`, `user`, `system/<subtype>`). */
  lastType: string | null
  /** Tool-call ids counted in the open run. */
  tools: IdSet
  /** Subagent (Task/Agent) calls of the open run, whose tool_result ends the child. */
  taskIds: IdSet
  /** Denial ids reported by this process so far. */
  seenDenials: IdSet
  /** A root result ended a run and no user or assistant message has come since (a further result is late, K7). */
  afterResult: boolean
  /** `system/permission_denied` facts that came while `afterResult`: they belong to the next run. */
  lateDenials: Array<{ toolName: string; callId: string }>
  /** The usage last stated for a message of the open run (its copies repeat it). */
  lastUsage: LastUsage | null
  /**
   * The last `modelUsage` token totals of this process session per `#model` (input, cache read, cache write,
   * output), at most {@link MAX_MODELS}: whether a model without a cost moved decides if the run's cost is known.
   */
  models: Record<string, Array<number>>
  modelCount: number
}

const FatalCodec = t.intersection([t.type({ message: t.string, code: t.union([t.string, t.null]) }), t.partial({ name: t.string, phase: t.string })])
const NullableString = t.union([t.string, t.null])

/** io-ts codec of {@link StreamState}. @internal */
export const StreamStateCodec: t.Type<StreamState, unknown> = t.type({
  sawInterrupt: t.boolean,
  lastStop: NullableString,
  lastAssistantError: NullableString,
  refusalNoFallback: t.boolean,
  fatal: t.union([FatalCodec, t.null]),
  lastBlock: NullableString,
  resultAfter: t.boolean,
  told: NullableString,
  runSid: NullableString,
  processSession: NullableString,
  gen: t.number,
  lastRootId: NullableString,
  lastRootText: NullableString,
  rootIds: IdSetCodec,
  runModel: NullableString,
  lastType: NullableString,
  tools: IdSetCodec,
  taskIds: IdSetCodec,
  seenDenials: IdSetCodec,
  afterResult: t.boolean,
  lateDenials: t.array(t.type({ toolName: t.string, callId: t.string })),
  models: t.record(t.string, t.array(t.number)),
  modelCount: t.number,
  lastUsage: LastUsageCodec,
}) as unknown as t.Type<StreamState, unknown>

/** A fresh stream-json state. @internal */
export const newStreamState = (): StreamState => ({
  sawInterrupt: false,
  lastStop: null,
  lastAssistantError: null,
  refusalNoFallback: false,
  fatal: null,
  lastBlock: null,
  resultAfter: false,
  told: null,
  runSid: null,
  processSession: null,
  gen: 0,
  lastRootId: null,
  lastRootText: null,
  rootIds: newIdSet(),
  runModel: null,
  lastType: null,
  tools: newIdSet(),
  taskIds: newIdSet(),
  seenDenials: newIdSet(),
  afterResult: false,
  lateDenials: [],
  models: {},
  modelCount: 0,
  lastUsage: null,
})

const NO_FLAGS: RunFlags = {
  sawInterrupt: false,
  lastStop: null,
  lastAssistantError: null,
  refusalNoFallback: false,
  fatal: null,
  lastBlock: null,
  resultAfter: false,
}

/** The `assistant/chunk` data that states a subagent's record as root run content (the process is working). */
const SUBAGENT_CHUNK = Object.freeze({ chunk: Object.freeze({ type: 'subagent' }) })

/** The `assistant/chunk` data of an earlier message written again (run content, not its answer). */
const REPEATED_CHUNK = Object.freeze({ chunk: Object.freeze({ type: 'repeated' }) })

/** The session a re-written message's usage is stated in: neither the root nor a child (the fold only replaces its usage). */
const REPEATS = '<repeated>'

// ---- ending rules ------------------------------------------------------------------------------------------

const errorsOf = (v: Obj): Array<string> => {
  const e = v['errors']
  const out: Array<string> = []
  if (!Array.isArray(e)) return out
  for (let i = 0; i < e.length && out.length < 5; i++) {
    const s = e[i]
    if (typeof s === 'string' && s.length > 0) out.push(clip(s, 2000))
  }
  return out
}

const firstNumber = (texts: ReadonlyArray<string>, re: RegExp): number | undefined => {
  for (const x of texts) {
    const m = re.exec(x)
    if (m !== null && m[1] !== undefined) {
      const n = Number(m[1])
      if (Number.isFinite(n)) return n
    }
  }
  return undefined
}

const limitReason = (reason: string, v: Obj): ReasonIn => {
  const errors = reason === 'max_turns' || reason === 'cost_limit' ? errorsOf(v) : []
  if (reason === 'max_turns') {
    // turns are whole numbers: a figure that is not one is no figure (num_turns' own diagnostic says so)
    const lim = wholeCount(v['max_turns']) ?? wholeCount(v['maxTurns']) ?? wholeCount(firstNumber(errors, /max(?:imum)?(?: number of)? turns\D{0,20}(\d+)/i))
    return { kind: 'limit', reason, field: 'num_turns', actual: wholeCount(v['num_turns']) ?? null, ...(lim !== undefined ? { limit: lim } : {}) }
  }
  if (reason === 'cost_limit') {
    const lim = num(v['max_budget_usd']) ?? num(v['maxBudgetUsd']) ?? firstNumber(errors, /\$\s?(\d+(?:\.\d+)?)/)
    return { kind: 'limit', reason, field: 'total_cost_usd', actual: num(v['total_cost_usd']) ?? null, ...(lim !== undefined ? { limit: lim } : {}) }
  }
  return { kind: 'limit', reason }
}

const failedReason = (v: Obj, reason: string, f: RunFlags, raw?: string): ReasonIn => {
  const text = str(v['result'])
  const errors = errorsOf(v)
  const message =
    text !== undefined && text.length > 0 && v['is_error'] === true
      ? clip(text)
      : errors.length > 0
        ? errors.join('; ')
        : f.fatal !== null
          ? f.fatal.message
          : text !== undefined && text.length > 0
            ? clip(text)
            : 'the run ended with an error'
  const startup = str(v['startup_failure_reason'])
  const code = num(v['api_error_status']) ?? startup ?? f.lastAssistantError ?? f.fatal?.code ?? undefined
  return {
    kind: 'failed',
    reason,
    ...(startup !== undefined ? { phase: 'startup' } : {}),
    error: endingError(message, code),
    ...(raw !== undefined ? { raw } : {}),
  }
}

const isErrorLike = (v: Obj, f: RunFlags): string =>
  num(v['api_error_status']) !== undefined || f.lastAssistantError !== null || f.fatal !== null ? 'provider_error' : 'error'

const bySubtype = (v: Obj, f: RunFlags, subtype: string | undefined): ReasonIn => {
  if (subtype !== undefined) {
    const lim = LIMIT_SUBTYPE.get(subtype)
    if (lim !== undefined) return limitReason(lim, v)
  }
  if (subtype === 'error_during_execution') return f.sawInterrupt ? ABORTED_BY_USER : failedReason(v, 'error', f)
  if (v['is_error'] === true) {
    if (subtype === 'success' || subtype === undefined) return failedReason(v, isErrorLike(v, f), f)
    return failedReason(v, 'unrecognized', f, subtype)
  }
  if (subtype === 'success' || (subtype === undefined && v['is_error'] === false && typeof v['result'] === 'string')) {
    // K18: a success label on a turn whose model last stopped to call a tool, with no result text, is no answer
    const text = v['result']
    const stop = str(v['stop_reason']) ?? f.lastStop
    if ((text === undefined || text === null || text === '') && (stop === 'tool_use' || f.lastBlock === 'tool_use')) {
      return { kind: 'unfinished', lastEventType: f.resultAfter ? 'tool_result' : 'tool_use' }
    }
    const cut =
      cutOffReason(str(v['stop_reason']) ?? f.lastStop) ??
      (f.lastAssistantError === 'max_output_tokens' ? 'max_tokens' : f.refusalNoFallback ? 'refusal' : undefined)
    return cut !== undefined ? { kind: 'cut-off', finishReason: cut } : COMPLETED
  }
  if (subtype === undefined) return { kind: 'failed', reason: 'unrecognized' }
  return { kind: 'failed', reason: 'unrecognized', raw: subtype }
}

/**
 * The `turn/end` reason of a root `result` (SPEC §2 rules 3–4, formats.md §C1/§D): interrupts, hooks and limits
 * keep their meaning even with `is_error`; then a deferred tool (suspended); then the error flag; then a cut-off
 * `stop_reason`; then success. An unknown `terminal_reason` or `subtype` is `failed` `unrecognized`.
 * @internal
 */
export const resultReason = (v: Obj, f: RunFlags): ReasonIn => {
  const subtype = str(v['subtype'])
  const tr = str(v['terminal_reason'])
  if (tr === undefined || tr === 'completed') return bySubtype(v, f, subtype)
  if (tr === 'aborted_streaming' || tr === 'aborted_tools') return ABORTED_BY_USER
  if (tr === 'hook_stopped' || tr === 'stop_hook_prevented') return { kind: 'aborted', reason: { kind: 'hook' } }
  const lim = LIMIT_TERMINAL.get(tr)
  if (lim !== undefined) return limitReason(lim, v)
  if (tr === 'tool_deferred') {
    const dtu = v['deferred_tool_use']
    const pending: Array<Record<string, unknown>> = []
    if (isObject(dtu)) {
      const name = str(dtu['name'])
      pending.push({
        id: str(dtu['id']) ?? '',
        kind: 'approval',
        ...(name !== undefined ? { toolName: name } : {}),
        ...(dtu['input'] !== undefined ? { arguments: dtu['input'] } : {}),
      })
    }
    return { kind: 'suspended', pending }
  }
  if (tr === 'background_requested') return { kind: 'aborted', reason: { kind: 'user', reason: 'background_requested' } }
  const err = ERROR_TERMINAL.get(tr)
  if (err !== undefined) return failedReason(v, err, f)
  // An unknown terminal reason: a label naming a limit still keeps its meaning; otherwise unrecognised.
  if (subtype !== undefined) {
    const l = LIMIT_SUBTYPE.get(subtype)
    if (l !== undefined) return limitReason(l, v)
  }
  return v['is_error'] === true ? failedReason(v, 'unrecognized', f, tr) : { kind: 'failed', reason: 'unrecognized', raw: tr }
}

/** The `turn/end` reason of a `task_notification` status. */
const statusReason = (status: string | undefined): ReasonIn => {
  switch (status) {
    case 'completed':
      return COMPLETED
    case 'failed':
      return { kind: 'failed', reason: 'error' }
    case 'stopped':
    case 'killed':
    case 'cancelled':
      return { kind: 'aborted', reason: { kind: 'parent' } }
    case undefined:
      return { kind: 'unfinished' }
    default:
      return { kind: 'failed', reason: 'unrecognized', raw: status }
  }
}

// ---- translation -------------------------------------------------------------------------------------------

/** Tells the fold the open run's root session (`session/started`, between records) when it changed. */
const tellRoot = (s: StreamState, emit: Emit, recordType?: string): void => {
  const id = s.runSid ?? s.processSession
  if (id === null || id === s.told) return
  s.told = id
  emit(nativeEvent('session/started', NO_DATA, { sessionId: id, between: true, recordType }))
}

/** A root result ended the run: what the next one starts from. */
const newRun = (s: StreamState): void => {
  s.runSid = null
  s.sawInterrupt = false
  s.lastStop = null
  s.lastAssistantError = null
  s.refusalNoFallback = false
  s.fatal = null
  s.lastBlock = null
  s.resultAfter = false
  s.lastRootId = null
  s.lastRootText = null
  s.rootIds = newIdSet()
  s.runModel = null
  s.lastType = null
  s.tools = newIdSet()
  s.taskIds = newIdSet()
  s.lastUsage = null
}

/** A user or assistant message: the run after a result has begun; denials held for it are its own. */
const message = (s: StreamState, type: 'user' | 'assistant'): void => {
  s.afterResult = false
  s.lastType = type
}

const flushLateDenials = (s: StreamState, origin: Origin, emit: Emit): void => {
  if (s.lateDenials.length === 0) return
  for (const d of s.lateDenials) {
    emit(nativeEvent('permission/denied', d, origin))
    addId(s.seenDenials, d.callId, DENIAL_WINDOW)
  }
  s.lateDenials = []
}

const fatalError = (s: StreamState, origin: Origin, emit: Emit): void => {
  const f = s.fatal
  if (f === null) return
  const error = f.name !== undefined ? { ...endingError(f.message, f.code), name: f.name } : endingError(f.message, f.code)
  emit(nativeEvent('stream/error', { error, reason: 'provider_error', ...(f.phase !== undefined ? { phase: f.phase } : {}) }, origin))
}

const assistant = (s: StreamState, v: Obj, time: string | number | undefined, emit: Emit): void => {
  const msg = v['message']
  if (!isObject(msg)) {
    badRecord(emit, 'assistant', 'its message is not an object', time)
    return
  }
  message(s, 'assistant')
  const origin = originOf('assistant', time)
  const parent = str(v['parent_tool_use_id'])
  const model = str(msg['model']) ?? NO_MODEL
  const id = str(msg['id'])
  const synthetic = model === SYNTHETIC_MODEL
  const stated = synthetic ? undefined : messageUsage(emit, msg['usage'], time)
  // a copy that repeats the message's usage exactly changes nothing in the fold: it is not stated again
  const usage = stated !== undefined && repeatsUsage(s, id, model, stated) ? undefined : stated
  if (parent !== undefined) {
    // a subagent's message: its facts are the child's; for the run it is work in progress (content)
    emit(nativeEvent('subagent/started', { childSessionId: parent }, origin))
    const child: Origin = { sessionId: parent, recordType: 'assistant', time }
    // stream-json opens a subagent child for a server-side call too
    assistantBlocks(msg['content'], s.tools, s.taskIds, true, child, emit)
    if (usage !== undefined) {
      emit(nativeEvent('assistant/message', messageData(messageContent(null), usage, model, id), child))
    }
    if (s.fatal !== null) fatalError(s, origin, emit)
    else emit(nativeEvent('assistant/chunk', SUBAGENT_CHUNK, origin))
    flushLateDenials(s, origin, emit)
    return
  }
  const sid = str(v['session_id'])
  if (sid !== undefined) {
    s.runSid = sid
    tellRoot(s, emit, 'assistant')
  }
  const providerError = providerErrorOf(msg)
  if (providerError !== undefined) {
    // a provider error object in place of the model's response (K25): the run's fatal word, not a model response
    emit(nativeEvent('assistant/chunk', { chunk: { type: 'provider_error' } }, origin))
    s.fatal = { message: providerError.message, code: providerError.code, name: providerError.name, phase: 'provider' }
    s.lastAssistantError = null
    flushLateDenials(s, origin, emit)
    fatalError(s, origin, emit)
    return
  }
  const copy = id !== undefined && id === s.lastRootId
  if (!copy && id !== undefined && hasId(s.rootIds, id)) {
    // an earlier message of the run written again (K26): its tool calls count once, its usage replaces the
    // earlier copy's, and it is neither a new turn nor the run's last message
    assistantBlocks(msg['content'], s.tools, s.taskIds, true, origin, emit)
    emit(nativeEvent('assistant/chunk', REPEATED_CHUNK, origin))
    if (usage !== undefined && s.told !== null) {
      const sc = s.told === REPEATS ? `${REPEATS}#2` : REPEATS
      emit(nativeEvent('assistant/message', messageData(messageContent(null), usage, model, id), { sessionId: sc, recordType: 'assistant', time }))
    }
    flushLateDenials(s, origin, emit)
    return
  }
  if (!copy) {
    s.lastRootId = id ?? null
    s.lastRootText = null
    if (id !== undefined) addId(s.rootIds, id)
    emit(nativeEvent('turn/start', NO_DATA, origin))
  }
  if (!synthetic) s.runModel = s.runModel === null || s.runModel === model ? model : ''
  const found = assistantBlocks(msg['content'], s.tools, s.taskIds, true, origin, emit)
  const newCalls = lastBlockEvents()
  // the same record written twice (same message id and content, a new uuid, K26): its text is already the message's
  const repeated = copy && newCalls === 0 && found !== null && repeatsText(s.lastRootText, found)
  const text = synthetic || repeated ? null : found
  if (text !== null) s.lastRootText = joinText(s.lastRootText, text)
  // a further copy of the message with no text and no new usage, after its tool calls (which count the record's
  // line and time), would change nothing in the fold (same message, no fatal error to clear): it is not stated
  if (repeated && usage === undefined) {
    emitRecord(emit, 'assistant', time)
    flushLateDenials(s, origin, emit)
    return
  }
  if (!(copy && usage === undefined && (text === null || synthetic) && s.fatal === null && newCalls > 0)) {
    emit(nativeEvent('assistant/message', messageData(messageContent(text, msg['content']), usage, model, id), origin))
  }
  const content = msg['content']
  if (!repeated && Array.isArray(content)) {
    for (let i = content.length - 1; i >= 0; i--) {
      const b = content[i]
      if (isObject(b) && typeof b['type'] === 'string') {
        s.lastBlock = b['type']
        break
      }
    }
  }
  if (!repeated) s.resultAfter = false
  const errCode = str(v['error'])
  const apiError = v['isApiErrorMessage'] === true || v['is_api_error_message'] === true
  s.fatal = apiError || (synthetic && errCode !== undefined) ? { message: apiErrorMessage(found), code: errCode ?? null } : null
  s.lastAssistantError = errCode ?? null
  const stop = str(msg['stop_reason'])
  if (stop !== undefined) s.lastStop = stop
  flushLateDenials(s, origin, emit)
  fatalError(s, origin, emit)
}

const user = (s: StreamState, v: Obj, time: string | number | undefined, emit: Emit): void => {
  const msg = v['message']
  if (!isObject(msg)) {
    badRecord(emit, 'user', 'its message is not an object', time)
    return
  }
  message(s, 'user')
  s.fatal = null
  const origin = originOf('user', time)
  const root = str(v['parent_tool_use_id']) === undefined
  const content = msg['content']
  if (!Array.isArray(content)) {
    emit(root ? nativeEvent('user/message', USER_MESSAGE, origin) : nativeEvent('assistant/chunk', SUBAGENT_CHUNK, origin))
    if (root && typeof content === 'string' && classifyUserText(content) === 'interrupt') s.sawInterrupt = true
    flushLateDenials(s, origin, emit)
    return
  }
  let results = 0
  let sawText = false
  for (let i = 0; i < content.length; i++) {
    const b = content[i]
    if (!isObject(b)) continue
    const bt = b['type']
    if (bt === 'tool_result') {
      const tid = str(b['tool_use_id'])
      if (tid === undefined) continue
      if (root) {
        emit(nativeEvent('tool/result', b['is_error'] === true ? { callId: tid, error: {} } : { callId: tid }, origin))
        results++
        s.resultAfter = true
      }
      if (hasId(s.taskIds, tid)) {
        const reason = b['is_error'] === true ? failedToolResult(b['content']) : COMPLETED
        emit(nativeEvent('turn/end', { reason, finishReason: null }, { sessionId: tid, recordType: 'user', time }))
      }
    } else if (bt === 'text' && !sawText) {
      sawText = true
      const x = b['text']
      if (root && typeof x === 'string' && classifyUserText(x) === 'interrupt') s.sawInterrupt = true
    }
  }
  if (results === 0) emit(root ? nativeEvent('user/message', USER_MESSAGE, origin) : nativeEvent('assistant/chunk', SUBAGENT_CHUNK, origin))
  flushLateDenials(s, origin, emit)
}

const system = (s: StreamState, v: Obj, time: string | number | undefined, emit: Emit): void => {
  const subtype = str(v['subtype'])
  const type = subtype !== undefined ? `system/${subtype.length > 40 ? subtype.slice(0, 40) : subtype}` : 'system'
  s.lastType = type
  const origin: Origin = { recordType: type, time }
  switch (subtype) {
    case 'init': {
      const sid = str(v['session_id'])
      if (sid !== undefined) {
        if (s.processSession !== null && sid !== s.processSession) {
          s.gen++
          s.models = {}
          s.modelCount = 0
        }
        s.processSession = sid
        if (s.runSid === null) s.runSid = sid
        const root = s.runSid ?? s.processSession
        if (root !== s.told) {
          s.told = root
          emit(nativeEvent('session/started', NO_DATA, { sessionId: root, recordType: type, time }))
          return
        }
      }
      emitRecord(emit, type, time)
      return
    }
    case 'task_started': {
      const key = str(v['tool_use_id']) ?? str(v['task_id'])
      if (key !== undefined) emit(nativeEvent('subagent/started', { childSessionId: key }, origin))
      else emitRecord(emit, type, time)
      return
    }
    case 'task_notification': {
      const key = str(v['tool_use_id']) ?? str(v['task_id'])
      if (key === undefined) {
        emitRecord(emit, type, time)
        return
      }
      const status = str(v['status'])
      emit(nativeEvent('subagent/started', { childSessionId: key }, origin))
      emit(nativeEvent('turn/end', { reason: statusReason(status), finishReason: status ?? null }, { sessionId: key, recordType: type, time }))
      return
    }
    case 'permission_denied': {
      const toolName = str(v['tool_name'])
      const callId = str(v['tool_use_id'])
      if (toolName === undefined || callId === undefined) {
        emitRecord(emit, type, time)
        return
      }
      if (s.afterResult) {
        // between a result and the next message: the next run's (the closed run's denials were its result's)
        emitRecord(emit, type, time)
        if (s.lateDenials.length < MAX_LATE_DENIALS) s.lateDenials.push({ toolName, callId })
        return
      }
      emit(nativeEvent('permission/denied', { toolName, callId }, origin))
      addId(s.seenDenials, callId, DENIAL_WINDOW)
      return
    }
    case 'model_refusal_no_fallback':
      s.refusalNoFallback = true
      emitRecord(emit, type, time)
      return
    default:
      emitRecord(emit, type, time)
      return
  }
}

/**
 * Remembers a model's new `modelUsage` token totals and tells whether they moved as the fold counts it (the
 * change from the last totals, or the totals themselves when there were none or one went down, is not zero).
 */
const moved = (s: StreamState, model: string, u: NativeUsage): boolean => {
  const key = `#${model}`
  const i = u.inputTokens
  const r = u.cacheReadTokens ?? 0
  const w = u.cacheWriteTokens ?? 0
  const o = u.outputTokens
  const prev = s.models[key]
  if (prev === undefined) {
    if (s.modelCount < MAX_MODELS) {
      s.models[key] = [i, r, w, o]
      s.modelCount++
    }
    return i !== 0 || r !== 0 || w !== 0 || o !== 0
  }
  const [pi = 0, pr = 0, pw = 0, po = 0] = prev
  prev[0] = i
  prev[1] = r
  prev[2] = w
  prev[3] = o
  // a total that went down counts from zero (the fold's rule): it moved unless it is zero
  if (i < pi || r < pr || w < pw || o < po) return i !== 0 || r !== 0 || w !== 0 || o !== 0
  return i !== pi || r !== pr || w !== pw || o !== po
}

/** The run's running totals (`total_cost_usd`, `modelUsage`, `num_turns`) as `usage/total` events, per process session. */
const totals = (s: StreamState, v: Obj, origin: Origin, emit: Emit): void => {
  const rawCost = v['total_cost_usd']
  const total = amount(rawCost)
  if (total === undefined && rawCost !== undefined && rawCost !== null) emitDiagnostic(emit, 'ignored total_cost_usd: it is not a non-negative number')
  const mu = v['modelUsage']
  let byModel = false
  let priced = true
  if (isObject(mu)) {
    const keys = Object.keys(mu)
    if (keys.length > 0) {
      byModel = true
      let valid = 0
      for (let i = 0; i < keys.length; i++) {
        const model = keys[i] as string
        const e = modelUsageEntry(mu[model])
        if (e === null) {
          emitDiagnostic(emit, 'ignored a modelUsage entry whose counts are not non-negative numbers')
          continue
        }
        valid++
        if (moved(s, model, e.usage) && e.cost === undefined) priced = false
        emit(
          nativeEvent(
            'usage/total',
            { counter: `${s.gen}/model/${model}`, model, usage: e.usage, ...(e.cost !== undefined ? { costUsd: e.cost } : {}) },
            origin,
          ),
        )
      }
      // modelUsage is the run's usage even when none of its entries could be read (not the messages')
      if (valid === 0) emit(nativeEvent('usage/set', { models: [] }, origin))
    }
  }
  if (!byModel) {
    // no modelUsage (Claude Code 1.0.x): the result's `usage` is the figure its total_cost_usd was computed from,
    // a running total of the process like it, and the run's usage (the messages' sum undercounts it)
    const u = v['usage']
    if (u !== undefined && u !== null) {
      const b = anthropicBuckets(u)
      if (b === undefined || b === null) emitDiagnostic(emit, 'ignored the usage of a result: a token count is not a non-negative number')
      else {
        const model = s.runModel !== null && s.runModel !== '' ? s.runModel : NO_MODEL
        emit(nativeEvent('usage/total', { counter: `${s.gen}/usage`, model, usage: b }, origin))
      }
    }
  }
  const rawTurns = v['num_turns']
  const turns = wholeCount(rawTurns)
  if (turns === undefined && rawTurns !== undefined && rawTurns !== null) emitDiagnostic(emit, 'ignored num_turns: it is not a non-negative integer')
  const counter = `${s.gen}/run`
  if (total !== undefined && byModel && !priced) {
    // a model without a cost: the run's cost is unknown, whatever the process total says (the total still moves)
    emit(nativeEvent('usage/total', { counter, costUsd: total, baseline: true }, origin))
    if (turns !== undefined) emit(nativeEvent('usage/total', { counter, turns }, origin))
  } else if (total !== undefined || turns !== undefined) {
    emit(nativeEvent('usage/total', { counter, ...(total !== undefined ? { costUsd: total } : {}), ...(turns !== undefined ? { turns } : {}) }, origin))
  }
}

const denials = (s: StreamState, v: Obj, origin: Origin, emit: Emit): void => {
  const list = v['permission_denials']
  if (!Array.isArray(list)) {
    if (list !== undefined && list !== null) emitDiagnostic(emit, 'ignored permission_denials: it is not an array')
    return
  }
  for (let i = 0; i < list.length; i++) {
    const x = list[i]
    if (!isObject(x)) continue
    const toolName = str(x['tool_name'])
    const callId = str(x['tool_use_id'])
    if (toolName === undefined || callId === undefined || hasId(s.seenDenials, callId)) continue
    addId(s.seenDenials, callId, DENIAL_WINDOW)
    emit(nativeEvent('permission/denied', { toolName, callId }, origin))
  }
}

const result = (s: StreamState, v: Obj, time: string | number | undefined, emit: Emit): void => {
  const st = v['subtype']
  const ie = v['is_error']
  const tr = v['terminal_reason']
  if (
    (st !== undefined && typeof st !== 'string') ||
    (ie !== undefined && typeof ie !== 'boolean') ||
    (tr !== undefined && tr !== null && typeof tr !== 'string')
  ) {
    badRecord(emit, 'result', 'subtype, is_error or terminal_reason has an unexpected type', time)
    return
  }
  const sid = str(v['session_id'])
  const rootSid = s.runSid ?? s.processSession
  const finishReason = str(tr) ?? str(st) ?? null
  if (sid !== undefined && rootSid !== null && sid !== rootSid) {
    // A result of another session in this stream (a background subagent): a child, never the run's ending.
    emit(nativeEvent('turn/end', { reason: resultReason(v, NO_FLAGS), finishReason }, { sessionId: sid, recordType: s.lastType ?? 'result', time }))
    return
  }
  const origin = originOf('result', time)
  if (s.afterResult) {
    // nothing of a new run since the previous result: the fold keeps the first ending (K7)
    emit(nativeEvent('turn/end', { reason: resultReason(v, s), finishReason }, origin))
    return
  }
  if (sid !== undefined && rootSid === null) {
    s.runSid = sid
    tellRoot(s, emit, 'result')
  }
  totals(s, v, origin, emit)
  denials(s, v, origin, emit)
  const written = v['result']
  // K19: the result's text can hold only part of the final message (its last text block): the whole message is
  // the answer then
  const whole = s.lastRootText
  const text = typeof written === 'string' && whole !== null && written !== whole && whole.includes(written) ? whole : written
  const so = v['structured_output']
  const dur = amount(v['duration_ms'])
  emit(
    nativeEvent(
      'turn/end',
      {
        reason: resultReason(v, s),
        finishReason,
        ...(typeof text === 'string' ? { text } : {}),
        ...(so !== undefined && so !== null ? { structuredOutput: so } : {}),
        ...(dur !== undefined ? { durationMs: dur } : {}),
      },
      origin,
    ),
  )
  emitIdle(emit)
  newRun(s)
  tellRoot(s, emit)
  s.afterResult = true
}

/**
 * Translates one stream-json record (an object).
 * @internal
 */
export const streamRecord = (s: StreamState, v: Obj, emit: Emit): void => {
  const type = v['type']
  if (typeof type !== 'string') {
    emitDiagnostic(emit, 'skipped a record without a string "type"')
    return
  }
  const time = timeOf(v['timestamp'])
  switch (type) {
    case 'assistant':
      assistant(s, v, time, emit)
      return
    case 'user':
      user(s, v, time, emit)
      return
    case 'result':
      result(s, v, time, emit)
      return
    case 'system':
      system(s, v, time, emit)
      return
    default:
      if (IGNORED_TYPES.has(type)) emitRecord(emit, undefined, time)
      else unknownType(emit, type, time)
  }
}
