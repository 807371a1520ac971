/**
 * `--format ai-sdk`: Vercel AI SDK streams (formats.md §C3): `streamText` `fullStream` parts (`TextStreamPart`,
 * v5 and v6, v4 names too) and UI message stream chunks (`UIMessageChunk`), plus, as a bonus, the raw provider
 * SSE payloads the SDK's provider packages read (Anthropic Messages, OpenAI Responses, OpenAI Chat
 * Completions / Completions chunks: single model responses, not agent runs).
 *
 * **Encodings.** JSONL (one part per line); SSE (`data: {json}` lines; `data: [DONE]` ends a stream; blank,
 * `event:`, `id:`, `retry:` and `:` comment lines are skipped); a JSON array of parts, read whole as a document
 * (`readDocument`) or, when it sits on one line, by the line reader.
 *
 * **Runs.** A run runs from `start` (or its first part) to its `finish`; a stream may hold several. A `start`
 * always opens a new run (an open one before it is emitted as it stands: `unfinished`, `stopped` or `failed`);
 * after a `finish`, the next content part (text, tool, step, source, file) begins the next run, while further
 * `finish` / `finish-step` / `error` / `abort` parts with no content in between belong to the finished run and
 * are diagnostics (the answer stands). An `abort` or `error` part does not end the run by itself: it marks it,
 * and a `finish` after it closes the same run. A run ends when the record after its end shows it is over
 * (a new run's part, `data: [DONE]`, or the end of the input); replaying, it is handed out when the next run's
 * content arrives or the input ends, so a late part can still be attached to it. Live (`watch`, the run
 * operators), a run is handed out at its `finish` part (or at `data: [DONE]`), and a later `finish`, `error`
 * or `abort` part is a note, never a run.
 * Parts with no run content (`raw`, `message-metadata`, `data-*`, unknown types) never make a run alone; an
 * input with no run gives one `unfinished` run.
 *
 * **Endings** (first rule that applies):
 * 1. an `abort` part → `stopped` by `caller` (v6 `reason` kept); its partial text is not the answer (K2). A
 *    `finish` that follows it, whatever its reason (`stop`, `length`, …), does not undo the stop (K23: an abort
 *    answered by a normal finish is still the caller's stop; the finish's reason stays in `finishReason`).
 * 2. no `finish`: an `error` part → `failed` `error` with `phase: 'stream'` and the error's message (UI
 *    `errorText`, or `error` as a string or an Error-like `{message, code?, name?}`) (K1); otherwise
 *    `unfinished` with the last part's type.
 * 3. a `tool-approval-request` with no output, denial or approval response for its call → `suspended`, one
 *    pending item per request: `{ id: approvalId (else toolCallId), kind: 'approval', toolName, arguments }`
 *    (arguments from the call's `input`, or its streamed input text parsed as JSON) (K5). Not inferred: the
 *    request is explicit. This holds with any finish reason and with a finish that has none.
 * 4. an `error` part before the `finish` → `failed` `error` (an error beats the label next to it).
 * 5. `finishReason`: `stop` → `answered`; `length` → `cut_off` `max_tokens` (`context_window` when v6
 *    `rawFinishReason` is `model_context_window_exceeded`) (K13); `content-filter` → `cut_off`
 *    `content_filter` (`refusal` when the raw reason is `refusal`); `error` → `failed` `error`;
 *    `tool-calls` → when tool calls of the run still lack an output (tools without `execute`, left for the
 *    client) `suspended` with each such call `{ id: toolCallId, kind: 'tool_result', toolName, arguments }`,
 *    otherwise the loop was ended by `stopWhen` / a step limit: `limit` `max_steps` with `actual` = steps run
 *    (K3); both are `inferred: true` (the SDK writes no marker for them); a `finish` with no `finishReason`
 *    (UI streams, as in the corpus) → `answered`; any other string (`other`, v5 `unknown`, …) → `failed`
 *    `unrecognized` with the raw string in `raw` and `finishReason` (K14); a non-string reason → `failed`
 *    `unrecognized` and a diagnostic.
 *
 * `finishReason` (SPEC §3) is v6 `rawFinishReason` when present, else `finishReason` as written, else `null`;
 * for a run ended by an abort or error part with no finish it is `abort` / `error`.
 * `response` is the text of the last step that produced text (`text-delta` parts; a step begins at
 * `start-step` or at text after a `finish-step`): earlier steps' text (a preamble before tool calls) is not the
 * answer. Kept only for `answered` / `cut_off` (SPEC §3). `toolCalls` counts distinct call ids over
 * `tool-call`, `tool-input-start`, `tool-input-available` and `tool-approval-request` parts (the last 4,096 ids
 * are remembered for de-duplication). `turns` counts steps (`start-step` or `finish-step`, whichever is more).
 * `sessionId` is the UI `start.messageId`, or the provider response id, or `null`. No timestamps are read.
 *
 * **Usage** (tokens, disjoint buckets): per run, `finish.totalUsage` when present (v5: `inputTokens` includes
 * `cachedInputTokens`, so input = inputTokens − cachedInputTokens, cacheReadTokens = cachedInputTokens; output
 * includes reasoning, `reasoningTokens` copied; v6: `inputTokenDetails.{noCacheTokens, cacheReadTokens,
 * cacheWriteTokens}`, `outputTokenDetails.reasoningTokens`); otherwise the sum of the `finish-step.usage`
 * figures — never both, so a run counts the same whether its steps' usage was streamed or not (K4). When the
 * steps' sum equals the total, the steps' split by model (`finish-step.response.modelId`) is kept; otherwise
 * the total is one item for the run's model (`unknown` when there were several or none). UI message streams
 * carry no usage: zero buckets and no items. **No cost** anywhere: every usage item counts as missing, so
 * `cost.totalUsd` is `null` whenever there is usage.
 *
 * **Provider chunks** (the same rules, one run per response): Anthropic `message_start` … `message_delta
 * {stop_reason}` (`end_turn`/`stop_sequence` → answered, `max_tokens` → cut_off `max_tokens`,
 * `model_context_window_exceeded` → `context_window`, `refusal` → cut_off `refusal`, `pause_turn` → cut_off
 * `pause_turn`, `tool_use` → the `tool-calls` rule), usage copied (already disjoint; the latest figures win);
 * OpenAI Responses `response.completed` (answered, or the `tool-calls` rule after function calls),
 * `response.incomplete` (`max_output_tokens` → cut_off `max_tokens`, `content_filter` → `content_filter`),
 * `response.failed` → failed `provider_error`; OpenAI chat/completion chunks by `finish_reason` (`stop`,
 * `length`, `content_filter`, `tool_calls`), with the trailing usage chunk of the same id; OpenAI input counts
 * include cached tokens (subtracted). A stream `error` event → failed `provider_error`. A provider message
 * with no stop reason → failed `unrecognized`.
 *
 * Lenient (SPEC §4): non-JSON lines, records that are not objects or have no string `type`, unknown part
 * types and known parts with unexpected field types are diagnostics and are skipped; nothing throws and no
 * `ProtocolError` is ever returned.
 *
 * **Objects.** The translator also reads the live part objects of a stream (`from(result.fullStream)
 * .pipe(runResults({ format: 'ai-sdk' }))`): fields that are `undefined` count as absent, an `error` part's
 * `Error` instance gives its `message`, `name` and `code` / `statusCode` (the value is never written whole),
 * and a value that cannot be read (a getter that throws, a cycle) never throws: a tool input the run keeps is
 * copied as JSON, and a part that cannot be read at all is a diagnostic.
 *
 * **Translation (protocol 2).** The module lowers the three dialects (`aiSdk/fullStream.ts`,
 * `aiSdk/uiMessage.ts`, `aiSdk/provider.ts`, sharing `aiSdk/run.ts`) to native events for the one fold: a
 * UI `start.messageId` or a provider response id → `session/started`; each step (or a provider message) →
 * `turn/start`; a tool call id seen first → `tool/call`, its output → `tool/result`; other content parts →
 * `assistant/chunk`; `finish-step.usage` → `usage/add`; a `finish.totalUsage` that differs from the steps' sum
 * → `usage/set`; a raw provider stream's usage → `usage/add` when its run ends; `finish`, `abort` and a
 * provider's terminal record → a root `turn/end` whose reason is the ending the rules above give (`completed`,
 * `max-tokens`, `context-window`, `content-filter`, `refusal`, `cut-off`, `aborted`, `suspended`, `limit
 * max_steps` with `inferred`, `failed`), with `finishReason` as written and the last step's text; an `error`
 * part → `stream/error`, and when no `finish` follows it, a `failed` `turn/end` in phase `stream` at the run
 * boundary; `raw`, metadata and `data-*` parts → `source/record`. The run boundary (a part that begins the
 * next run, `data: [DONE]`, a live `finish`) → the root idle, stated between records, then a `session/started`
 * of no session when the run before named one (each run's `sessionId` is its own); replaying, the fold hands a
 * closed run out when the next run's content arrives or the input ends. A raw provider record inside an AI SDK
 * run counts its steps as one: the run's turns are then restated with `usage/set`.
 *
 * @module
 */
import type { Emit, Translator } from '../core/translator.js'
import { ANTHROPIC_TYPES, anthropicPart, chatChunk, responsesPart } from './aiSdk/provider.js'
import { fullStreamPart } from './aiSdk/fullStream.js'
import { AiSdkStateCodec, boundary, finalize, get, isChatChunk, newState, type AiSdkState } from './aiSdk/run.js'
import { UI_CHUNKS, uiChunk } from './aiSdk/uiMessage.js'
import { emitDiagnostic } from './events.js'
import { documentReaderFrom, readerFrom } from './fromTranslator.js'
import { NOT_JSON, isObject, parseJson } from './json.js'
import type { FormatModule, ReaderFactory, ReaderOptions } from './types.js'
import type { RunResult } from '../core/RunResult.js'

/**
 * Part types that only the AI SDK writes and that carry run content: step starts, text, reasoning and tool
 * parts, and sources (fullStream and UI message stream). Format detection counts them as the SDK's own; they
 * make a run.
 * @internal
 */
export const SDK_CONTENT_PARTS: ReadonlyArray<string> = [
  'start-step',
  'step-start',
  'text-start',
  'text-delta',
  'text-end',
  'reasoning-start',
  'reasoning-delta',
  'reasoning-end',
  'tool-input-start',
  'tool-input-delta',
  'tool-input-end',
  'tool-input-available',
  'tool-input-error',
  'tool-call',
  'tool-result',
  'tool-error',
  'tool-output-available',
  'tool-output-error',
  'tool-output-denied',
  'tool-approval-request',
  'tool-approval-response',
  'source-url',
  'source-document',
]

/**
 * Part types that carry run content and, after a finish, begin the next run: the SDK's content parts, the
 * types it shares with other streams, ai@4 parts, and the raw provider events that open a message.
 */
const CONTENT_TYPES = new Set([
  ...SDK_CONTENT_PARTS,
  'start',
  'text',
  'reasoning',
  'reasoning-part-finish',
  'redacted-reasoning',
  'tool-call-streaming-start',
  'tool-call-delta',
  'source',
  'file',
  'message_start',
  'content_block_start',
  'content_block_delta',
  'response.created',
])

/** Part types only the AI SDK writes (fullStream and UI message stream): its content parts, and step ends and metadata. */
const SDK_TYPES = new Set([...SDK_CONTENT_PARTS, 'finish-step', 'step-finish', 'message-metadata'])
/** Types the AI SDK shares with other tools' streams: they count only next to an AI SDK-only part. */
const SHARED_TYPES = new Set(['start', 'finish', 'abort', 'error', 'raw', 'file', 'source'])
/** Raw provider stream events (Anthropic Messages). */
const PROVIDER_TYPES = new Set(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])

const SNIFF_ELEMENTS = 50

/** The JSON payload of an SSE `data:` line, or `undefined` (also for `[DONE]`). */
const ssePayload = (s: string): unknown => {
  if (!s.startsWith('data:')) return undefined
  const p = s.slice(5).trim()
  if (p.length === 0 || p === '[DONE]') return undefined
  const v = parseJson(p)
  return v === NOT_JSON ? undefined : v
}

/** How sure (0..0.95) that these parsed values are AI SDK parts (or, at most 0.6, raw provider chunks). */
const score = (values: ReadonlyArray<unknown>): number => {
  let objects = 0
  let sdk = 0
  let shared = 0
  let provider = 0
  const visit = (raw: unknown): void => {
    const v = typeof raw === 'string' ? ssePayload(raw) : raw
    if (!isObject(v)) return
    objects++
    const t = get(v, 'type')
    if (typeof t === 'string') {
      if (SDK_TYPES.has(t) || t.startsWith('data-')) sdk++
      else if (SHARED_TYPES.has(t)) {
        // a UI `start{messageId}`, `finish{finishReason|totalUsage}` or `error{errorText}` is the SDK's own shape
        if (
          (t === 'start' && typeof get(v, 'messageId') === 'string') ||
          (t === 'finish' && ('finishReason' in v || 'totalUsage' in v)) ||
          (t === 'error' && typeof get(v, 'errorText') === 'string')
        )
          sdk++
        else shared++
      } else if (PROVIDER_TYPES.has(t) || (t.startsWith('response.') && isObject(get(v, 'response')))) provider++
    } else if (isChatChunk(v)) provider++
  }
  try {
    for (const v of values) {
      if (Array.isArray(v)) {
        const n = Math.min(v.length, SNIFF_ELEMENTS)
        for (let i = 0; i < n; i++) visit(v[i])
      } else visit(v)
    }
  } catch {
    // a value that cannot be read (a live object's getter threw) says nothing
  }
  if (objects === 0) return 0
  if (sdk > 0) return Math.min(0.95, 0.6 + (0.35 * (sdk + shared)) / objects)
  if (provider > 0) return Math.min(0.6, 0.3 + (0.3 * (provider + shared)) / objects)
  return 0
}

const isSseField = (text: string): boolean =>
  text.charCodeAt(0) === 58 /* ':' */ || text.startsWith('event:') || text.startsWith('id:') || text.startsWith('retry:')

const NOT_JSON_LINE = 'skipped a line that is not JSON'
const CUT_LINE = 'skipped the last line: it was cut off (no newline) and is not valid JSON'
const UNREADABLE = 'skipped a part that could not be read (reading one of its fields threw)'

/** One part (or provider chunk): a run boundary when it begins the next run, then its dialect's translation. */
const part = (s: AiSdkState, v: unknown, emit: Emit): void => {
  if (!isObject(v)) {
    emitDiagnostic(emit, 'skipped a record that is not a JSON object')
    return
  }
  const type = get(v, 'type')
  if (typeof type !== 'string') {
    if (isChatChunk(v)) chatChunk(s, v, emit)
    else emitDiagnostic(emit, 'skipped a record without a string type')
    return
  }
  if (s.liveEnded) {
    if (type === 'finish' || type === 'error' || type === 'abort') {
      emitDiagnostic(emit, `ignored a ${type} part after the run had finished; its ending stands`, true)
      return
    }
    s.liveEnded = false
  }
  const r = s.run
  // After a terminal record, content begins the next run; a new `start` (or provider message) always does.
  if (r.content && (r.finished ? CONTENT_TYPES.has(type) : type === 'start' || type === 'message_start' || type === 'response.created')) boundary(s, emit)
  if (UI_CHUNKS.has(type) || type.startsWith('data-')) uiChunk(s, v, type, emit)
  else if (ANTHROPIC_TYPES.has(type)) anthropicPart(s, v, type, emit)
  else if (type.startsWith('response.')) responsesPart(s, v, type, emit)
  else fullStreamPart(s, v, type, emit)
}

/** {@link part}, never throwing: a part whose fields cannot be read is a diagnostic. */
const safePart = (s: AiSdkState, v: unknown, emit: Emit): void => {
  try {
    part(s, v, emit)
  } catch {
    emitDiagnostic(emit, UNREADABLE)
  }
}

/** Each element of an array (a JSON array on one line, a document), never throwing. */
const each = (s: AiSdkState, values: ReadonlyArray<unknown>, emit: Emit): void => {
  let n: number
  try {
    n = values.length
  } catch {
    emitDiagnostic(emit, UNREADABLE)
    return
  }
  for (let i = 0; i < n; i++) {
    let v: unknown
    try {
      v = values[i]
    } catch {
      emitDiagnostic(emit, UNREADABLE)
      continue
    }
    safePart(s, v, emit)
  }
}

/** `data: [DONE]`: the stream is over, so the open run is (the next part begins another). */
const done = (s: AiSdkState, emit: Emit): void => boundary(s, emit)

/**
 * The `ai-sdk` translator: AI SDK `fullStream` parts, UI message stream chunks and raw provider chunks (parsed
 * lines, SSE `data:` lines, JSON arrays, or a live stream's objects) → native events (see the module doc).
 * Never throws and never returns a `ProtocolError`.
 * @since 0.2.0
 */
export const aiSdkTranslator: Translator<AiSdkState> = {
  format: 'ai-sdk',
  stateCodec: AiSdkStateCodec,
  init: (options) => newState(options.live === true),
  record(s, value, _line, emit) {
    try {
      if (Array.isArray(value)) each(s, value, emit)
      else part(s, value, emit)
    } catch {
      emitDiagnostic(emit, UNREADABLE)
    }
    return undefined
  },
  text(s, text, _line, unterminated, emit) {
    if (text.startsWith('data:')) {
      const payload = text.slice(5).trim()
      if (payload === '[DONE]') {
        done(s, emit)
        return undefined
      }
      if (payload.length === 0) return undefined
      const value = parseJson(payload)
      if (value !== NOT_JSON) return aiSdkTranslator.record(s, value, _line, emit)
    } else if (isSseField(text)) return undefined
    emitDiagnostic(emit, unterminated ? CUT_LINE : NOT_JSON_LINE)
    return undefined
  },
  document(s, doc, emit) {
    try {
      if (Array.isArray(doc)) each(s, doc, emit)
      else if (isObject(doc) && (typeof get(doc, 'type') === 'string' || isChatChunk(doc))) part(s, doc, emit)
      else emitDiagnostic(emit, 'the document is not an array of stream parts')
    } catch {
      emitDiagnostic(emit, UNREADABLE)
    }
  },
  end(s, emit) {
    finalize(s, emit)
  },
  failed(s, emit) {
    // a run whose finish, abort or error part arrived is over; one still streaming is left open
    if (s.run.finished || s.run.aborted || s.run.errored) boundary(s, emit)
  },
}

/**
 * Reads AI SDK JSONL, SSE, or a JSON array on one line; emits each run once it is over (see the module doc).
 * Never returns a `ProtocolError`: bad lines are diagnostics.
 * @since 0.1.0
 */
export const aiSdkReader: ReaderFactory = readerFrom(aiSdkTranslator)

/**
 * Reads a whole JSON document: an array of AI SDK parts (or provider chunks), or a single part object.
 * Returns the runs in order (at least one). Never throws. Lines are unknown, so `source` has null lines.
 * @since 0.1.0
 */
export const readAiSdkDocument: (doc: unknown, options: ReaderOptions) => ReadonlyArray<RunResult> = documentReaderFrom(aiSdkTranslator)

/**
 * The `ai-sdk` format module: Vercel AI SDK `fullStream` parts and UI message stream chunks, as JSONL, SSE or
 * a JSON array (see the module doc for the ending, usage and cost rules).
 * @since 0.1.0
 */
export const aiSdkFormat: FormatModule = {
  name: 'ai-sdk',
  description: 'Vercel AI SDK streamText fullStream parts and UI message stream chunks (JSONL, SSE data: lines, or a JSON array)',
  sniffLines: (values) => score(values),
  sniffDocument: (doc) => {
    try {
      return isObject(doc) || Array.isArray(doc) ? score([doc]) : 0
    } catch {
      return 0
    }
  },
  reader: aiSdkReader,
  readDocument: readAiSdkDocument,
  translator: aiSdkTranslator,
}
