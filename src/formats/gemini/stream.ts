/**
 * The translator of Gemini CLI `--output-format stream-json` (one JSON record per line, stdout noise between them).
 * The rules, and how they become native events, are documented on the format module (`src/formats/gemini.ts`).
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import { safeName } from '../../core/names.js'
import type { Emit } from '../../core/translator.js'
import { emitDiagnostic, emitIdle, nativeEvent, type ReasonIn } from '../events.js'
import { isObject, type Obj } from '../json.js'
import { isTokenCount } from '../../core/values.js'
import { MSG, cutOffOf, isCount } from './shared.js'

/** Token figures of one model in a `result.stats` (disjoint, thinking apart). @internal */
export interface Totals {
  uncached: number
  cached: number
  output: number
  thinking: number
}

const TotalsCodec = t.type({ uncached: t.number, cached: t.number, output: t.number, thinking: t.number })

/**
 * The stream translator's state (plain JSON). Per process: the `init` model, the running totals and duration of
 * its previous `result`. Per run: what the ending rules read from the run's records so far; the last assistant
 * message's text (a message's `delta` chunks are joined here, so each chunk can state the message so far).
 * @internal
 */
export interface StreamState {
  live: boolean
  initModel: string | null
  /** This process's running totals at its previous `result` (`#`-prefixed model keys), or null after an `init`. */
  prevTotals: Record<string, Totals> | null
  prevDurationMs: number | null
  /** The `session_id` of an `init` not stated yet: it is stated with the next run's first content. */
  pendingSession: string | null
  /** The open run has content. */
  content: boolean
  /** The open run has its `result`: the root idle is stated at the next run's first content (replay). */
  decided: boolean
  /** Live: the run was handed out at its result, and no new run content has come since. */
  justEnded: boolean
  text: string | null
  assistantOpen: boolean
  inModelTurn: boolean
  lastFatal: string | null
  lastErrorMessage: string | null
  turnLimit: boolean
  lastWarning: 'loop' | 'blocked' | null
  blockedMessage: string | null
  stderrClass: string | null
  stderrCode: number | null
}

const strOrNull = t.union([t.string, t.null])

/** io-ts codec of {@link StreamState}. @internal */
export const StreamStateCodec: t.Type<StreamState, unknown> = t.type({
  live: t.boolean,
  initModel: strOrNull,
  prevTotals: t.union([t.record(t.string, TotalsCodec), t.null]),
  prevDurationMs: t.union([t.number, t.null]),
  pendingSession: strOrNull,
  content: t.boolean,
  decided: t.boolean,
  justEnded: t.boolean,
  text: strOrNull,
  assistantOpen: t.boolean,
  inModelTurn: t.boolean,
  lastFatal: strOrNull,
  lastErrorMessage: strOrNull,
  turnLimit: t.boolean,
  lastWarning: t.union([t.literal('loop'), t.literal('blocked'), t.null]),
  blockedMessage: strOrNull,
  stderrClass: strOrNull,
  stderrCode: t.union([t.number, t.null]),
}) as unknown as t.Type<StreamState, unknown>

/** A fresh stream state. @internal */
export const newStreamState = (live: boolean): StreamState => ({
  live,
  initModel: null,
  prevTotals: null,
  prevDurationMs: null,
  pendingSession: null,
  content: false,
  decided: false,
  justEnded: false,
  text: null,
  assistantOpen: false,
  inModelTurn: false,
  lastFatal: null,
  lastErrorMessage: null,
  turnLimit: false,
  lastWarning: null,
  blockedMessage: null,
  stderrClass: null,
  stderrCode: null,
})

const MAX_TURNS_MESSAGE = 'Maximum session turns exceeded'
const LOOP_MESSAGE = 'Loop detected, stopping execution'
const BLOCKED_PREFIX = 'Agent execution blocked'
const LATE_ERROR = "an error record after the run's result was kept as a diagnostic"
const LATE_RESULT = 'ignored a further result record for a run that already has one'
/** An error class name at the head of a stack trace printed on stdout: `TerminalQuotaError: You exceeded…`. */
const ERROR_CLASS_RE = /\b([A-Z][A-Za-z0-9]*(?:Error|Exception)):\s/
/** The HTTP status of a printed Google API error object: `    code: 429,`. */
const ERROR_CODE_RE = /^\s+code: ([1-5]\d\d),?\s*$/

const num = (o: Obj, k: string): number | undefined | null => {
  const v = o[k]
  if (v === undefined) return undefined
  return isTokenCount(v) ? v : null
}

/**
 * Reads one `stats` (or `stats.models[m]`) object into disjoint totals. `input_tokens` includes `cached`;
 * `input` is the uncached part (computed as `input_tokens − cached` when absent); `total_tokens − input_tokens −
 * output_tokens` is thinking. Returns `null` when a present figure is not a count, `undefined` when no figure is
 * present at all.
 */
const readTotals = (o: Obj): Totals | null | undefined => {
  const total = num(o, 'total_tokens')
  const prompt = num(o, 'input_tokens')
  const output = num(o, 'output_tokens')
  const cached = num(o, 'cached')
  const input = num(o, 'input')
  if (total === null || prompt === null || output === null || cached === null || input === null) return null
  if (total === undefined && prompt === undefined && output === undefined && cached === undefined && input === undefined) return undefined
  const c = cached ?? 0
  const uncached = input ?? Math.max(0, (prompt ?? 0) - c)
  const promptAll = prompt ?? uncached + c
  const out = output ?? 0
  const thinking = total === undefined ? 0 : Math.max(0, total - promptAll - out)
  // Buckets must stay exact counts once thinking is added to output.
  if (!isTokenCount(uncached) || !isTokenCount(out + thinking)) return null
  return { uncached, cached: c, output: out, thinking }
}

/** `a − b` per bucket; `a` as stated when any bucket went down (not the same running total). */
const minus = (a: Totals, b: Totals | undefined): Totals =>
  b === undefined || a.uncached < b.uncached || a.cached < b.cached || a.output < b.output || a.thinking < b.thinking
    ? a
    : {
        uncached: a.uncached - b.uncached,
        cached: a.cached - b.cached,
        output: a.output - b.output,
        thinking: a.thinking - b.thinking,
      }

const isZero = (x: Totals): boolean => x.uncached === 0 && x.cached === 0 && x.output === 0 && x.thinking === 0

/** The per-run state starts over (a run ended). */
const resetRun = (s: StreamState): void => {
  s.content = false
  s.text = null
  s.assistantOpen = false
  s.inModelTurn = false
  s.lastFatal = null
  s.lastErrorMessage = null
  s.turnLimit = false
  s.lastWarning = null
  s.blockedMessage = null
  s.stderrClass = null
  s.stderrCode = null
}

/** The open run is over (a new process or a new prompt): the root idle; a run without a result is read as it stands. */
const endRun = (s: StreamState, emit: Emit): void => {
  if (s.decided) {
    s.decided = false
    emitIdle(emit)
  } else if (s.content) {
    emitIdle(emit)
    resetRun(s)
  }
}

/**
 * A record with run content: the ended run is closed first (its idle), the pending session is stated, and the
 * fatal error stops being the last word. Returns `true` when the record is the first content of its run.
 */
const begin = (s: StreamState, emit: Emit): boolean => {
  if (s.decided) {
    s.decided = false
    emitIdle(emit)
  }
  s.justEnded = false
  if (s.pendingSession !== null) {
    emit(nativeEvent('session/started', {}, { sessionId: s.pendingSession, between: true }))
    s.pendingSession = null
  }
  s.lastFatal = null
  const first = !s.content
  s.content = true
  return first
}

/**
 * The fatal error as the run knows it now: its message, and the HTTP code and class a printed stack trace gave
 * (in SPEC §2's order, `{ message, code?, name? }`, as the fold writes a `turn/end`'s error).
 */
const fatalError = (s: StreamState, message: string): { message: string; code?: number; name?: string } => ({
  message,
  ...(s.stderrCode !== null ? { code: s.stderrCode } : {}),
  ...(s.stderrClass !== null ? { name: s.stderrClass } : {}),
})

/** A model message or tool call: the first one since the prompt or the last tool result begins a model turn. */
const modelTurn = (s: StreamState, emit: Emit, o: { time: string | undefined; recordType: string }): void => {
  if (s.inModelTurn) return
  s.inModelTurn = true
  emit(nativeEvent('turn/start', {}, o))
}

/**
 * A line that is not JSON (stdout noise: banners, warnings, stack traces). While the run has no result, a stack
 * trace's error class and HTTP code are read from it; when they complete the fatal error that is the run's last
 * word, that error is stated again with them.
 * @internal
 */
export const streamNoise = (s: StreamState, text: string, unterminated: boolean, emit: Emit): void => {
  emitDiagnostic(emit, unterminated ? MSG.cutLine : MSG.notJson)
  if (s.decided || text.length >= 65536) return
  let learned = false
  if (s.stderrClass === null) {
    const m = ERROR_CLASS_RE.exec(text)
    if (m !== null && m[1] !== undefined) {
      s.stderrClass = safeName(m[1])
      learned = true
    }
  }
  if (s.stderrCode === null) {
    const c = ERROR_CODE_RE.exec(text)
    if (c !== null && c[1] !== undefined) {
      s.stderrCode = Number(c[1])
      learned = true
    }
  }
  if (learned && s.lastFatal !== null) emit(nativeEvent('stream/error', { error: fatalError(s, s.lastFatal) }, { recordType: 'error' }))
}

/** A JSON value that is not an object. @internal */
export const streamNotObject = (emit: Emit): void => emitDiagnostic(emit, MSG.notObject)

const onInit = (s: StreamState, v: Obj, ts: string | undefined, emit: Emit): void => {
  const sid = v['session_id']
  const model = v['model']
  if ((sid !== undefined && typeof sid !== 'string') || (model !== undefined && typeof model !== 'string')) {
    emitDiagnostic(emit, 'skipped an init record whose session_id or model is not a string')
    return
  }
  // A new process: the previous run is complete, and stats restart from zero.
  endRun(s, emit)
  s.prevTotals = null
  s.prevDurationMs = null
  if (typeof sid === 'string') s.pendingSession = sid
  s.initModel = typeof model === 'string' ? model : null
  // its line and time belong to the next run
  emit(nativeEvent('source/record', {}, { time: ts }))
}

const onMessage = (s: StreamState, v: Obj, ts: string | undefined, emit: Emit): void => {
  const role = v['role']
  const text = v['content']
  if ((role !== 'user' && role !== 'assistant') || typeof text !== 'string') {
    emitDiagnostic(emit, 'skipped a message record whose role or content has an unexpected type')
    return
  }
  const delta = v['delta'] === true
  const o = { time: ts, recordType: 'message' }
  if (role === 'user') {
    // A second prompt with no result in between: the open run never got its result.
    endRun(s, emit)
    begin(s, emit)
    s.assistantOpen = false
    s.inModelTurn = false
    emit(nativeEvent('user/message', { message: null }, o))
    return
  }
  begin(s, emit)
  modelTurn(s, emit, o)
  s.text = delta && s.assistantOpen && s.text !== null ? s.text + text : text
  s.assistantOpen = true
  s.lastWarning = null
  // the message so far: the fold's response is the last assistant message's text
  emit(nativeEvent('assistant/message', { message: { content: [{ type: 'text', text: s.text }] } }, o))
}

const onToolUse = (s: StreamState, v: Obj, ts: string | undefined, emit: Emit): void => {
  const name = v['tool_name']
  if (name !== undefined && typeof name !== 'string') {
    emitDiagnostic(emit, 'skipped a tool_use record whose tool_name is not a string')
    return
  }
  const id = v['tool_id']
  const o = { time: ts, recordType: 'tool_use' }
  begin(s, emit)
  modelTurn(s, emit, o)
  s.assistantOpen = false
  s.lastWarning = null
  emit(nativeEvent('tool/call', { callId: typeof id === 'string' ? id : '', name: typeof name === 'string' ? name : 'tool_use' }, o))
}

const onToolResult = (s: StreamState, v: Obj, ts: string | undefined, emit: Emit): void => {
  const status = v['status']
  if (status !== undefined && typeof status !== 'string') {
    emitDiagnostic(emit, 'skipped a tool_result record whose status is not a string')
    return
  }
  const id = v['tool_id']
  begin(s, emit)
  s.inModelTurn = false
  s.assistantOpen = false
  emit(nativeEvent('tool/result', { callId: typeof id === 'string' ? id : '' }, { time: ts, recordType: 'tool_result' }))
}

const onError = (s: StreamState, v: Obj, ts: string | undefined, emit: Emit): void => {
  const severity = v['severity']
  const message = v['message']
  if (typeof severity !== 'string' || typeof message !== 'string') {
    emitDiagnostic(emit, 'skipped an error record whose severity or message is not a string')
    return
  }
  // After the run's result (K7): the answer stands, the late error is only noted (live: in no run).
  if (s.decided || s.justEnded) {
    emitDiagnostic(emit, LATE_ERROR, !s.decided)
    return
  }
  begin(s, emit)
  const o = { time: ts, recordType: 'error' }
  if (severity === 'error') {
    s.lastFatal = message
    s.lastErrorMessage = message
    if (message === MAX_TURNS_MESSAGE) s.turnLimit = true
    emit(nativeEvent('stream/error', { error: fatalError(s, message) }, o))
    return
  }
  // a warning never decides an ending by itself; it is run content all the same
  if (message === LOOP_MESSAGE) s.lastWarning = 'loop'
  else if (message.startsWith(BLOCKED_PREFIX)) {
    s.lastWarning = 'blocked'
    s.blockedMessage = message
  }
  emit(nativeEvent('assistant/chunk', { chunk: { type: 'error' } }, o))
}

/** The `turn/end` reason of a `result` (the ending rules of the module doc, in the native words). */
const resultReason = (s: StreamState, status: string, hasError: boolean, errType: string | undefined, errMessage: string | undefined): ReasonIn => {
  if (errType === 'FatalCancellationError') return { kind: 'aborted', reason: { kind: 'user', reason: 'cancelled' } }
  const vague = errType === undefined || errType === 'unknown'
  if (errType === 'FatalTurnLimitedError' || (status === 'error' && vague && s.turnLimit)) return { kind: 'limit', reason: 'max_turns' }
  if (status === 'error' || hasError) {
    const message = errMessage ?? s.lastErrorMessage ?? undefined
    if (errType === undefined || errType === 'INVALID_STREAM') {
      const cut = message !== undefined ? cutOffOf(message) : undefined
      if (cut === 'max_tokens') return { kind: 'max-tokens' }
      if (cut === 'content_filter') return { kind: 'content-filter' }
    }
    const name = vague ? (s.stderrClass ?? errType) : errType
    if (message === undefined && name === undefined) return { kind: 'failed', reason: 'error' }
    return {
      kind: 'error',
      error: {
        message: message ?? 'the run ended with an error',
        ...(name !== undefined ? { name: safeName(name) } : {}),
        ...(vague && s.stderrCode !== null ? { code: s.stderrCode } : {}),
      },
    }
  }
  if (status === 'success') {
    if (s.lastWarning === 'loop') return { kind: 'limit', reason: 'tool_loop' }
    if (s.lastWarning === 'blocked') return { kind: 'blocked', guardrail: 'hook', ...(s.blockedMessage !== null ? { message: s.blockedMessage } : {}) }
    return { kind: 'completed' }
  }
  return { kind: 'failed', reason: 'unrecognized', raw: status }
}

/** What `result.stats` states: each model's usage (differenced within a process), the duration, diagnostics. */
interface StatsRead {
  readonly now: Record<string, Totals> | null
  readonly models: Array<{ model: string; usage: { inputTokens: number; cacheReadTokens: number; outputTokens: number; reasoningTokens: number } }>
  readonly durationMs: number | undefined
  readonly newDuration: number | null
  readonly diagnostics: Array<string>
}

/** Reads `result.stats` without changing the state (a value that throws leaves nothing half done). */
const readStats = (s: StreamState, stats: unknown, success: boolean): StatsRead => {
  const diagnostics: Array<string> = []
  const none: StatsRead = { now: null, models: [], durationMs: undefined, newDuration: s.prevDurationMs, diagnostics }
  if (stats === undefined || stats === null) return none
  if (!isObject(stats)) {
    diagnostics.push('ignored result stats that are not an object')
    return none
  }
  const now: Record<string, Totals> = {}
  const order: Array<string> = []
  const put = (model: string, x: Totals): void => {
    const k = `#${model}`
    if (now[k] === undefined) order.push(model)
    now[k] = x
  }
  const models = stats['models']
  let bad = false
  if (isObject(models) && Object.keys(models).length > 0) {
    for (const model of Object.keys(models)) {
      const m = models[model]
      const x = isObject(m) ? readTotals(m) : null
      if (x === null) bad = true
      else if (x !== undefined) put(model, x)
    }
  } else {
    if (models !== undefined && !isObject(models)) bad = true
    const x = readTotals(stats)
    if (x === null) bad = true
    else if (x !== undefined) put(s.initModel ?? 'unknown', x)
  }
  if (bad) diagnostics.push('ignored a token count in result stats that is not a whole, non-negative number')
  const prev = s.prevTotals
  const out: StatsRead['models'] = []
  for (const model of order) {
    const k = `#${model}`
    const x = now[k] as Totals
    const before = prev !== null ? prev[k] : undefined
    const delta = minus(x, before)
    if (before !== undefined && isZero(delta)) continue
    out.push({
      model,
      usage: { inputTokens: delta.uncached, cacheReadTokens: delta.cached, outputTokens: delta.output + delta.thinking, reasoningTokens: delta.thinking },
    })
  }
  const dur = stats['duration_ms']
  let durationMs: number | undefined
  let newDuration: number | null = s.prevDurationMs
  if (dur !== undefined) {
    if (!isCount(dur)) diagnostics.push('ignored a duration_ms that is not a finite, non-negative number')
    // gemini-cli's error path writes `duration_ms: 0` (not measured; corpus gemini-error.jsonl spans 156 ms):
    // the span of the record times is the better figure then.
    else if (!(dur === 0 && !success)) {
      durationMs = s.prevDurationMs !== null ? Math.max(0, dur - s.prevDurationMs) : dur
      newDuration = dur
    }
  }
  return { now: order.length > 0 ? now : null, models: out, durationMs, newDuration, diagnostics }
}

const onResult = (s: StreamState, v: Obj, ts: string | undefined, emit: Emit): void => {
  const status = v['status']
  if (typeof status !== 'string') {
    emitDiagnostic(emit, 'skipped a result record whose status is not a string')
    return
  }
  // A second result with no new prompt or model output (K7): it does not override the first (live: in no run).
  if (s.decided || s.justEnded) {
    emitDiagnostic(emit, LATE_RESULT, !s.decided)
    return
  }
  const err = v['error']
  let errType: string | undefined
  let errMessage: string | undefined
  let hasError = false
  let errNotObject = false
  if (err !== undefined && err !== null) {
    if (isObject(err)) {
      hasError = true
      const et = err['type']
      const em = err['message']
      if (typeof et === 'string') errType = et
      if (typeof em === 'string') errMessage = em
    } else errNotObject = true
  }
  const stats = readStats(s, v['stats'], status === 'success')
  const o = { time: ts, recordType: 'result' }
  // a result that opens its run is its content before its facts (a fact right after a run boundary would be a late record of the run before)
  if (begin(s, emit)) emit(nativeEvent('assistant/chunk', { chunk: { type: 'result' } }, o))
  if (errNotObject) emitDiagnostic(emit, 'ignored a result error that is not an object')
  const reason = resultReason(s, status, hasError, errType, errMessage)
  for (const m of stats.diagnostics) emitDiagnostic(emit, m)
  if (stats.now !== null) {
    emit(nativeEvent('usage/set', { models: stats.models }, o))
    s.prevTotals = stats.now
  }
  s.prevDurationMs = stats.newDuration
  emit(nativeEvent('turn/end', { reason, finishReason: status, ...(stats.durationMs !== undefined ? { durationMs: stats.durationMs } : {}) }, o))
  resetRun(s)
  if (s.live) {
    // live: the run is handed out at its result; late records of it are notes
    emitIdle(emit)
    s.justEnded = true
  } else s.decided = true
}

/**
 * Translates one parsed stream-json record (an object). Reads the fields it needs before it changes anything.
 * @internal
 */
export const streamRecord = (s: StreamState, v: Obj, emit: Emit): void => {
  const type = v['type']
  if (typeof type !== 'string') {
    emitDiagnostic(emit, 'skipped a record without a string "type"')
    return
  }
  const tsv = v['timestamp']
  const ts = typeof tsv === 'string' ? tsv : undefined
  switch (type) {
    case 'init':
      return onInit(s, v, ts, emit)
    case 'message':
      return onMessage(s, v, ts, emit)
    case 'tool_use':
      return onToolUse(s, v, ts, emit)
    case 'tool_result':
      return onToolResult(s, v, ts, emit)
    case 'error':
      return onError(s, v, ts, emit)
    case 'result':
      return onResult(s, v, ts, emit)
    default:
      emitDiagnostic(emit, 'ignored a record of an unknown type')
  }
}

/**
 * The input failed while being read: a run whose `result` has arrived is closed (its idle), as the next run's
 * first record would close it; records the process would still have printed after it never come.
 * @internal
 */
export const streamFailed = (s: StreamState, emit: Emit): void => {
  if (!s.decided) return
  s.decided = false
  emitIdle(emit)
}

/**
 * The input ended. The fold hands out the open run (its ending read from what it holds: a `result`, a fatal
 * error as its last word, or unfinished). An `init` whose session no content followed still names the session
 * of an input that had no run at all.
 * @internal
 */
export const streamEnd = (s: StreamState, emit: Emit): void => {
  if (s.pendingSession !== null) {
    // a record of the session with no fact: it names the root only when none is known (a run-less input)
    emit(nativeEvent('source/record', {}, { sessionId: s.pendingSession, between: true }))
    s.pendingSession = null
  }
}
