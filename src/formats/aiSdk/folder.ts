/**
 * The `ai-sdk` fold: AI SDK stream parts (and raw provider chunks) in, one `RunResult` per run out.
 *
 * Records are pushed one at a time (already parsed, with their 1-based line when read from lines). The
 * folder keeps one open run: counters, the current and previous step's text, the tool calls still waiting for
 * an output, the open approval requests and at most a few thousand tool-call ids (for de-duplication); it never
 * keeps the records. The ending rules are documented in `../aiSdk.ts`.
 *
 * @module
 */
import type { EndingError, PendingItem, RunEnding } from '../../core/RunEnding.js'
import {
  MAX_DIAGNOSTICS,
  addDiagnostic,
  addUsage,
  finishRun,
  newDraft,
  setUsageByModel,
  touch,
} from '../../core/RunResult.js'
import type { RunDraft, RunResult, UsageInput } from '../../core/RunResult.js'
import { isObject, short, str, type Obj } from '../json.js'
import { readAiSdkUsage, readAnthropicUsage, readOpenAiUsage } from './usage.js'
import type { UsageRead } from './usage.js'

/** An OpenAI Chat Completions / Completions stream chunk (it has no `type`). @internal */
export const isChatChunk = (v: Obj): boolean => {
  const o = v['object']
  return o === 'chat.completion.chunk' || o === 'text_completion' || (Array.isArray(v['choices']) && typeof v['id'] === 'string' && v['type'] === undefined)
}

/** A type name safe to quote in a diagnostic: at most 60 characters, control characters replaced. */
const quoteType = (t: string): string => `"${short(t).replace(/[\u0000-\u001f\u007f]/g, '?')}"`

/** Upper bounds that keep memory flat. */
const MAX_OPEN_CALLS = 1024
const MAX_SEEN_IDS = 4096
const MAX_INPUT_TEXT = 1024 * 1024
const MAX_MESSAGE = 4000

const cap = (s: string): string => (s.length > MAX_MESSAGE ? s.slice(0, MAX_MESSAGE) : s)

/** Which dialect the run is in: AI SDK parts, or a raw provider stream. */
type Mode = 'sdk' | 'anthropic' | 'responses' | 'chat'

interface ToolInfo {
  toolName: string | undefined
  input: unknown
  hasInput: boolean
  inputText: string
}

interface Approval {
  readonly id: string
  readonly toolCallId: string | undefined
  readonly toolName: string | undefined
  readonly args: unknown
  readonly hasArgs: boolean
}

/**
 * Part types that only the AI SDK writes and that carry run content: step starts, text, reasoning and tool
 * parts, and sources (fullStream and UI message stream). Format detection counts them as the SDK's own; the
 * fold lets them make a run.
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
 * Part types that carry run content (they make a run, and after a finish they begin the next one): the SDK's
 * content parts, the types it shares with other streams, ai@4 parts, and the raw provider events that open a
 * message.
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

/** Anthropic `stop_reason` → the AI SDK finish-reason vocabulary (unknown strings pass through). */
const anthropicReason = (r: string): string => {
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

/** OpenAI chat `finish_reason` (and bare provider strings) → the AI SDK vocabulary. */
const chatReason = (r: string): string => {
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

class Run {
  readonly draft: RunDraft = newDraft()
  content = false
  mode: Mode = 'sdk'
  sessionId: string | null = null
  responseId: string | undefined
  lastType: string | undefined
  // terminal facts
  finished = false
  /** The finish reason in the AI SDK vocabulary (`stop`, `length`, …), or the provider's unknown string. */
  reason: string | undefined
  /** The finish reason as the source wrote it (v6 `rawFinishReason` first). */
  rawReason: string | undefined
  badReason = false
  aborted = false
  abortReason: string | undefined
  errored = false
  error: EndingError | undefined
  // text: the current step's and the last earlier step that had text
  text = ''
  hasText = false
  prevText: string | null = null
  stepEnded = false
  startSteps = 0
  finishSteps = 0
  // tools
  seen = new Set<string>()
  open = new Map<string, ToolInfo>()
  approvals = new Map<string, Approval>()
  blockIds = new Map<number, string>()
  // usage
  stepItems = 0
  /** `undefined`: no model seen; a string: the only one; `null`: several. */
  model: string | null | undefined
  providerUsage: UsageInput | undefined
}

/** Facts the reader passes to every run it finishes. @internal */
export interface FolderOptions {
  readonly file: string | null
  /** Live stream (`watch`): hand a run out at its `finish` part; a later terminal part goes to `note`. */
  readonly live?: { readonly note?: (line: number | undefined, message: string) => void }
}

/**
 * Folds AI SDK parts into runs; `emit` receives each run once it is over. Never throws on any input.
 * @internal
 */
export class AiSdkFolder {
  private run = new Run()
  private emitted = 0
  /** Live mode: the run was handed out at its finish part, and no new run has started since. */
  private liveEnded = false

  constructor(
    private readonly emitResult: (r: RunResult) => void,
    private readonly options: FolderOptions,
  ) {}

  private diag(line: number | undefined, message: string): void {
    addDiagnostic(this.run.draft, line, message)
  }

  /**
   * A raw provider stream's finish reason (absent or `null` while the message goes on) ends the run: kept as
   * written, and mapped to the AI SDK vocabulary by `toSdk`. A reason that is not a string ends it too, flagged,
   * with the diagnostic `notString`.
   */
  private providerFinish(r: Run, reason: unknown, toSdk: (raw: string) => string, line: number | undefined, notString: string): void {
    if (typeof reason === 'string') {
      r.finished = true
      r.rawReason = reason
      r.reason = toSdk(reason)
    } else if (reason !== undefined && reason !== null) {
      r.finished = true
      r.badReason = true
      this.diag(line, notString)
    }
  }

  private diagType(line: number | undefined, what: string, t: string): void {
    const d = this.run.draft
    if (d.diagnostics.length >= MAX_DIAGNOSTICS) d.diagnosticsDropped++
    else addDiagnostic(d, line, `${what} ${quoteType(t)}`)
  }

  /** A diagnostic for a record the reader could not use (not an object, no type). */
  note(line: number | undefined, message: string): void {
    touch(this.run.draft, line)
    this.diag(line, message)
  }

  private mark(line: number | undefined, t: string): Run {
    const r = this.run
    r.content = true
    r.draft.hasContent = true
    r.lastType = t
    touch(r.draft, line)
    return r
  }

  /** Emits the open run when it has content, and starts a fresh one. */
  flush(): void {
    if (!this.run.content) return
    const r = this.run
    this.run = new Run()
    this.emit(r)
  }

  /** The input ended: emits the open run (or one `unfinished` run when the input held none). */
  end(): void {
    this.flush()
    if (this.emitted === 0) {
      const r = this.run
      this.run = new Run()
      this.emit(r)
    }
  }

  private emit(r: Run): void {
    if (r.providerUsage !== undefined) addUsage(r.draft, r.model ?? null, r.providerUsage, undefined)
    r.draft.turns = r.mode === 'sdk' ? Math.max(r.startSteps, r.finishSteps) : r.content ? 1 : 0
    const { ending, finishReason, inferred } = resolve(r)
    this.emitted++
    this.emitResult(
      finishRun(r.draft, {
        format: 'ai-sdk',
        sessionId: r.sessionId,
        ending,
        finishReason,
        response: r.hasText ? r.text : r.prevText,
        inferred,
        file: this.options.file,
      }),
    )
  }

  /** Reads one parsed record. `line` is its 1-based line, when read from lines. */
  push(v: unknown, line: number | undefined): void {
    if (!isObject(v)) {
      this.note(line, 'skipped a record that is not a JSON object')
      return
    }
    const type = v['type']
    if (typeof type !== 'string') {
      if (isChatChunk(v)) this.chat(v, line)
      else this.note(line, 'skipped a record without a string type')
      return
    }
    if (this.liveEnded) {
      if (type === 'finish' || type === 'error' || type === 'abort') {
        const message = `ignored a ${type} part after the run had finished; its ending stands`
        if (this.options.live?.note !== undefined) this.options.live.note(line, message)
        else this.note(line, message)
        return
      }
      this.liveEnded = false
    }
    const r = this.run
    // After a terminal record, content begins the next run; a new `start` (or provider message) always does.
    if (r.content && (r.finished ? CONTENT_TYPES.has(type) : type === 'start' || type === 'message_start' || type === 'response.created')) this.flush()
    this.part(v, type, line)
  }

  private part(v: Obj, t: string, line: number | undefined): void {
    const r0 = this.run
    switch (t) {
      // the hot parts first (a string switch compares case by case)
      case 'text-delta':
      case 'text': {
        const r = this.mark(line, t)
        if (r.stepEnded) this.rotate(r)
        const piece = str(v['delta']) ?? str(v['text']) ?? str(v['textDelta'])
        if (piece === undefined) this.diagType(line, 'skipped a text part without string text:', t)
        else {
          r.text += piece
          r.hasText = true
        }
        return
      }
      case 'reasoning-delta':
        this.mark(line, t)
        return
      case 'tool-input-delta':
      case 'tool-call-delta': {
        const r = this.mark(line, t)
        const id = str(v['id']) ?? str(v['toolCallId'])
        const piece = str(v['delta']) ?? str(v['inputTextDelta']) ?? str(v['argsTextDelta'])
        if (id === undefined || piece === undefined) return
        const info = r.open.get(id)
        if (info !== undefined && !info.hasInput && info.inputText.length + piece.length <= MAX_INPUT_TEXT) info.inputText += piece
        return
      }
      case 'start': {
        const r = this.mark(line, t)
        const id = str(v['messageId'])
        if (id !== undefined) r.sessionId = id
        return
      }
      case 'start-step':
      case 'step-start': {
        const r = this.mark(line, t)
        r.startSteps++
        this.rotate(r)
        return
      }
      case 'finish-step':
      case 'step-finish':
        this.finishStep(v, t, line)
        return
      case 'finish':
        this.finish(v, t, line)
        return
      case 'abort': {
        if (r0.finished) {
          touch(r0.draft, line)
          this.diag(line, 'ignored an abort part after the run had finished')
          return
        }
        const r = this.mark(line, t)
        r.aborted = true
        const reason = str(v['reason'])
        if (reason !== undefined && r.abortReason === undefined) r.abortReason = cap(reason)
        return
      }
      case 'error': {
        if (r0.finished) {
          touch(r0.draft, line)
          this.diag(line, 'ignored an error part after the run had finished')
          return
        }
        const r = this.mark(line, t)
        if (!r.errored) r.error = readError(v)
        r.errored = true
        return
      }
      case 'text-start':
      case 'text-end': {
        const r = this.mark(line, t)
        if (r.stepEnded) this.rotate(r)
        return
      }
      case 'tool-input-start':
      case 'tool-call-streaming-start': {
        const r = this.mark(line, t)
        const id = str(v['id']) ?? str(v['toolCallId'])
        if (id === undefined) return this.diagType(line, 'skipped a tool part without a string id:', t)
        this.noteCall(r, id, str(v['toolName']), undefined, false)
        return
      }
      case 'tool-input-available':
      case 'tool-call': {
        const r = this.mark(line, t)
        const id = str(v['toolCallId'])
        if (id === undefined) return this.diagType(line, 'skipped a tool part without a string toolCallId:', t)
        const hasInput = 'input' in v || 'args' in v
        this.noteCall(r, id, str(v['toolName']), 'input' in v ? v['input'] : v['args'], hasInput)
        return
      }
      case 'tool-input-error': {
        const r = this.mark(line, t)
        const id = str(v['toolCallId'])
        if (id === undefined) return this.diagType(line, 'skipped a tool part without a string toolCallId:', t)
        this.noteCall(r, id, str(v['toolName']), undefined, false)
        this.resolveCall(r, id)
        return
      }
      case 'tool-result':
      case 'tool-error':
      case 'tool-output-available':
      case 'tool-output-error':
      case 'tool-output-denied': {
        const r = this.mark(line, t)
        const id = str(v['toolCallId'])
        if (id === undefined) return this.diagType(line, 'skipped a tool part without a string toolCallId:', t)
        this.resolveCall(r, id)
        return
      }
      case 'tool-approval-request':
        this.approvalRequest(v, t, line)
        return
      case 'tool-approval-response': {
        const r = this.mark(line, t)
        const id = str(v['approvalId'])
        if (id !== undefined) r.approvals.delete(id)
        return
      }
      case 'reasoning-start':
      case 'reasoning-end':
      case 'reasoning':
      case 'reasoning-part-finish':
      case 'redacted-reasoning':
      case 'tool-input-end':
      case 'source':
      case 'source-url':
      case 'source-document':
      case 'file':
        this.mark(line, t)
        return
      case 'raw':
      case 'message-metadata':
      case 'metadata':
        touch(r0.draft, line)
        return
      // Raw Anthropic Messages stream
      case 'message_start':
      case 'content_block_start':
      case 'content_block_delta':
      case 'content_block_stop':
      case 'message_delta':
      case 'message_stop':
      case 'ping':
        this.anthropic(v, t, line)
        return
      default:
        if (t.startsWith('data-')) {
          touch(r0.draft, line)
          return
        }
        if (t.startsWith('response.')) {
          this.responses(v, t, line)
          return
        }
        touch(r0.draft, line)
        this.diagType(line, 'skipped a part of unknown type', t)
    }
  }

  /** A new step begins: the text so far becomes the previous step's text. */
  private rotate(r: Run): void {
    if (r.hasText) {
      r.prevText = r.text
      r.text = ''
      r.hasText = false
    }
    r.stepEnded = false
  }

  private noteCall(r: Run, id: string, toolName: string | undefined, input: unknown, hasInput: boolean): void {
    if (!r.seen.has(id)) {
      if (r.seen.size >= MAX_SEEN_IDS) r.seen.clear()
      r.seen.add(id)
      r.draft.toolCalls++
      if (r.open.size >= MAX_OPEN_CALLS) {
        const oldest = r.open.keys().next()
        if (oldest.done !== true) r.open.delete(oldest.value)
      }
      r.open.set(id, { toolName, input, hasInput, inputText: '' })
      return
    }
    const info = r.open.get(id)
    if (info === undefined) return
    if (info.toolName === undefined && toolName !== undefined) info.toolName = toolName
    if (hasInput) {
      info.input = input
      info.hasInput = true
      info.inputText = ''
    }
  }

  private resolveCall(r: Run, id: string): void {
    r.open.delete(id)
    if (r.approvals.size > 0) {
      for (const [k, a] of r.approvals) if (a.toolCallId === id || a.id === id) r.approvals.delete(k)
    }
  }

  private approvalRequest(v: Obj, t: string, line: number | undefined): void {
    const r = this.mark(line, t)
    const tc = isObject(v['toolCall']) ? v['toolCall'] : undefined
    const approvalId = str(v['approvalId'])
    const callId = str(v['toolCallId']) ?? (tc !== undefined ? str(tc['toolCallId']) : undefined)
    const id = approvalId ?? callId
    if (id === undefined) return this.diagType(line, 'skipped a part without a string approvalId or toolCallId:', t)
    if (callId !== undefined) {
      if (tc !== undefined) this.noteCall(r, callId, str(tc['toolName']), tc['input'], 'input' in tc)
      else this.noteCall(r, callId, undefined, undefined, false)
    }
    const info = callId !== undefined ? r.open.get(callId) : undefined
    let args: unknown
    let hasArgs = false
    if (tc !== undefined && 'input' in tc) {
      args = tc['input']
      hasArgs = true
    } else if (info !== undefined && info.hasInput) {
      args = info.input
      hasArgs = true
    } else if (info !== undefined && info.inputText.length > 0) {
      hasArgs = true
      try {
        args = JSON.parse(info.inputText)
      } catch {
        args = info.inputText
      }
    }
    const toolName = (tc !== undefined ? str(tc['toolName']) : undefined) ?? info?.toolName
    r.approvals.set(id, { id, toolCallId: callId, toolName, args, hasArgs })
  }

  private countUsage(r: Run, read: UsageRead, line: number | undefined): void {
    if (read.badType) this.diag(line, 'ignored a token count that is not a number')
    if (read.cacheExceedsInput) this.diag(line, 'cached input tokens exceed the input tokens; read the input as excluding the cache')
  }

  private finishStep(v: Obj, t: string, line: number | undefined): void {
    const r0 = this.run
    if (r0.finished) {
      touch(r0.draft, line)
      this.diagType(line, 'ignored a part after the run had finished:', t)
      return
    }
    const r = this.mark(line, t)
    r.finishSteps++
    r.stepEnded = true
    const resp = v['response']
    const model = isObject(resp) ? str(resp['modelId']) : undefined
    if (model !== undefined) r.model = r.model === undefined || r.model === model ? model : null
    const u = v['usage']
    if (u === undefined || u === null) return
    if (!isObject(u)) return this.diag(line, 'ignored a step usage that is not an object')
    const read = readAiSdkUsage(u)
    this.countUsage(r, read, line)
    addUsage(r.draft, model ?? null, read.usage, undefined, line)
    r.stepItems++
  }

  private finish(v: Obj, t: string, line: number | undefined): void {
    this.finishPart(v, t, line)
    if (this.options.live !== undefined && this.run.finished) {
      this.flush()
      this.liveEnded = true
    }
  }

  private finishPart(v: Obj, t: string, line: number | undefined): void {
    const r0 = this.run
    if (r0.finished) {
      touch(r0.draft, line)
      this.diag(line, 'ignored a second finish part for the same run')
      return
    }
    const r = this.mark(line, t)
    r.finished = true
    if (r.aborted) this.diag(line, 'a finish part after an abort: the run stays stopped by the caller')
    const fr = v['finishReason']
    const raw = v['rawFinishReason']
    if (typeof fr === 'string') r.reason = fr
    else if (fr !== undefined && fr !== null) {
      r.badReason = true
      this.diag(line, 'the finish part has a finishReason that is not a string')
    }
    if (typeof raw === 'string') {
      r.rawReason = raw
      if (r.reason === undefined && !r.badReason) r.reason = chatReason(raw)
    } else if (typeof fr === 'string') r.rawReason = fr
    const total = v['totalUsage'] ?? v['usage']
    if (total === undefined || total === null) return
    if (!isObject(total)) return this.diag(line, 'ignored a total usage that is not an object')
    const read = readAiSdkUsage(total)
    this.countUsage(r, read, line)
    const u = read.usage
    const d = r.draft.usage
    const same =
      r.stepItems > 0 &&
      (u.inputTokens ?? 0) === d.inputTokens &&
      (u.cacheReadTokens ?? 0) === d.cacheReadTokens &&
      (u.cacheWriteTokens ?? 0) === d.cacheWriteTokens &&
      (u.outputTokens ?? 0) === d.outputTokens &&
      (u.reasoningTokens ?? 0) === d.reasoningTokens
    // The total replaces the per-step figures (never both); when they agree, the per-step split by model stays.
    if (!same) setUsageByModel(r.draft, [{ model: typeof r.model === 'string' ? r.model : 'unknown', usage: u, costUsd: undefined }])
  }

  private anthropic(v: Obj, t: string, line: number | undefined): void {
    const r0 = this.run
    if (t === 'ping' || t === 'content_block_stop' || t === 'message_stop') {
      touch(r0.draft, line)
      if (t === 'message_stop' && r0.content && !r0.finished) {
        // A message that stopped without a stop_reason: a terminal with no reason.
        r0.finished = true
        r0.lastType = t
      }
      return
    }
    if (t === 'message_delta') {
      const r = r0.finished ? r0 : this.mark(line, t)
      if (r0.finished) touch(r.draft, line)
      else r.mode = 'anthropic'
      const u = v['usage']
      if (isObject(u)) {
        const read = readAnthropicUsage(u, r.providerUsage)
        this.countUsage(r, read, line)
        r.providerUsage = read.usage
      }
      const delta = v['delta']
      if (r.finished || !isObject(delta)) return
      this.providerFinish(r, delta['stop_reason'], anthropicReason, line, 'the message_delta has a stop_reason that is not a string')
      return
    }
    const r = this.mark(line, t)
    r.mode = 'anthropic'
    if (t === 'message_start') {
      const m = v['message']
      if (!isObject(m)) return
      const id = str(m['id'])
      if (id !== undefined) r.sessionId = id
      const model = str(m['model'])
      if (model !== undefined) r.model = model
      const u = m['usage']
      if (isObject(u)) {
        const read = readAnthropicUsage(u, r.providerUsage)
        this.countUsage(r, read, line)
        r.providerUsage = read.usage
      }
      return
    }
    if (t === 'content_block_start') {
      const b = v['content_block']
      if (!isObject(b)) return
      const bt = b['type']
      if (bt === 'text') {
        const text = str(b['text'])
        if (text !== undefined && text.length > 0) {
          r.text += text
          r.hasText = true
        }
      } else if (bt === 'tool_use' || bt === 'server_tool_use') {
        const id = str(b['id'])
        if (id === undefined) return
        this.noteCall(r, id, str(b['name']), undefined, false)
        const index = v['index']
        if (typeof index === 'number' && r.blockIds.size < MAX_OPEN_CALLS) r.blockIds.set(index, id)
      } else if (typeof bt === 'string' && bt.endsWith('_tool_result')) {
        const id = str(b['tool_use_id'])
        if (id !== undefined) this.resolveCall(r, id)
      }
      return
    }
    // content_block_delta
    const delta = v['delta']
    if (!isObject(delta)) return
    if (delta['type'] === 'text_delta') {
      const text = str(delta['text'])
      if (text !== undefined) {
        r.text += text
        r.hasText = true
      }
    } else if (delta['type'] === 'input_json_delta') {
      const index = v['index']
      const piece = str(delta['partial_json'])
      const id = typeof index === 'number' ? r.blockIds.get(index) : undefined
      const info = id !== undefined ? r.open.get(id) : undefined
      if (info !== undefined && piece !== undefined && info.inputText.length + piece.length <= MAX_INPUT_TEXT) info.inputText += piece
    }
  }

  private responses(v: Obj, t: string, line: number | undefined): void {
    const r0 = this.run
    const terminal = t === 'response.completed' || t === 'response.incomplete' || t === 'response.failed'
    if (r0.finished) {
      touch(r0.draft, line)
      if (terminal) this.diag(line, 'ignored a second terminal response event for the same run')
      else if (t.startsWith('response.output')) {
        // content after the terminal event begins the next response
        this.flush()
        this.responses(v, t, line)
      }
      return
    }
    const r = this.mark(line, t)
    r.mode = 'responses'
    const resp = isObject(v['response']) ? v['response'] : undefined
    if (resp !== undefined) {
      const id = str(resp['id'])
      if (id !== undefined) r.sessionId = id
      const model = str(resp['model'])
      if (model !== undefined) r.model = model
    }
    if (t === 'response.output_text.delta') {
      const d = str(v['delta'])
      if (d !== undefined) {
        r.text += d
        r.hasText = true
      }
      return
    }
    if (t === 'response.output_item.added' || t === 'response.output_item.done') {
      const item = v['item']
      if (isObject(item) && item['type'] === 'function_call') {
        const id = str(item['call_id']) ?? str(item['id'])
        if (id !== undefined) this.noteCall(r, id, str(item['name']), undefined, false)
        const args = str(item['arguments'])
        const info = id !== undefined ? r.open.get(id) : undefined
        if (info !== undefined && args !== undefined && args.length <= MAX_INPUT_TEXT) info.inputText = args
      }
      return
    }
    if (!terminal) return
    r.finished = true
    if (resp !== undefined && isObject(resp['usage'])) {
      const read = readOpenAiUsage(resp['usage'])
      this.countUsage(r, read, line)
      r.providerUsage = read.usage
    }
    if (t === 'response.completed') {
      r.rawReason = 'completed'
      r.reason = r.open.size > 0 ? 'tool-calls' : 'stop'
    } else if (t === 'response.incomplete') {
      const det = resp !== undefined && isObject(resp['incomplete_details']) ? resp['incomplete_details'] : undefined
      const why = det !== undefined ? str(det['reason']) : undefined
      r.rawReason = why ?? 'incomplete'
      r.reason = why === 'max_output_tokens' ? 'length' : why === 'content_filter' ? 'content-filter' : r.rawReason
    } else {
      r.rawReason = 'failed'
      r.reason = 'error'
      if (!r.errored) {
        const e = resp !== undefined ? resp['error'] : undefined
        const read = isObject(e) ? errorOf(e) : undefined
        if (read !== undefined) r.error = read
      }
    }
  }

  private chat(v: Obj, line: number | undefined): void {
    const id = str(v['id'])
    const r0 = this.run
    if (r0.content && (r0.mode !== 'chat' || id !== r0.responseId)) this.flush()
    const r = this.run
    const choices = v['choices']
    const first = Array.isArray(choices) ? (choices[0] as unknown) : undefined
    const u = v['usage']
    if (r.finished) {
      // the usage chunk that follows the finish_reason chunk
      touch(r.draft, line)
      if (isObject(u)) r.providerUsage = this.openAiUsage(r, u, line)
      if (isObject(first) && typeof first['finish_reason'] === 'string') this.diag(line, 'ignored a second finish_reason for the same response')
      return
    }
    this.mark(line, 'chunk')
    r.mode = 'chat'
    if (id !== undefined) {
      r.responseId = id
      r.sessionId = id
    }
    const model = str(v['model'])
    if (model !== undefined) r.model = model
    if (isObject(u)) r.providerUsage = this.openAiUsage(r, u, line)
    if (!isObject(first)) return
    const delta = isObject(first['delta']) ? first['delta'] : undefined
    const text = delta !== undefined ? str(delta['content']) : str(first['text'])
    if (text !== undefined) {
      r.text += text
      r.hasText = true
    }
    const calls = delta !== undefined ? delta['tool_calls'] : undefined
    if (Array.isArray(calls)) {
      for (const c of calls as ReadonlyArray<unknown>) {
        if (!isObject(c)) continue
        const cid = str(c['id'])
        const fn = isObject(c['function']) ? c['function'] : undefined
        if (cid !== undefined) this.noteCall(r, cid, fn !== undefined ? str(fn['name']) : undefined, undefined, false)
      }
    }
    this.providerFinish(r, first['finish_reason'], chatReason, line, 'the chunk has a finish_reason that is not a string')
  }

  private openAiUsage(r: Run, u: Obj, line: number | undefined): UsageInput {
    const read = readOpenAiUsage(u)
    this.countUsage(r, read, line)
    return read.usage
  }
}

/** The error of an `error` part: UI `errorText`, fullStream `error` (a string or an Error-like object), or a flat provider error. */
const readError = (v: Obj): EndingError => {
  const text = str(v['errorText'])
  if (text !== undefined) return { message: cap(text) }
  const e = v['error']
  if (typeof e === 'string') return { message: cap(e) }
  if (isObject(e)) {
    const read = errorOf(e)
    if (read !== undefined) return read
  }
  const flat = errorOf(v)
  return flat ?? { message: 'the stream reported an error without a message' }
}

/** An Error-like object's message, code and name (nested `error.message` too), or `undefined` without a message. */
const errorOf = (e: Obj): EndingError | undefined => {
  let message = str(e['message'])
  const inner = isObject(e['error']) ? e['error'] : undefined
  if (message === undefined && inner !== undefined) message = str(inner['message'])
  if (message === undefined) return undefined
  const codeOf = (o: Obj | undefined): string | number | undefined => {
    if (o === undefined) return undefined
    for (const k of ['code', 'statusCode', 'type']) {
      const c = o[k]
      if (typeof c === 'string' && c !== 'error') return c.length > 200 ? c.slice(0, 200) : c
      if (typeof c === 'number' && Number.isFinite(c)) return c
    }
    return undefined
  }
  const code = codeOf(e) ?? codeOf(inner)
  const name = str(e['name'])
  return {
    message: cap(message),
    ...(code !== undefined ? { code } : {}),
    ...(name !== undefined ? { name: name.length > 200 ? name.slice(0, 200) : name } : {}),
  }
}

const pendingOf = (a: Approval): PendingItem => ({
  id: a.id,
  kind: 'approval',
  ...(a.toolName !== undefined ? { toolName: a.toolName } : {}),
  ...(a.hasArgs ? { arguments: a.args } : {}),
})

const clientToolOf = (id: string, info: ToolInfo): PendingItem => {
  let args: unknown
  let hasArgs = info.hasInput
  if (info.hasInput) args = info.input
  else if (info.inputText.length > 0) {
    hasArgs = true
    try {
      args = JSON.parse(info.inputText)
    } catch {
      args = info.inputText
    }
  }
  return {
    id,
    kind: 'tool_result',
    ...(info.toolName !== undefined ? { toolName: info.toolName } : {}),
    ...(hasArgs ? { arguments: args } : {}),
  }
}

/** A run's ending, raw finish reason and whether the ending was inferred (the rules of `../aiSdk.ts`). */
const resolve = (r: Run): { ending: RunEnding; finishReason: string | null; inferred: boolean } => {
  const written = r.finished ? (r.rawReason ?? null) : null
  const errorReason = r.mode === 'sdk' ? 'error' : 'provider_error'
  if (r.aborted) {
    return {
      ending: { kind: 'stopped', by: 'caller', ...(r.abortReason !== undefined ? { reason: r.abortReason } : {}) },
      finishReason: written ?? 'abort',
      inferred: false,
    }
  }
  if (!r.finished) {
    if (r.errored) {
      return {
        ending: { kind: 'failed', reason: errorReason, phase: 'stream', ...(r.error !== undefined ? { error: r.error } : {}) },
        finishReason: 'error',
        inferred: false,
      }
    }
    return { ending: { kind: 'unfinished', ...(r.lastType !== undefined ? { lastEventType: r.lastType } : {}) }, finishReason: null, inferred: false }
  }
  if (r.approvals.size > 0) {
    const pending: Array<PendingItem> = []
    for (const a of r.approvals.values()) pending.push(pendingOf(a))
    return { ending: { kind: 'suspended', pending }, finishReason: written, inferred: false }
  }
  if (r.errored) {
    return { ending: { kind: 'failed', reason: errorReason, ...(r.error !== undefined ? { error: r.error } : {}) }, finishReason: written ?? 'error', inferred: false }
  }
  if (r.badReason) return { ending: { kind: 'failed', reason: 'unrecognized' }, finishReason: null, inferred: false }
  const raw = r.rawReason
  switch (r.reason) {
    case undefined:
      // UI message streams omit the reason: a plain finish is an answer. A provider message with no stop reason is not.
      return r.mode === 'sdk'
        ? { ending: { kind: 'answered' }, finishReason: written, inferred: false }
        : { ending: { kind: 'failed', reason: 'unrecognized' }, finishReason: written, inferred: false }
    case 'stop':
      return { ending: { kind: 'answered' }, finishReason: written, inferred: false }
    case 'length':
      return { ending: { kind: 'cut_off', finishReason: raw === 'model_context_window_exceeded' ? 'context_window' : 'max_tokens' }, finishReason: written, inferred: false }
    case 'content-filter':
      return { ending: { kind: 'cut_off', finishReason: raw === 'refusal' ? 'refusal' : 'content_filter' }, finishReason: written, inferred: false }
    case 'refusal':
      return { ending: { kind: 'cut_off', finishReason: 'refusal' }, finishReason: written, inferred: false }
    case 'pause_turn':
      return { ending: { kind: 'cut_off', finishReason: 'pause_turn' }, finishReason: written, inferred: false }
    case 'tool-calls': {
      if (r.open.size > 0) {
        const pending: Array<PendingItem> = []
        for (const [id, info] of r.open) pending.push(clientToolOf(id, info))
        return { ending: { kind: 'suspended', pending }, finishReason: written, inferred: true }
      }
      const steps = r.draft.turns
      return { ending: { kind: 'limit', reason: 'max_steps', ...(steps > 0 ? { actual: steps } : {}) }, finishReason: written, inferred: true }
    }
    case 'error':
      return { ending: { kind: 'failed', reason: errorReason }, finishReason: written, inferred: false }
    default:
      return { ending: { kind: 'failed', reason: 'unrecognized', raw: raw ?? r.reason }, finishReason: written ?? r.reason, inferred: false }
  }
}
