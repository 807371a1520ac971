/**
 * Raw provider chunk recordings, the SSE payloads the AI SDK's provider packages read: the Anthropic Messages
 * stream (`message_start` … `message_delta{stop_reason}` … `message_stop`), OpenAI Responses events
 * (`response.created` … `response.completed|incomplete|failed`) and OpenAI Chat Completions / Completions
 * chunks (no `type`; `choices[0].finish_reason`, then a trailing usage chunk of the same id). Each response is
 * one run, under the ending rules of `../aiSdk.ts` (its stop reason mapped to the AI SDK vocabulary).
 *
 * What each record states (protocol 2): the response id → `session/started`; the message's one step →
 * `turn/start`; text → `assistant/chunk`; a tool use or function call → `tool/call`; a tool result block →
 * `tool/result`; the stop reason or terminal event → `turn/end`; the response's usage (the latest figures,
 * input counts without the cached tokens for OpenAI) → `usage/add` when the run ends. Records after the
 * terminal one that carry no content (a late usage chunk, `message_stop`, `ping`) → `source/record`.
 *
 * @module
 * @internal
 */
import type { Emit } from '../../core/translator.js'
import { emitRecord, nativeEvent } from '../events.js'
import { isObject, str, type Obj } from '../json.js'
import {
  addText,
  anthropicReason,
  at,
  blockId,
  boundary,
  chatReason,
  chunk,
  countUsage,
  diag,
  emitEnding,
  get,
  keptUsage,
  mark,
  MAX_INPUT_TEXT,
  noteCall,
  openCall,
  providerModel,
  putBlock,
  resolveCall,
  session,
  syncTurns,
  type AiSdkState,
  type RunState,
} from './run.js'
import { readAnthropicUsage, readOpenAiUsage } from './usage.js'

/** Raw Anthropic Messages stream event types. @internal */
export const ANTHROPIC_TYPES: ReadonlySet<string> = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
])

/**
 * A raw provider stream's finish reason (absent or `null` while the message goes on) ends the run: kept as
 * written, and mapped to the AI SDK vocabulary by `toSdk`. A reason that is not a string ends it too, flagged,
 * with the diagnostic `notString`.
 */
const providerFinish = (r: RunState, emit: Emit, t: string, reason: unknown, toSdk: (raw: string) => string, notString: string): void => {
  if (typeof reason === 'string') {
    r.finished = true
    r.rawReason = reason
    r.reason = toSdk(reason)
    emitEnding(r, emit, t)
  } else if (reason !== undefined && reason !== null) {
    r.finished = true
    r.badReason = true
    diag(emit, notString)
    emitEnding(r, emit, t)
  }
}

const anthropicUsage = (r: RunState, emit: Emit, u: unknown): void => {
  if (!isObject(u)) return
  const read = readAnthropicUsage(u, r.providerUsage ?? undefined)
  countUsage(emit, read)
  r.providerUsage = keptUsage(read.usage)
}

const openAiUsage = (r: RunState, emit: Emit, u: unknown): void => {
  if (!isObject(u)) return
  const read = readOpenAiUsage(u)
  countUsage(emit, read)
  r.providerUsage = keptUsage(read.usage)
}

/** Translates one raw Anthropic Messages stream event (a type of {@link ANTHROPIC_TYPES}). @internal */
export const anthropicPart = (s: AiSdkState, v: Obj, t: string, emit: Emit): void => {
  const r = s.run
  if (t === 'ping' || t === 'content_block_stop' || t === 'message_stop') {
    if (t === 'message_stop' && r.content && !r.finished) {
      // a message that stopped without a stop_reason: a terminal with no reason
      r.finished = true
      r.lastType = t
      emitEnding(r, emit, t)
    } else emitRecord(emit)
    return
  }
  if (t === 'message_delta') {
    if (r.finished) {
      emitRecord(emit)
      anthropicUsage(r, emit, get(v, 'usage'))
      return
    }
    mark(r, t)
    r.mode = 'anthropic'
    if (!syncTurns(r, emit, t)) chunk(emit, t)
    anthropicUsage(r, emit, get(v, 'usage'))
    const delta = get(v, 'delta')
    if (!isObject(delta)) return
    providerFinish(r, emit, t, get(delta, 'stop_reason'), anthropicReason, 'the message_delta has a stop_reason that is not a string')
    return
  }
  mark(r, t)
  r.mode = 'anthropic'
  syncTurns(r, emit, t)
  if (t === 'message_start') {
    chunk(emit, t)
    const m = get(v, 'message')
    if (!isObject(m)) return
    const id = str(get(m, 'id'))
    if (id !== undefined) session(s, id, t, emit)
    const model = str(get(m, 'model'))
    if (model !== undefined) providerModel(r, model)
    anthropicUsage(r, emit, get(m, 'usage'))
    return
  }
  if (t === 'content_block_start') {
    const b = get(v, 'content_block')
    if (!isObject(b)) return chunk(emit, t)
    const bt = get(b, 'type')
    if (bt === 'text') {
      const text = str(get(b, 'text'))
      const some = text !== undefined && text.length > 0
      if (some) addText(r, text)
      chunk(emit, t, some ? text : undefined)
    } else if (bt === 'tool_use' || bt === 'server_tool_use') {
      const id = str(get(b, 'id'))
      if (id === undefined) return chunk(emit, t)
      if (!noteCall(r, emit, t, id, str(get(b, 'name')), undefined, false)) chunk(emit, t)
      const index = get(v, 'index')
      if (typeof index === 'number') putBlock(r, index, id)
    } else if (typeof bt === 'string' && bt.endsWith('_tool_result')) {
      const id = str(get(b, 'tool_use_id'))
      if (id === undefined) return chunk(emit, t)
      resolveCall(r, id)
      emit(nativeEvent('tool/result', { callId: id }, at(t)))
    } else chunk(emit, t)
    return
  }
  // content_block_delta
  const delta = get(v, 'delta')
  if (!isObject(delta)) return chunk(emit, t)
  const dt = get(delta, 'type')
  if (dt === 'text_delta') {
    const text = str(get(delta, 'text'))
    if (text !== undefined) addText(r, text)
    chunk(emit, t, text)
    return
  }
  chunk(emit, t)
  if (dt === 'input_json_delta') {
    const index = get(v, 'index')
    const piece = str(get(delta, 'partial_json'))
    const id = typeof index === 'number' ? blockId(r, index) : undefined
    const info = id !== undefined ? openCall(r, id) : undefined
    if (info !== undefined && piece !== undefined && info.inputText.length + piece.length <= MAX_INPUT_TEXT) info.inputText += piece
  }
}

/** Translates one OpenAI Responses stream event (`response.*`). @internal */
export const responsesPart = (s: AiSdkState, v: Obj, t: string, emit: Emit): void => {
  const r = s.run
  const terminal = t === 'response.completed' || t === 'response.incomplete' || t === 'response.failed'
  if (r.finished) {
    // the finished response's record (its line counts for it) …
    emitRecord(emit)
    if (terminal) diag(emit, 'ignored a second terminal response event for the same run')
    else if (t.startsWith('response.output')) {
      // … but content after the terminal event begins the next response
      boundary(s, emit)
      responsesPart(s, v, t, emit)
    }
    return
  }
  mark(r, t)
  r.mode = 'responses'
  syncTurns(r, emit, t)
  const rv = get(v, 'response')
  const resp = isObject(rv) ? rv : undefined
  if (resp !== undefined) {
    const id = str(get(resp, 'id'))
    if (id !== undefined) session(s, id, t, emit)
    const model = str(get(resp, 'model'))
    if (model !== undefined) providerModel(r, model)
  }
  if (t === 'response.output_text.delta') {
    const d = str(get(v, 'delta'))
    if (d !== undefined) addText(r, d)
    chunk(emit, t, d)
    return
  }
  if (t === 'response.output_item.added' || t === 'response.output_item.done') {
    const item = get(v, 'item')
    if (isObject(item) && get(item, 'type') === 'function_call') {
      const id = str(get(item, 'call_id')) ?? str(get(item, 'id'))
      const stated = id !== undefined && noteCall(r, emit, t, id, str(get(item, 'name')), undefined, false)
      if (!stated) chunk(emit, t)
      const args = str(get(item, 'arguments'))
      const info = id !== undefined ? openCall(r, id) : undefined
      if (info !== undefined && args !== undefined && args.length <= MAX_INPUT_TEXT) info.inputText = args
      return
    }
    chunk(emit, t)
    return
  }
  if (!terminal) {
    chunk(emit, t)
    return
  }
  r.finished = true
  if (resp !== undefined) openAiUsage(r, emit, get(resp, 'usage'))
  if (t === 'response.completed') {
    r.rawReason = 'completed'
    r.reason = r.openCount > 0 ? 'tool-calls' : 'stop'
  } else if (t === 'response.incomplete') {
    const dv = resp !== undefined ? get(resp, 'incomplete_details') : undefined
    const why = isObject(dv) ? str(get(dv, 'reason')) : undefined
    r.rawReason = why ?? 'incomplete'
    r.reason = why === 'max_output_tokens' ? 'length' : why === 'content_filter' ? 'content-filter' : r.rawReason
  } else {
    r.rawReason = 'failed'
    r.reason = 'error'
  }
  emitEnding(r, emit, t)
}

/** Translates one OpenAI Chat Completions / Completions chunk (an object without `type`, see `isChatChunk`). @internal */
export const chatChunk = (s: AiSdkState, v: Obj, emit: Emit): void => {
  const t = 'chunk'
  const id = str(get(v, 'id'))
  const r0 = s.run
  // a chunk of another response (another id) begins the next run
  if (r0.content && (r0.mode !== 'chat' || (id ?? null) !== r0.responseId)) boundary(s, emit)
  const r = s.run
  const choices = get(v, 'choices')
  const c0 = Array.isArray(choices) ? get(choices as unknown as Obj, '0') : undefined
  const first = isObject(c0) ? c0 : undefined
  const u = get(v, 'usage')
  if (r.finished) {
    // the usage chunk that follows the finish_reason chunk
    emitRecord(emit)
    openAiUsage(r, emit, u)
    if (first !== undefined && typeof get(first, 'finish_reason') === 'string') diag(emit, 'ignored a second finish_reason for the same response')
    return
  }
  mark(r, t)
  r.mode = 'chat'
  syncTurns(r, emit, t)
  if (id !== undefined) {
    r.responseId = id
    session(s, id, t, emit)
  }
  const model = str(get(v, 'model'))
  if (model !== undefined) providerModel(r, model)
  openAiUsage(r, emit, u)
  if (first === undefined) {
    chunk(emit, t)
    return
  }
  const dv = get(first, 'delta')
  const delta = isObject(dv) ? dv : undefined
  const text = delta !== undefined ? str(get(delta, 'content')) : str(get(first, 'text'))
  if (text !== undefined) addText(r, text)
  chunk(emit, t, text)
  const calls = delta !== undefined ? get(delta, 'tool_calls') : undefined
  if (Array.isArray(calls)) {
    for (const c of calls as ReadonlyArray<unknown>) {
      if (!isObject(c)) continue
      const cid = str(get(c, 'id'))
      const fv = get(c, 'function')
      const fn = isObject(fv) ? fv : undefined
      if (cid !== undefined) noteCall(r, emit, t, cid, fn !== undefined ? str(get(fn, 'name')) : undefined, undefined, false)
    }
  }
  providerFinish(r, emit, t, get(first, 'finish_reason'), chatReason, 'the chunk has a finish_reason that is not a string')
}
