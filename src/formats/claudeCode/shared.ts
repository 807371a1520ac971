/**
 * Helpers shared by the Claude Code translators (stream-json and on-disk transcripts): the record checks both
 * make, Anthropic usage mapping, bounded id memories kept as plain JSON, the classification of user text
 * (prompt, slash command, interrupt marker, hook feedback) and the native events both write for an assistant
 * message's blocks.
 *
 * Nothing here stringifies input values or throws on odd input.
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import type { NativeUsage } from '../../core/events.js'
import type { PendingItem } from '../../core/RunEnding.js'
import type { Emit } from '../../core/translator.js'
import { emitDiagnostic, nativeEvent, type DataIn, type Origin, type ReasonIn } from '../events.js'
import { isTokenCount } from '../../core/values.js'
import { isObject, short, str, type Obj } from '../json.js'

/** The value when it is a finite number, negative ones included, else `undefined`. @internal */
export const num = (u: unknown): number | undefined => (typeof u === 'number' && Number.isFinite(u) ? u : undefined)

/** The value when it is a count the fold can keep: finite, 0 … 2^53−1, else `undefined`. @internal */
export const amount = (u: unknown): number | undefined =>
  typeof u === 'number' && Number.isFinite(u) && u >= 0 && u <= Number.MAX_SAFE_INTEGER ? u : undefined

/** A type name safe to quote in a diagnostic: at most 60 characters. @internal */
export const quoteType = (t: string): string => `"${short(t)}"`

/** An event time worth keeping: an ISO-like string (starts with a digit) or epoch milliseconds. @internal */
export const timeOf = (u: unknown): string | number | undefined => {
  if (typeof u === 'string') {
    const c = u.charCodeAt(0)
    return u.length >= 10 && u.length <= 40 && c >= 48 && c <= 57 ? u : undefined
  }
  return typeof u === 'number' && Number.isFinite(u) && u > 0 ? u : undefined
}

/** Longest error message kept from the input (characters). @internal */
export const MAX_MESSAGE_CHARS = 10_000

/** Truncates a message taken from the input. @internal */
export const clip = (s: string, max = MAX_MESSAGE_CHARS): string => (s.length > max ? `${s.slice(0, max)}…` : s)

/** A token count: absent (`undefined`), valid ({@link isTokenCount}), or of the wrong type or not whole (`null`). */
const count = (u: unknown): number | null | undefined => {
  if (u === undefined || u === null) return undefined
  return isTokenCount(u) ? u : null
}

/**
 * Maps an Anthropic `usage` object (`input_tokens`, `cache_read_input_tokens`,
 * `cache_creation_input_tokens`, `output_tokens`, optional `output_tokens_details.thinking_tokens`) to
 * disjoint buckets. Anthropic reports the buckets apart and counts thinking inside `output_tokens`, so they
 * are copied; the thinking share is repeated in `reasoningTokens`. Returns `null` when a count has the wrong
 * type (the caller adds a diagnostic), `undefined` when the value is not a usage object at all.
 * @internal
 */
export const anthropicBuckets = (u: unknown): NativeUsage | null | undefined => {
  if (!isObject(u)) return undefined
  const i = count(u['input_tokens'])
  const r = count(u['cache_read_input_tokens'])
  const w = count(u['cache_creation_input_tokens'])
  const o = count(u['output_tokens'])
  if (i === null || r === null || w === null || o === null) return null
  const out = o ?? 0
  let reasoning = 0
  const details = u['output_tokens_details']
  if (isObject(details)) {
    const th = count(details['thinking_tokens'])
    if (typeof th === 'number') reasoning = Math.min(th, out)
  }
  return { inputTokens: i ?? 0, cacheReadTokens: r ?? 0, cacheWriteTokens: w ?? 0, outputTokens: out, reasoningTokens: reasoning } as NativeUsage
}

/**
 * Maps one `modelUsage` entry of a Claude Code `result` (`inputTokens`, `cacheReadInputTokens`,
 * `cacheCreationInputTokens`, `outputTokens`, `costUSD`) to buckets plus its cost (USD, `undefined` when
 * absent). `null` when a count has the wrong type.
 * @internal
 */
export const modelUsageEntry = (u: unknown): { usage: NativeUsage; cost: number | undefined } | null => {
  if (!isObject(u)) return null
  const i = count(u['inputTokens'])
  const r = count(u['cacheReadInputTokens'])
  const w = count(u['cacheCreationInputTokens'])
  const o = count(u['outputTokens'])
  if (i === null || r === null || w === null || o === null) return null
  return {
    usage: { inputTokens: i ?? 0, cacheReadTokens: r ?? 0, cacheWriteTokens: w ?? 0, outputTokens: o ?? 0, reasoningTokens: 0 } as NativeUsage,
    cost: amount(u['costUSD']),
  }
}

// ---- bounded id memories (plain JSON) -------------------------------------------------------------------

/** How many recent ids an id memory keeps by default (message ids, tool-call ids of one run). @internal */
export const ID_WINDOW = 512

/** Subagent calls of one run whose result is still awaited, remembered at most. @internal */
export const TASK_WINDOW = 4096

/**
 * A bounded set of recently seen ids, as plain JSON: the last `cap` ids added, in a ring (the oldest is forgotten
 * when a new one comes), so memory stays flat however long the log is. While it holds few ids they are searched
 * in the ring; past {@link SMALL_SET} ids, `has` indexes them by `#`-prefixed key.
 * @internal
 */
export interface IdSet {
  ring: Array<string>
  pos: number
  has: Record<string, true> | null
}

/** Ids an {@link IdSet} searches in its ring before it indexes them (most runs call a few tools). @internal */
export const SMALL_SET = 48

/** io-ts codec of an {@link IdSet}. @internal */
export const IdSetCodec: t.Type<IdSet, unknown> = t.type({
  ring: t.array(t.string),
  pos: t.number,
  has: t.union([t.record(t.string, t.literal(true)), t.null]),
}) as unknown as t.Type<IdSet, unknown>

/** An empty id memory. @internal */
export const newIdSet = (): IdSet => ({ ring: [], pos: 0, has: null })

/**
 * An empty index. It has no prototype: V8 keeps such an object a hash table from the start, where an object
 * literal would make a new hidden class for every distinct id added to it.
 */
const newIndex = (): Record<string, true> => Object.create(null) as Record<string, true>

/** `true` when `id` is remembered. @internal */
export const hasId = (s: IdSet, id: string): boolean => (s.has === null ? s.ring.includes(id) : s.has[`#${id}`] === true)

/** Remembers `id`; `true` when it was not already remembered. @internal */
export const addId = (s: IdSet, id: string, cap = ID_WINDOW): boolean => {
  if (hasId(s, id)) return false
  const ring = s.ring
  if (ring.length < cap) {
    ring.push(id)
    if (s.has !== null) s.has[`#${id}`] = true
    else if (ring.length > SMALL_SET) {
      const has = newIndex()
      for (let i = 0; i < ring.length; i++) has[`#${ring[i] as string}`] = true
      s.has = has
    }
    return true
  }
  const old = ring[s.pos] as string
  ring[s.pos] = id
  s.pos = (s.pos + 1) % cap
  if (s.has !== null) {
    delete s.has[`#${old}`]
    s.has[`#${id}`] = true
  }
  return true
}

/** Forgets `id`. @internal */
export const dropId = (s: IdSet, id: string): void => {
  if (s.has !== null) {
    delete s.has[`#${id}`]
    return
  }
  const i = s.ring.indexOf(id)
  if (i >= 0) s.ring.splice(i, 1)
}

// ---- user text --------------------------------------------------------------------------------------------

/** What a user record's text says. @internal */
export type UserTextKind =
  /** text typed by the person */
  | 'prompt'
  /** a slash command or local-command output: a run boundary, but not run content */
  | 'command'
  /** `[Request interrupted by user…]` */
  | 'interrupt'
  /** hook feedback injected into the conversation (the model continues) */
  | 'hook'
  /** injected context (system reminders, compaction summaries, local-command caveats) */
  | 'meta'
  /**
   * `<task-notification>`: a background task (a shell, a monitor, a background subagent) reporting back; in a
   * transcript it starts a turn of its own (the model reacts to it), so it is a run boundary with run content
   */
  | 'notification'

const COMMAND_PREFIXES = [
  '<command-name>',
  '<command-message>',
  '<command-args>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
  '<bash-input>',
  '<bash-stdout>',
  '<bash-stderr>',
  '<user-memory-input>',
]
const META_PREFIXES = ['<system-reminder>', 'Caveat: The messages below were generated by the user while running local commands']

/** Classifies the text of a user message (only its start is read). @internal */
export const classifyUserText = (text: string): UserTextKind => {
  let s = 0
  while (s < text.length && s < 64) {
    const c = text.charCodeAt(s)
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break
    s++
  }
  if (text.startsWith('[Request interrupted by user', s)) return 'interrupt'
  if (text.charCodeAt(s) === 60 /* < */) {
    for (const p of COMMAND_PREFIXES) if (text.startsWith(p, s)) return 'command'
    if (text.startsWith('<user-prompt-submit-hook>', s)) return 'hook'
    if (text.startsWith('<task-notification>', s)) return 'notification'
  }
  for (const p of META_PREFIXES) if (text.startsWith(p, s)) return 'meta'
  if (text.lastIndexOf('hook feedback', s + 60) >= s) return 'hook'
  return 'prompt'
}

/** Tools that prompt the person and wait for an answer, and what the pending item is. @internal */
export const INTERACTIVE_TOOLS: ReadonlyMap<string, PendingItem['kind']> = new Map([
  ['AskUserQuestion', 'question'],
  ['ExitPlanMode', 'approval'],
])

/** Tools that start a subagent (Claude Code renamed `Task` to `Agent`). @internal */
export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['Task', 'Agent'])

/** Maps an Anthropic `stop_reason` that cuts an answer short to our `cut_off.finishReason`. @internal */
export const cutOffReason = (stop: string | undefined | null): string | undefined => {
  switch (stop) {
    case 'max_tokens':
      return 'max_tokens'
    case 'refusal':
      return 'refusal'
    case 'model_context_window_exceeded':
      return 'context_window'
    case 'pause_turn':
      return 'pause_turn'
    default:
      return undefined
  }
}

/** Text of the first text block of a tool_result's content (string or blocks), for a child's error message. @internal */
export const toolResultText = (content: unknown): string | undefined => {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    for (const b of content) if (isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string') return b['text']
  }
  return undefined
}

// ---- provider error objects (K25) ---------------------------------------------------------------------------

/** A provider error that an assistant record holds instead of a model response (K25). @internal */
export interface ProviderError {
  /** The error's own message, else its type. */
  readonly message: string
  /** The error type without its namespace (`UnknownOperationException`), at most 100 characters. */
  readonly name: string
  /** The type as written (`com.amazon.coral.service#UnknownOperationException`), at most 200 characters. */
  readonly code: string
}

const ERROR_TYPE = /(?:Exception|Error|Fault)$/

/** `true` when the content holds no block a model response has (text, thinking, a tool call). */
const noModelContent = (content: unknown): boolean => {
  if (content === undefined || content === null) return true
  if (!Array.isArray(content)) return typeof content === 'string' ? content.trim() === '' : false
  for (let i = 0; i < content.length; i++) {
    const b = content[i]
    if (!isObject(b)) continue
    const bt = b['type']
    if (bt === 'text') {
      if (typeof b['text'] === 'string' && b['text'].trim() !== '') return false
    } else if (bt !== undefined) return false
  }
  return true
}

/**
 * The provider error an assistant record's `message` holds instead of a model response, or `undefined`: an AWS
 * error object (Bedrock answers some failures with HTTP 200 and a body such as
 * `{"Output":{"__type":"com.amazon.coral.service#UnknownOperationException"},"Version":"1.0"}`, which Claude Code
 * then records as the message) — an `__type` (under `Output`, or on the message itself) whose name ends in
 * `Exception`, `Error` or `Fault` — with no model content (no text, no thinking, no tool call). Never throws.
 * @internal
 */
export const providerErrorOf = (msg: Obj): ProviderError | undefined => {
  const out = msg['Output'] ?? msg['output']
  const holder: Obj | undefined = isObject(out) && typeof out['__type'] === 'string' ? out : typeof msg['__type'] === 'string' ? msg : undefined
  if (holder === undefined) return undefined
  const type = holder['__type'] as string
  const hash = type.lastIndexOf('#')
  const name = (hash >= 0 ? type.slice(hash + 1) : type).trim()
  if (!ERROR_TYPE.test(name) || !noModelContent(msg['content'])) return undefined
  const m = str(holder['message']) ?? str(holder['Message']) ?? (holder !== msg ? str(msg['message']) : undefined)
  return { message: m !== undefined && m.trim() !== '' ? clip(m) : name, name: clip(name, 100), code: clip(type, 200) }
}

// ---- repeated texts (K26) -----------------------------------------------------------------------------------

/**
 * Whether `text` (one record's text blocks, joined) is already part of `whole` (the text of its message so far,
 * its records' texts joined by blank lines): the record repeats one already read (K26: the same assistant record
 * written twice, with a new record uuid), so its text must not be added again.
 * @internal
 */
export const repeatsText = (whole: string | null, text: string): boolean => {
  if (whole === null) return false
  if (whole === text) return true
  return whole.startsWith(`${text}\n\n`) || whole.endsWith(`\n\n${text}`) || whole.includes(`\n\n${text}\n\n`)
}

// ---- turn/end reasons -------------------------------------------------------------------------------------

/** `completed` (answered). @internal */
export const COMPLETED: ReasonIn = { kind: 'completed' }
/** Stopped by the caller (an interrupt). @internal */
export const ABORTED_BY_USER: ReasonIn = { kind: 'aborted', reason: { kind: 'user' } }

/**
 * The reason of a subagent whose `tool_result` block says `is_error`: `failed` `error`, with the text of the
 * result's `content` (at most 2,000 characters) as the error message when it has one.
 * @internal
 */
export const failedToolResult = (content: unknown): ReasonIn => {
  const text = toolResultText(content)
  return text !== undefined ? { kind: 'failed', reason: 'error', error: { message: clip(text, 2000) } } : { kind: 'failed', reason: 'error' }
}

/** The message of an API error the source wrote as assistant text: that text (clipped), or `API error` when it has none. @internal */
export const apiErrorMessage = (text: string | null): string => (text !== null ? clip(text) : 'API error')

/** An error of a message and an optional code (the `code` field left out when there is none). @internal */
export const endingError = (message: string, code: string | number | null | undefined): { message: string; code?: string | number } =>
  code !== undefined && code !== null ? { message, code } : { message }

// ---- records ----------------------------------------------------------------------------------------------

/** A diagnostic for a record whose fields have unexpected types (type name quoted, ≤ 60 chars). @internal */
export const badRecord = (emit: Emit, type: string, what: string, time?: string | number): void =>
  emitDiagnostic(emit, `skipped a ${quoteType(type)} record: ${what}`, false, time)

/** The diagnostic for a record of a type the reader does not know. @internal */
export const unknownType = (emit: Emit, type: string, time?: string | number): void =>
  emitDiagnostic(emit, `ignored a record of unknown type ${quoteType(type)}`, false, time)

/** `more` appended to the text so far (`null` when there is none yet), after a blank line. @internal */
export const joinText = (text: string | null, more: string): string => (text === null ? more : `${text}\n\n${more}`)

/** The model name Claude Code gives the assistant messages it writes itself (errors, interruptions): no usage. @internal */
export const SYNTHETIC_MODEL = '<synthetic>'

/** The content of an `assistant/message` event: one text block (the message's text blocks joined), or none. */
const NO_CONTENT: ReadonlyArray<Record<string, unknown>> = Object.freeze([])

/**
 * `{ content }` of an `assistant/message` whose text is `text` (`null`: no text): the record's own blocks when
 * they are that one text block (a streamed message's usual copy), else one text block of `text`.
 * @internal
 */
export const messageContent = (text: string | null, blocks?: unknown): { content: Array<Record<string, unknown>> } => {
  if (text === null) return { content: NO_CONTENT as Array<Record<string, unknown>> }
  if (Array.isArray(blocks) && blocks.length === 1) {
    const b = blocks[0] as Record<string, unknown>
    if (b['text'] === text && b['type'] === 'text') return { content: blocks as Array<Record<string, unknown>> }
  }
  return { content: [{ type: 'text', text }] }
}

/** The data of an `assistant/message` (built without spreads: one object of a stable shape per case). @internal */
export const messageData = (
  message: { content: Array<Record<string, unknown>> },
  usage: NativeUsage | undefined,
  model: string,
  id: string | undefined,
): DataIn<'assistant/message'> =>
  (usage !== undefined
    ? id !== undefined
      ? { message, usage, model, messageId: id }
      : { message, usage, model }
    : id !== undefined
      ? { message, model, messageId: id }
      : { message, model }) as DataIn<'assistant/message'>

const ORIGINS: Readonly<Record<string, Origin>> = {
  assistant: Object.freeze({ recordType: 'assistant' }),
  user: Object.freeze({ recordType: 'user' }),
  result: Object.freeze({ recordType: 'result' }),
}

/** The origin of a record's events: its type and time (one shared object per type for records without a time). @internal */
export const originOf = (recordType: 'assistant' | 'user' | 'result', time: string | number | undefined): Origin =>
  time === undefined ? (ORIGINS[recordType] as Origin) : { recordType, time }

/** The data of a `user/message` (the fold reads none of the message; the record stays the source's). @internal */
export const USER_MESSAGE = Object.freeze({ message: null })

/** The data of events that carry none (`turn/start`, `session/started`); the fold never changes event data. @internal */
export const NO_DATA: Record<string, never> = Object.freeze({}) as Record<string, never>

/**
 * The usage of an assistant message, as the fold takes it: the buckets, or `undefined` when the message has
 * none (a usage with a count of the wrong type is a diagnostic and counts as none).
 * @internal
 */
export const messageUsage = (emit: Emit, usage: unknown, time: string | number | undefined): NativeUsage | undefined => {
  const b = anthropicBuckets(usage)
  if (b === null) {
    emitDiagnostic(emit, 'ignored the usage of an assistant message: a token count is not a non-negative number', false, time)
    return undefined
  }
  return b
}

/**
 * The usage last stated for a message id in the open run, so that a copy repeating it exactly (same id, model and
 * counts: a streamed message's copies) is stated without it — the fold would replace the usage by itself.
 * @internal
 */
export interface LastUsage {
  id: string | null
  model: string
  counts: Array<number>
}

/** io-ts codec of {@link LastUsage} (or `null`). @internal */
export const LastUsageCodec = t.union([t.type({ id: t.union([t.string, t.null]), model: t.string, counts: t.array(t.number) }), t.null])

/**
 * Whether a message's usage repeats exactly the last one stated in the open run (`s.lastUsage`): then it need
 * not be stated again. Remembers it otherwise (a message without an id is never a repeat).
 * @internal
 */
export const repeatsUsage = (s: { lastUsage: LastUsage | null }, id: string | undefined, model: string, u: NativeUsage): boolean => {
  if (id === undefined) return false
  const i = u.inputTokens
  const r = u.cacheReadTokens ?? 0
  const w = u.cacheWriteTokens ?? 0
  const o = u.outputTokens
  const th = u.reasoningTokens ?? 0
  const last = s.lastUsage
  if (last === null) {
    s.lastUsage = { id, model, counts: [i, r, w, o, th] }
    return false
  }
  const c = last.counts
  if (last.id === id && last.model === model && c[0] === i && c[1] === r && c[2] === w && c[3] === o && c[4] === th) return true
  last.id = id
  last.model = model
  c[0] = i
  c[1] = r
  c[2] = w
  c[3] = o
  c[4] = th
  return false
}

/** The events the last {@link assistantBlocks} call stated (read right after it; one translator call at a time). */
let blockEvents = 0

/** How many events the last {@link assistantBlocks} call stated. @internal */
export const lastBlockEvents = (): number => blockEvents

/**
 * Reads the content blocks of an assistant message: each tool call (`tool_use`, `server_tool_use`) is a
 * `tool/call` the first time its id is seen in the run (`tools`; a call without an id always counts), and a
 * `tool_use` of a subagent tool (also a `server_tool_use` one when `serverSubagents`) opens a child of the run
 * keyed by its id (`subagent/started`), remembered in `taskIds` so that its tool_result can end the child.
 * With `countCalls` false the calls are remembered but not stated (a record whose session cannot be named).
 * Returns the text blocks joined by blank lines, or `null` when there are none (or `content` is not an array).
 * @internal
 */
export const assistantBlocks = (
  content: unknown,
  tools: IdSet,
  taskIds: IdSet,
  serverSubagents: boolean,
  origin: Origin,
  emit: Emit,
  countCalls = true,
): string | null => {
  blockEvents = 0
  if (!Array.isArray(content)) return null
  let text: string | null = null
  for (let i = 0; i < content.length; i++) {
    const b = content[i]
    if (!isObject(b)) continue
    const bt = b['type']
    if (bt === 'text') {
      const x = b['text']
      if (typeof x === 'string') text = joinText(text, x)
    } else if (bt === 'tool_use' || bt === 'server_tool_use') {
      const tid = str(b['id'])
      const name = str(b['name'])
      if ((tid === undefined || addId(tools, tid)) && countCalls) {
        emit(nativeEvent('tool/call', { callId: tid ?? '', name: name ?? '' }, origin))
        blockEvents++
      }
      if (tid !== undefined && name !== undefined && SUBAGENT_TOOLS.has(name) && (serverSubagents || bt === 'tool_use')) {
        addId(taskIds, tid, TASK_WINDOW)
        emit(nativeEvent('subagent/started', { childSessionId: tid }, origin))
        blockEvents++
      }
    }
  }
  return text
}

/** Pending items of a `suspended` reason, as plain JSON copies (a payload too deep to copy keeps `null` there). @internal */
export const PendingItemsCodec = t.array(
  t.intersection([t.type({ id: t.string, kind: t.string }), t.partial({ toolName: t.string, arguments: t.unknown, reason: t.string })]),
) as unknown as t.Type<Array<PendingItem>, unknown>

/** A plain JSON copy of an input payload kept in a translator state (never throws; too deep → cut). @internal */
export const jsonCopy = (u: unknown): unknown => {
  if (typeof u !== 'object' || u === null) return u
  try {
    return JSON.parse(JSON.stringify(u)) as unknown
  } catch {
    return cut(u, 512)
  }
}

const cut = (v: unknown, depth: number): unknown => {
  if (typeof v !== 'object' || v === null) return typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol' ? null : v
  if (depth <= 0) return null
  try {
    if (Array.isArray(v)) return v.map((x) => cut(x, depth - 1))
    const o = v as Obj
    // Object.fromEntries defines own properties, so a `__proto__` key stays an ordinary key
    return Object.fromEntries(Object.keys(o).map((k) => [k, cut(o[k], depth - 1)]))
  } catch {
    return null
  }
}
