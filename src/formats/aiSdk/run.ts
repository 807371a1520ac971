/**
 * What the three `ai-sdk` dialects share (the AI SDK's `fullStream` parts, its UI message stream chunks, and the
 * raw provider chunks its provider packages read): the translator's state and its codec, the open run's
 * bookkeeping (steps, text, tool calls waiting for an output, approval requests, usage), the ending rules of
 * `../aiSdk.ts` stated as `turn/end` reasons, and the run boundary.
 *
 * The state is plain JSON (no Maps or Sets): id-keyed records use `#`-prefixed keys, so an id such as
 * `__proto__` is an ordinary key, and JavaScript keeps their insertion order as a Map did. It never keeps the
 * records: counters, the current and previous step's text, the open tool calls (at most {@link MAX_OPEN_CALLS})
 * and at most {@link MAX_SEEN_IDS} tool-call ids. Values taken from input that the state keeps (tool inputs) are
 * copied as JSON ({@link jsonCopy}), so a live stream's objects are never held and a checkpoint is exact.
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import type { NativeUsage } from '../../core/events.js'
import type { EndingError } from '../../core/RunEnding.js'
import { quoteName } from '../../core/names.js'
import { NO_MODEL, type UsageInput } from '../../core/RunResult.js'
import type { Emit } from '../../core/translator.js'
import { emitDiagnostic, emitIdle, nativeEvent, type Origin, type ReasonIn } from '../events.js'
import { isTokenCount } from '../../core/values.js'
import { isObject, str, type Obj } from '../json.js'
import type { UsageRead } from './usage.js'

// ---- bounds ---------------------------------------------------------------------------------------------

/** Tool calls of a run kept waiting for an output (the oldest is forgotten). @internal */
export const MAX_OPEN_CALLS = 1024
/** Tool-call ids remembered per run for de-duplication (then forgotten all at once). @internal */
export const MAX_SEEN_IDS = 4096
/** Streamed tool input text kept per call. @internal */
export const MAX_INPUT_TEXT = 1024 * 1024
const MAX_MESSAGE = 4000

/** At most 4,000 characters of an error message or abort reason. @internal */
export const cap = (s: string): string => (s.length > MAX_MESSAGE ? s.slice(0, MAX_MESSAGE) : s)

// ---- reading values that may come from a live stream ------------------------------------------------------

/** `o[k]`, or `undefined` when reading it throws (a getter, a proxy). @internal */
export const get = (o: Obj, k: string): unknown => {
  try {
    return o[k]
  } catch {
    return undefined
  }
}

/** `k in o`, or `false` when asking throws (a proxy). @internal */
export const has = (o: Obj, k: string): boolean => {
  try {
    return k in o
  } catch {
    return false
  }
}

/** Nesting depth of a kept input value that `JSON.stringify` cannot write whole (what a printed result keeps of it). */
const COPY_DEPTH = 508

const primitive = (v: unknown): unknown => {
  if (typeof v === 'string' || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  return undefined
}

const cut = (v: unknown, depth: number, stack: Set<object>): unknown => {
  if (typeof v !== 'object' || v === null) return v === null ? null : primitive(v)
  if (depth <= 0 || stack.has(v)) return null
  stack.add(v)
  try {
    if (Array.isArray(v)) {
      const out: Array<unknown> = []
      const n = v.length
      for (let i = 0; i < n; i++) out.push(cut(get(v as unknown as Obj, String(i)), depth - 1, stack) ?? null)
      return out
    }
    const entries: Array<[string, unknown]> = []
    for (const k of Object.keys(v)) {
      const x = cut(get(v as Obj, k), depth - 1, stack)
      if (x !== undefined) entries.push([k, x])
    }
    // Object.fromEntries defines own properties, so a `__proto__` key stays an ordinary key
    return Object.fromEntries(entries)
  } catch {
    return null
  } finally {
    stack.delete(v)
  }
}

/**
 * A plain JSON copy of a value taken from input (a tool call's input): `JSON.parse(JSON.stringify(v))`, or, when
 * that throws (too deep, a cycle, a getter that throws, a BigInt), a copy cut at {@link COPY_DEPTH} levels in
 * which what cannot be written is `null` (or left out of an object). Never throws.
 * @internal
 */
export const jsonCopy = (v: unknown): unknown => {
  if (typeof v !== 'object' || v === null) return v === null ? null : primitive(v)
  try {
    const s = JSON.stringify(v)
    return s === undefined ? undefined : (JSON.parse(s) as unknown)
  } catch {
    return cut(v, COPY_DEPTH, new Set())
  }
}

/** An OpenAI Chat Completions / Completions stream chunk (it has no `type`). @internal */
export const isChatChunk = (v: Obj): boolean => {
  const o = get(v, 'object')
  return (
    o === 'chat.completion.chunk' ||
    o === 'text_completion' ||
    (Array.isArray(get(v, 'choices')) && typeof get(v, 'id') === 'string' && get(v, 'type') === undefined)
  )
}

// ---- state ----------------------------------------------------------------------------------------------

/** Which dialect the open run is in: AI SDK parts, or a raw provider stream. @internal */
export type Mode = 'sdk' | 'anthropic' | 'responses' | 'chat'

/** A tool call of the open run still waiting for its output. @internal */
export interface ToolInfo {
  toolName: string | null
  /** The call's input (a JSON copy), when a part gave it (`hasInput`). */
  input?: unknown
  hasInput: boolean
  /** The input streamed as text so far (`tool-input-delta`, `input_json_delta`), when no part gave it whole. */
  inputText: string
}

/** An open approval request (v6 `tool-approval-request`). @internal */
export interface Approval {
  id: string
  toolCallId: string | null
  toolName: string | null
  /** The call's arguments (a JSON copy), when known (`hasArgs`). */
  args?: unknown
  hasArgs: boolean
}

/** Disjoint token buckets. @internal */
export interface Buckets {
  inputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
}

/** The open run: what the translator must remember to state its ending and usage. @internal */
export interface RunState {
  /** The run has content (a part that makes a run); the fold has been told so. */
  content: boolean
  mode: Mode
  /** The chat completion id the run's chunks carry. */
  responseId: string | null
  /** The type of the last part that was run content (an `unfinished` run's `lastEventType`). */
  lastType: string | null
  // terminal facts
  finished: boolean
  /** The finish reason in the AI SDK vocabulary (`stop`, `length`, …), or the provider's unknown string. */
  reason: string | null
  /** The finish reason as the source wrote it (v6 `rawFinishReason` first). */
  rawReason: string | null
  badReason: boolean
  aborted: boolean
  abortReason: string | null
  errored: boolean
  error: EndingError | null
  // text: the current step's and the last earlier step that had text
  text: string
  hasText: boolean
  prevText: string | null
  stepEnded: boolean
  startSteps: number
  finishSteps: number
  /** `turn/start` events stated for this run. */
  turns: number
  // tools (`#`-prefixed ids, in insertion order)
  seen: Record<string, true>
  seenCount: number
  open: Record<string, ToolInfo>
  openCount: number
  approvals: Record<string, Approval>
  approvalCount: number
  /** Anthropic content block index (`#index`) → tool_use id. */
  blockIds: Record<string, string>
  blockCount: number
  // usage
  stepItems: number
  /** The sum of the steps' usage as the fold counted it (valid counts only). */
  stepSum: Buckets
  /** The run's model: `null` with `several` false when none was seen; `several` when steps named different ones. */
  model: string | null
  several: boolean
  /** A raw provider stream's usage (the latest figures), stated when the run ends. */
  providerUsage: UsageInput | null
  /** The whole-run usage stated with `usage/set` (a `finish.totalUsage` that differs from the steps). */
  set: { model: string; usage: NativeUsage } | null
}

/** The `ai-sdk` translator's state (plain JSON). @internal */
export interface AiSdkState {
  live: boolean
  /** Live: the run was handed out at its `finish` part, and no new part has started one since. */
  liveEnded: boolean
  /** The session id last stated with `session/started` (the fold's root), or `null`. */
  root: string | null
  run: RunState
}

const BucketsCodec = t.type({ inputTokens: t.number, cacheReadTokens: t.number, cacheWriteTokens: t.number, outputTokens: t.number, reasoningTokens: t.number })
const nullable = <C extends t.Mixed>(c: C) => t.union([c, t.null])
const ErrorCodec = t.intersection([t.type({ message: t.string }), t.partial({ code: t.union([t.string, t.number]), name: t.string })])
const ToolInfoCodec = t.intersection([t.type({ toolName: nullable(t.string), hasInput: t.boolean, inputText: t.string }), t.partial({ input: t.unknown })])
const ApprovalCodec = t.intersection([
  t.type({ id: t.string, toolCallId: nullable(t.string), toolName: nullable(t.string), hasArgs: t.boolean }),
  t.partial({ args: t.unknown }),
])
const NativeUsageCodec = t.intersection([
  t.type({ inputTokens: t.number, outputTokens: t.number }),
  t.partial({ cacheReadTokens: t.number, cacheWriteTokens: t.number, reasoningTokens: t.number }),
])
const UsageInputCodec = t.partial({
  inputTokens: t.number,
  cacheReadTokens: t.number,
  cacheWriteTokens: t.number,
  outputTokens: t.number,
  reasoningTokens: t.number,
})

const RunStateCodec = t.type({
  content: t.boolean,
  mode: t.keyof({ sdk: null, anthropic: null, responses: null, chat: null }),
  responseId: nullable(t.string),
  lastType: nullable(t.string),
  finished: t.boolean,
  reason: nullable(t.string),
  rawReason: nullable(t.string),
  badReason: t.boolean,
  aborted: t.boolean,
  abortReason: nullable(t.string),
  errored: t.boolean,
  error: nullable(ErrorCodec),
  text: t.string,
  hasText: t.boolean,
  prevText: nullable(t.string),
  stepEnded: t.boolean,
  startSteps: t.number,
  finishSteps: t.number,
  turns: t.number,
  seen: t.record(t.string, t.literal(true)),
  seenCount: t.number,
  open: t.record(t.string, ToolInfoCodec),
  openCount: t.number,
  approvals: t.record(t.string, ApprovalCodec),
  approvalCount: t.number,
  blockIds: t.record(t.string, t.string),
  blockCount: t.number,
  stepItems: t.number,
  stepSum: BucketsCodec,
  model: nullable(t.string),
  several: t.boolean,
  providerUsage: nullable(UsageInputCodec),
  set: nullable(t.type({ model: t.string, usage: NativeUsageCodec })),
})

/** io-ts codec of {@link AiSdkState} (checkpoints). @internal */
export const AiSdkStateCodec: t.Type<AiSdkState, unknown> = t.type({
  live: t.boolean,
  liveEnded: t.boolean,
  root: nullable(t.string),
  run: RunStateCodec,
}) as unknown as t.Type<AiSdkState, unknown>

const zero = (): Buckets => ({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })

/** A fresh run. @internal */
export const newRun = (): RunState => ({
  content: false,
  mode: 'sdk',
  responseId: null,
  lastType: null,
  finished: false,
  reason: null,
  rawReason: null,
  badReason: false,
  aborted: false,
  abortReason: null,
  errored: false,
  error: null,
  text: '',
  hasText: false,
  prevText: null,
  stepEnded: false,
  startSteps: 0,
  finishSteps: 0,
  turns: 0,
  seen: {},
  seenCount: 0,
  open: {},
  openCount: 0,
  approvals: {},
  approvalCount: 0,
  blockIds: {},
  blockCount: 0,
  stepItems: 0,
  stepSum: zero(),
  model: null,
  several: false,
  providerUsage: null,
  set: null,
})

/** A fresh state for one input. @internal */
export const newState = (live: boolean): AiSdkState => ({ live, liveEnded: false, root: null, run: newRun() })

// ---- events ---------------------------------------------------------------------------------------------

/** The origin of a part's events: its type is the record's type (an `unfinished` run's last word). @internal */
export const at = (type: string): Origin => ({ recordType: type })

/** The origin of a fact stated at the run boundary, between records (it keeps the run's last word). */
const between = (r: RunState): Origin => (r.lastType !== null ? { between: true, recordType: r.lastType } : { between: true })

/** A part that makes (or continues) a run: it counts as the run's last word. @internal */
export const mark = (r: RunState, type: string): void => {
  r.content = true
  r.lastType = type
}

/** The run's steps as the format counts them: AI SDK steps (`start-step` or `finish-step`, whichever more), one for a provider message. */
const stepsOf = (r: RunState): number => (r.mode === 'sdk' ? Math.max(r.startSteps, r.finishSteps) : r.content ? 1 : 0)

/** States the run's new steps as `turn/start`s. Returns `true` when it stated one (an event of run content). @internal */
export const syncTurns = (r: RunState, emit: Emit, type: string): boolean => {
  const want = stepsOf(r)
  if (r.turns >= want) return false
  while (r.turns < want) {
    emit(nativeEvent('turn/start', {}, at(type)))
    r.turns++
  }
  return true
}

/** One event of run content for a part that states no other fact (`text`: the assistant text it carries). @internal */
export const chunk = (emit: Emit, type: string, text?: string): void =>
  emit(nativeEvent('assistant/chunk', { chunk: text !== undefined ? { type, text } : { type } }, at(type)))

/** The part's steps as `turn/start`s, or else one `assistant/chunk`: the part is run content either way. @internal */
export const stepOrChunk = (r: RunState, emit: Emit, type: string): void => {
  if (!syncTurns(r, emit, type)) chunk(emit, type)
}

/** States the run's session id (the UI `start.messageId`, a provider response id) when it changes. @internal */
export const session = (s: AiSdkState, id: string, type: string, emit: Emit): void => {
  if (id === s.root) return
  s.root = id
  emit(nativeEvent('session/started', {}, { sessionId: id, recordType: type }))
}

/** A diagnostic about the record being read (its line, when it has one). @internal */
export const diag = (emit: Emit, message: string): void => emitDiagnostic(emit, message)

/** A diagnostic naming a part type. @internal */
export const diagType = (emit: Emit, what: string, type: string): void => emitDiagnostic(emit, `${what} ${quoteName(type)}`)

/** A diagnostic stated at the run boundary (no line), as usage the old reader added when it emitted a run. */
const diagBetween = (emit: Emit, message: string): void => emit(nativeEvent('source/diagnostic', { message }, { between: true }))

// ---- text and steps -------------------------------------------------------------------------------------

/** A new step begins: the text so far becomes the previous step's text. @internal */
export const rotate = (r: RunState): void => {
  if (r.hasText) {
    r.prevText = r.text
    r.text = ''
    r.hasText = false
  }
  r.stepEnded = false
}

/** Text of the current step. @internal */
export const addText = (r: RunState, piece: string): void => {
  r.text += piece
  r.hasText = true
}

// ---- tool calls -----------------------------------------------------------------------------------------

const firstKey = (o: Record<string, unknown>): string | undefined => {
  for (const k in o) return k
  return undefined
}

/**
 * A tool call seen in a part: the first sight of its id counts it (`tool/call`) and opens it (waiting for an
 * output); a later sight fills in its tool name or input. Returns `true` when the call was new (a `tool/call`
 * was stated). `input` is copied as JSON.
 * @internal
 */
export const noteCall = (r: RunState, emit: Emit, type: string, id: string, toolName: string | undefined, input: unknown, hasInput: boolean): boolean => {
  const key = `#${id}`
  if (r.seen[key] === undefined) {
    if (r.seenCount >= MAX_SEEN_IDS) {
      r.seen = {}
      r.seenCount = 0
    }
    r.seen[key] = true
    r.seenCount++
    emit(nativeEvent('tool/call', { callId: id, name: toolName ?? '' }, at(type)))
    if (r.openCount >= MAX_OPEN_CALLS) {
      const oldest = firstKey(r.open)
      if (oldest !== undefined) {
        delete r.open[oldest]
        r.openCount--
      }
    }
    if (r.open[key] === undefined) r.openCount++
    const info: ToolInfo = { toolName: toolName ?? null, hasInput, inputText: '' }
    if (hasInput) info.input = jsonCopy(input)
    r.open[key] = info
    return true
  }
  const info = r.open[key]
  if (info === undefined) return false
  if (info.toolName === null && toolName !== undefined) info.toolName = toolName
  if (hasInput) {
    info.input = jsonCopy(input)
    info.hasInput = true
    info.inputText = ''
  }
  return false
}

/** The open call of `id`, if any. @internal */
export const openCall = (r: RunState, id: string): ToolInfo | undefined => r.open[`#${id}`]

/** A call got its output (or was denied, or failed): it no longer waits, nor does an approval request for it. @internal */
export const resolveCall = (r: RunState, id: string): void => {
  const key = `#${id}`
  if (r.open[key] !== undefined) {
    delete r.open[key]
    r.openCount--
  }
  if (r.approvalCount > 0) {
    for (const k of Object.keys(r.approvals)) {
      const a = r.approvals[k] as Approval
      if (a.toolCallId === id || a.id === id) {
        delete r.approvals[k]
        r.approvalCount--
      }
    }
  }
}

/** Opens (or replaces) the approval request `id`. @internal */
export const putApproval = (r: RunState, a: Approval): void => {
  const key = `#${a.id}`
  if (r.approvals[key] === undefined) r.approvalCount++
  r.approvals[key] = a
}

/** An approval request was answered. @internal */
export const dropApproval = (r: RunState, id: string): void => {
  const key = `#${id}`
  if (r.approvals[key] === undefined) return
  delete r.approvals[key]
  r.approvalCount--
}

/** Remembers the tool_use id of an Anthropic content block (at most {@link MAX_OPEN_CALLS} blocks). @internal */
export const putBlock = (r: RunState, index: number, id: string): void => {
  const key = `#${String(index)}`
  if (r.blockCount >= MAX_OPEN_CALLS) return
  if (r.blockIds[key] === undefined) r.blockCount++
  r.blockIds[key] = id
}

/** The tool_use id of an Anthropic content block. @internal */
export const blockId = (r: RunState, index: number): string | undefined => r.blockIds[`#${String(index)}`]

/** Streamed input text, kept up to {@link MAX_INPUT_TEXT} characters while the call has no whole input. @internal */
export const addInputText = (info: ToolInfo | undefined, piece: string | undefined): void => {
  if (info !== undefined && piece !== undefined && !info.hasInput && info.inputText.length + piece.length <= MAX_INPUT_TEXT) info.inputText += piece
}

/** Streamed input text parsed as JSON (else the text itself), copied. @internal */
export const parsedInput = (text: string): unknown => {
  try {
    return jsonCopy(JSON.parse(text))
  } catch {
    return text
  }
}

// ---- usage ----------------------------------------------------------------------------------------------

const BUCKETS = ['inputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'outputTokens', 'reasoningTokens'] as const

/** The valid counts of a usage read (whole, 0 … 2^53−1), and whether one was not. */
const valid = (u: UsageInput): { usage: NativeUsage; bad: boolean } => {
  const out: Record<string, number> = { inputTokens: 0, outputTokens: 0 }
  let bad = false
  for (const k of BUCKETS) {
    const v = u[k]
    if (v === undefined) continue
    if (isTokenCount(v)) out[k] = v
    else bad = true
  }
  return { usage: out as unknown as NativeUsage, bad }
}

const INVALID_COUNT = 'ignored a token count that is not a whole, non-negative number'

/**
 * A raw provider usage as the state keeps it until the run ends: a count that JSON cannot write (`NaN`,
 * `Infinity`, from a live object) is kept as `-1`, so it is still an invalid count when the usage is stated.
 * @internal
 */
export const keptUsage = (u: UsageInput): UsageInput => {
  const out: Record<string, number> = {}
  for (const k of BUCKETS) {
    const v = u[k]
    if (v !== undefined) out[k] = Number.isFinite(v) ? v : -1
  }
  return out as UsageInput
}

/** The reader's diagnostics about a usage it read (a count of the wrong type; cache above input). @internal */
export const countUsage = (emit: Emit, read: UsageRead): void => {
  if (read.badType) diag(emit, 'ignored a token count that is not a number')
  if (read.cacheExceedsInput) diag(emit, 'cached input tokens exceed the input tokens; read the input as excluding the cache')
}

/** One step's usage (`finish-step.usage`): one item of the step's model, and its share of the steps' sum. @internal */
export const stepUsage = (r: RunState, emit: Emit, type: string, model: string | undefined, u: UsageInput): void => {
  const { usage, bad } = valid(u)
  if (bad) diag(emit, INVALID_COUNT)
  const sum = r.stepSum
  for (const k of BUCKETS) {
    const v = usage[k]
    if (v !== undefined) sum[k] += v
  }
  emit(nativeEvent('usage/add', model !== undefined ? { usage, model } : { usage }, at(type)))
  r.stepItems++
}

/**
 * A `finish.totalUsage`: when the steps carried usage and their sum equals it, the steps' split by model stays;
 * otherwise it is the run's usage, one item for the run's model (`unknown` when several or none) — never both.
 * @internal
 */
export const totalUsage = (r: RunState, emit: Emit, type: string, u: UsageInput): void => {
  const sum = r.stepSum
  const same =
    r.stepItems > 0 &&
    (u.inputTokens ?? 0) === sum.inputTokens &&
    (u.cacheReadTokens ?? 0) === sum.cacheReadTokens &&
    (u.cacheWriteTokens ?? 0) === sum.cacheWriteTokens &&
    (u.outputTokens ?? 0) === sum.outputTokens &&
    (u.reasoningTokens ?? 0) === sum.reasoningTokens
  if (same) return
  const { usage, bad } = valid(u)
  if (bad) diagBetween(emit, INVALID_COUNT)
  r.set = { model: r.model !== null && !r.several ? r.model : NO_MODEL, usage }
  emit(nativeEvent('usage/set', { models: [r.set] }, at(type)))
}

/** A step named its model (`finish-step.response.modelId`): the run's model, or `several`. @internal */
export const stepModel = (r: RunState, model: string): void => {
  if (r.several) return
  if (r.model === null || r.model === model) r.model = model
  else {
    r.model = null
    r.several = true
  }
}

/** A provider message named its model. @internal */
export const providerModel = (r: RunState, model: string): void => {
  r.model = model
  r.several = false
}

// ---- endings --------------------------------------------------------------------------------------------

/** Anthropic `stop_reason` → the AI SDK finish-reason vocabulary (unknown strings pass through). @internal */
export const anthropicReason = (r: string): string => {
  switch (r) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'tool_use':
      return 'tool-calls'
    case 'refusal':
      return 'refusal'
    case 'pause_turn':
      return 'pause_turn'
    default:
      return r
  }
}

/** OpenAI chat `finish_reason` (and bare provider strings) → the AI SDK vocabulary. @internal */
export const chatReason = (r: string): string => {
  switch (r) {
    case 'stop':
      return 'stop'
    case 'length':
      return 'length'
    case 'content_filter':
      return 'content-filter'
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls'
    default:
      return anthropicReason(r)
  }
}

interface Terminal {
  readonly reason: ReasonIn
  readonly finishReason: string | null
  readonly inferred: boolean
}

const pendingApproval = (a: Approval): Record<string, unknown> => ({
  id: a.id,
  kind: 'approval',
  ...(a.toolName !== null ? { toolName: a.toolName } : {}),
  ...(a.hasArgs ? { arguments: a.args } : {}),
})

const pendingClientTool = (id: string, info: ToolInfo): Record<string, unknown> => {
  let args: unknown
  let hasArgs = info.hasInput
  if (info.hasInput) args = info.input
  else if (info.inputText.length > 0) {
    hasArgs = true
    args = parsedInput(info.inputText)
  }
  return {
    id,
    kind: 'tool_result',
    ...(info.toolName !== null ? { toolName: info.toolName } : {}),
    ...(hasArgs ? { arguments: args } : {}),
  }
}

/** The run's ending so far as a `turn/end` reason (the rules of `../aiSdk.ts`), or `undefined` while it has none. */
const terminalOf = (r: RunState): Terminal | undefined => {
  const written = r.finished ? r.rawReason : null
  const errorReason = r.mode === 'sdk' ? 'error' : 'provider_error'
  if (r.aborted) {
    return {
      reason: { kind: 'aborted', reason: { kind: 'user', ...(r.abortReason !== null ? { reason: r.abortReason } : {}) } },
      finishReason: written ?? 'abort',
      inferred: false,
    }
  }
  if (!r.finished) {
    if (!r.errored) return undefined
    return {
      reason: { kind: 'failed', reason: errorReason, phase: 'stream', ...(r.error !== null ? { error: r.error } : {}) },
      finishReason: 'error',
      inferred: false,
    }
  }
  if (r.approvalCount > 0) {
    const pending = Object.keys(r.approvals).map((k) => pendingApproval(r.approvals[k] as Approval))
    return { reason: { kind: 'suspended', pending }, finishReason: written, inferred: false }
  }
  if (r.errored)
    return {
      reason: { kind: 'failed', reason: errorReason, ...(r.error !== null ? { error: r.error } : {}) },
      finishReason: written ?? 'error',
      inferred: false,
    }
  if (r.badReason) return { reason: { kind: 'failed', reason: 'unrecognized' }, finishReason: null, inferred: false }
  const raw = r.rawReason
  switch (r.reason) {
    case null:
      // UI message streams omit the reason: a plain finish is an answer. A provider message with no stop reason is not.
      return { reason: r.mode === 'sdk' ? { kind: 'completed' } : { kind: 'failed', reason: 'unrecognized' }, finishReason: written, inferred: false }
    case 'stop':
      return { reason: { kind: 'completed' }, finishReason: written, inferred: false }
    case 'length':
      return { reason: { kind: raw === 'model_context_window_exceeded' ? 'context-window' : 'max-tokens' }, finishReason: written, inferred: false }
    case 'content-filter':
      return { reason: { kind: raw === 'refusal' ? 'refusal' : 'content-filter' }, finishReason: written, inferred: false }
    case 'refusal':
      return { reason: { kind: 'refusal' }, finishReason: written, inferred: false }
    case 'pause_turn':
      return { reason: { kind: 'cut-off', finishReason: 'pause_turn' }, finishReason: written, inferred: false }
    case 'tool-calls': {
      if (r.openCount > 0) {
        const pending = Object.keys(r.open).map((k) => pendingClientTool(k.slice(1), r.open[k] as ToolInfo))
        return { reason: { kind: 'suspended', pending }, finishReason: written, inferred: true }
      }
      const steps = stepsOf(r)
      return { reason: { kind: 'limit', reason: 'max_steps', ...(steps > 0 ? { actual: steps } : {}) }, finishReason: written, inferred: true }
    }
    case 'error':
      return { reason: { kind: 'failed', reason: errorReason }, finishReason: written, inferred: false }
    default:
      return { reason: { kind: 'failed', reason: 'unrecognized', raw: raw ?? r.reason }, finishReason: written ?? r.reason, inferred: false }
  }
}

/**
 * States the run's ending as it now stands (a `finish`, a provider's terminal record, an `abort`) as a root
 * `turn/end` with the raw finish reason and the response (the text of the last step that produced text).
 * The part must already have stated run content: a terminal part that is a run's first content (after a
 * `data: [DONE]`) begins a new run, it is not a late record of the run before.
 * @internal
 */
export const emitEnding = (r: RunState, emit: Emit, type: string): void => {
  const end = terminalOf(r)
  if (end === undefined) return
  const text = r.hasText ? r.text : r.prevText
  emit(
    nativeEvent(
      'turn/end',
      { reason: end.reason, finishReason: end.finishReason, ...(end.inferred ? { inferred: true } : {}), ...(text !== null ? { text } : {}) },
      at(type),
    ),
  )
}

// ---- errors ---------------------------------------------------------------------------------------------

const codeOf = (o: Obj | undefined): string | number | undefined => {
  if (o === undefined) return undefined
  for (const k of ['code', 'statusCode', 'type']) {
    const c = get(o, k)
    if (typeof c === 'string' && c !== 'error') return c.length > 200 ? c.slice(0, 200) : c
    if (typeof c === 'number' && Number.isFinite(c)) return c
  }
  return undefined
}

/**
 * An Error-like object's message, code and name (nested `error.message` too), or `undefined` without a message.
 * Reads those fields only (an `Error` instance's own `message`, its class `name`), never the whole value.
 * @internal
 */
export const errorOf = (e: Obj): EndingError | undefined => {
  let message = str(get(e, 'message'))
  const nested = get(e, 'error')
  const inner = isObject(nested) ? nested : undefined
  if (message === undefined && inner !== undefined) message = str(get(inner, 'message'))
  if (message === undefined) return undefined
  const code = codeOf(e) ?? codeOf(inner)
  const name = str(get(e, 'name'))
  return {
    message: cap(message),
    ...(code !== undefined ? { code } : {}),
    ...(name !== undefined ? { name: name.length > 200 ? name.slice(0, 200) : name } : {}),
  }
}

/** The error of an `error` part: UI `errorText`, fullStream `error` (a string or an Error-like object), or a flat provider error. @internal */
export const readError = (v: Obj): EndingError => {
  const text = str(get(v, 'errorText'))
  if (text !== undefined) return { message: cap(text) }
  const e = get(v, 'error')
  if (typeof e === 'string') return { message: cap(e) }
  if (isObject(e)) {
    const read = errorOf(e)
    if (read !== undefined) return read
  }
  return errorOf(v) ?? { message: 'the stream reported an error without a message' }
}

// ---- run boundaries -------------------------------------------------------------------------------------

/**
 * The open run is over: the facts the format states only then — a `failed` ending in phase `stream` for an
 * `error` part with no `finish` after it, a raw provider stream's usage, and the run's steps when a raw
 * provider record in an AI SDK run made them fewer than the `turn/start`s stated. Stated between records.
 * @internal
 */
export const finalize = (s: AiSdkState, emit: Emit): void => {
  const r = s.run
  if (!r.content) return
  const origin = between(r)
  if (!r.finished && !r.aborted && r.errored) {
    const end = terminalOf(r)
    if (end !== undefined) emit(nativeEvent('turn/end', { reason: end.reason, finishReason: end.finishReason }, origin))
  }
  if (r.providerUsage !== null) {
    const { usage, bad } = valid(r.providerUsage)
    if (bad) diagBetween(emit, INVALID_COUNT)
    const model = r.model !== null && !r.several ? r.model : undefined
    if (r.set !== null) {
      // the stated whole-run usage and the provider's item, as one statement (a later item would not count)
      emit(nativeEvent('usage/set', { models: [r.set, { model: model ?? NO_MODEL, usage }] }, origin))
    } else emit(nativeEvent('usage/add', model !== undefined ? { usage, model } : { usage }, origin))
  }
  const steps = stepsOf(r)
  // the run's turns stated whole: a provider record in an AI SDK run made its steps fewer than the turn/starts
  if (steps < r.turns) emit(nativeEvent('usage/set', { turns: steps }, origin))
}

/**
 * The open run is over (the next part begins another, `data: [DONE]`, a live `finish`): its last facts, the
 * root idle, and a fresh run, which names no session until one of its records does.
 * @internal
 */
export const boundary = (s: AiSdkState, emit: Emit): void => {
  if (!s.run.content) return
  finalize(s, emit)
  emitIdle(emit)
  if (s.root !== null) {
    s.root = null
    emit(nativeEvent('session/started', {}, { sessionId: null, between: true }))
  }
  s.run = newRun()
}
