/**
 * The reader of Gemini CLI `--output-format stream-json` (one JSON record per line, stdout noise between them).
 * The rules are documented on the format module (`src/formats/gemini.ts`).
 *
 * @module
 * @internal
 */
import type { EndingError, RunEnding } from '../../core/RunEnding.js'
import { addDiagnostic, finishRun, newDraft, setUsageByModel, touch } from '../../core/RunResult.js'
import type { Diagnostic, RunDraft, RunFacts, RunResult } from '../../core/RunResult.js'
import { isObject } from '../json.js'
import { GEMINI, MSG, cutOffOf, isCount, shortName } from './shared.js'

/** Token figures of one model in a `result.stats` (disjoint, thinking apart). */
interface Totals {
  uncached: number
  cached: number
  output: number
  thinking: number
}

const MAX_TURNS_MESSAGE = 'Maximum session turns exceeded'
const LOOP_MESSAGE = 'Loop detected, stopping execution'
const BLOCKED_PREFIX = 'Agent execution blocked'
/** An error class name at the head of a stack trace printed on stdout: `TerminalQuotaError: You exceeded…`. */
const ERROR_CLASS_RE = /\b([A-Z][A-Za-z0-9]*(?:Error|Exception)):\s/
/** The HTTP status of a printed Google API error object: `    code: 429,`. */
const ERROR_CODE_RE = /^\s+code: ([1-5]\d\d),?\s*$/

const num = (o: Record<string, unknown>, k: string): number | undefined | null => {
  const v = o[k]
  if (v === undefined) return undefined
  return isCount(v) ? v : null
}

/**
 * Reads one `stats` (or `stats.models[m]`) object into disjoint totals. `input_tokens` includes `cached`;
 * `input` is the uncached part (computed as `input_tokens − cached` when absent); `total_tokens − input_tokens −
 * output_tokens` is thinking. Returns `null` when a present figure is not a count, `undefined` when no figure is
 * present at all.
 */
const readTotals = (o: Record<string, unknown>): Totals | null | undefined => {
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
  if (!isCount(uncached) || !isCount(out + thinking)) return null
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

const isZero = (t: Totals): boolean => t.uncached === 0 && t.cached === 0 && t.output === 0 && t.thinking === 0

/** A run whose `result` was read; it is emitted when the next run starts or the input ends. */
interface Closed {
  readonly draft: RunDraft
  readonly facts: RunFacts
}

/**
 * The stream-json fold. Feed it parsed records (`record`) and non-JSON lines (`noise`); `end()` emits what is
 * left. Keeps one draft, the last assistant message's text and a few flags: memory is flat in the records.
 * @internal
 */
export class GeminiStreamReader {
  private readonly file: string | null
  private sessionId: string | null = null
  private initModel: string | null = null
  /** This process's running totals at its previous `result` (stats are per process), or null after an `init`. */
  private prevTotals: Map<string, Totals> | null = null
  private prevDurationMs: number | null = null
  private run: RunDraft = newDraft()
  private closed: Closed | null = null
  private emitted = 0
  // Per-run state.
  private text: string | null = null
  private assistantOpen = false
  private inModelTurn = false
  private lastType: string | null = null
  private lastFatal: string | null = null
  private lastErrorMessage: string | null = null
  private turnLimit = false
  private lastWarning: 'loop' | 'blocked' | null = null
  private blockedMessage: string | null = null
  private stderrClass: string | null = null
  private stderrCode: number | null = null

  /** Live mode: the run was handed out at its result, and no new run content has come since. */
  private justEnded = false

  constructor(
    private readonly emit: (r: RunResult) => void,
    file: string | null,
    private readonly live: { readonly note?: (line: number | undefined, message: string) => void } | null = null,
  ) {
    this.file = file
  }

  /** Live mode: a record after the run was handed out is reported, never a new run (K7). */
  private late(lineNo: number, message: string): boolean {
    if (!this.justEnded) return false
    if (this.live?.note !== undefined) this.live.note(lineNo, message)
    else addDiagnostic(this.run, lineNo, message)
    return true
  }

  /** Diagnostics gathered before any run content (banners), to hand over if the input turns out to be a session log. */
  takeEarlyDiagnostics(): { diagnostics: ReadonlyArray<Diagnostic>; dropped: number } {
    const out = { diagnostics: this.run.diagnostics.slice(), dropped: this.run.diagnosticsDropped }
    this.run = newDraft()
    return out
  }

  /** A line that is not JSON (stdout noise: banners, warnings, stack traces). */
  noise(text: string, lineNo: number, unterminated: boolean): void {
    this.diag(lineNo, unterminated ? MSG.cutLine : MSG.notJson)
    if (this.closed === null && text.length < 65536) {
      if (this.stderrClass === null) {
        const m = ERROR_CLASS_RE.exec(text)
        if (m !== null && m[1] !== undefined) this.stderrClass = shortName(m[1])
      }
      if (this.stderrCode === null) {
        const c = ERROR_CODE_RE.exec(text)
        if (c !== null && c[1] !== undefined) this.stderrCode = Number(c[1])
      }
    }
  }

  /** A JSON line that is not an object. */
  notObject(lineNo: number): void {
    this.diag(lineNo, MSG.notObject)
  }

  /** One parsed stream-json record. */
  record(v: Record<string, unknown>, lineNo: number): void {
    const type = v['type']
    if (typeof type !== 'string') {
      this.diag(lineNo, 'skipped a record without a string "type"')
      return
    }
    const ts = typeof v['timestamp'] === 'string' ? (v['timestamp'] as string) : undefined
    switch (type) {
      case 'init':
        return this.onInit(v, lineNo, ts)
      case 'message':
        return this.onMessage(v, lineNo, ts)
      case 'tool_use':
        return this.onToolUse(v, lineNo, ts)
      case 'tool_result':
        return this.onToolResult(v, lineNo, ts)
      case 'error':
        return this.onError(v, lineNo, ts)
      case 'result':
        return this.onResult(v, lineNo, ts)
      default:
        this.diag(lineNo, 'ignored a record of an unknown type')
    }
  }

  /** The open run as it stands (for live status lines), `unfinished` until its result; `undefined` when none is open. */
  snapshot(): RunResult | undefined {
    if (!this.run.hasContent) return undefined
    return finishRun(this.run, {
      format: GEMINI,
      sessionId: this.sessionId,
      ending: this.lastType !== null ? { kind: 'unfinished', lastEventType: this.lastType } : { kind: 'unfinished' },
      finishReason: null,
      response: null,
      file: this.file,
    })
  }

  /** The input ended: emit the pending run and the open one (or one `unfinished` run when there was none). */
  end(): void {
    this.flush()
    if (this.run.hasContent) this.closeWithoutResult()
    else if (this.emitted === 0) {
      this.emitted++
      this.emit(finishRun(this.run, { format: GEMINI, sessionId: this.sessionId, ending: { kind: 'unfinished' }, finishReason: null, response: null, file: this.file }))
    }
  }

  private flush(): void {
    if (this.closed === null) return
    const c = this.closed
    this.closed = null
    this.emitted++
    this.emit(finishRun(c.draft, c.facts))
  }

  private resetRun(): void {
    this.run = newDraft()
    this.text = null
    this.assistantOpen = false
    this.inModelTurn = false
    this.lastType = null
    this.lastFatal = null
    this.lastErrorMessage = null
    this.turnLimit = false
    this.lastWarning = null
    this.blockedMessage = null
    this.stderrClass = null
    this.stderrCode = null
  }

  /** Ends the open run that had content but no `result` (SPEC §2 rule 2) and emits it at once. */
  private closeWithoutResult(): void {
    let ending: RunEnding
    if (this.lastFatal !== null) {
      const error: EndingError = {
        message: this.lastFatal,
        ...(this.stderrClass !== null ? { name: this.stderrClass } : {}),
        ...(this.stderrCode !== null ? { code: this.stderrCode } : {}),
      }
      ending = { kind: 'failed', reason: 'error', phase: 'stream', error }
    } else {
      ending = this.lastType !== null ? { kind: 'unfinished', lastEventType: this.lastType } : { kind: 'unfinished' }
    }
    const r = finishRun(this.run, { format: GEMINI, sessionId: this.sessionId, ending, finishReason: null, response: null, file: this.file })
    this.emitted++
    this.emit(r)
    this.resetRun()
  }

  /** Adds a diagnostic to the run the line belongs to: the ended run still held for late lines, else the open one. */
  private diag(lineNo: number, message: string): void {
    addDiagnostic(this.closed !== null ? this.closed.draft : this.run, lineNo, message)
  }

  /** A model message or tool call: the first one since the prompt or the last tool result begins a model turn. */
  private modelTurn(): void {
    if (this.inModelTurn) return
    this.inModelTurn = true
    this.run.turns++
  }

  /** A record with run content: emits the pending run first, and notes the record's line, time and type. */
  private content(lineNo: number, ts: string | undefined, type: string): void {
    this.flush()
    this.justEnded = false
    touch(this.run, lineNo, ts)
    this.run.hasContent = true
    this.lastType = type
    this.lastFatal = null
  }

  private onInit(v: Record<string, unknown>, lineNo: number, ts: string | undefined): void {
    const sid = v['session_id']
    const model = v['model']
    if ((sid !== undefined && typeof sid !== 'string') || (model !== undefined && typeof model !== 'string')) {
      this.diag(lineNo, 'skipped an init record whose session_id or model is not a string')
      return
    }
    // A new process: the previous run is complete, and stats restart from zero.
    this.flush()
    if (this.run.hasContent) this.closeWithoutResult()
    this.prevTotals = null
    this.prevDurationMs = null
    if (typeof sid === 'string') this.sessionId = sid
    this.initModel = typeof model === 'string' ? model : null
    touch(this.run, lineNo, ts)
  }

  private onMessage(v: Record<string, unknown>, lineNo: number, ts: string | undefined): void {
    const role = v['role']
    const text = v['content']
    if ((role !== 'user' && role !== 'assistant') || typeof text !== 'string') {
      this.diag(lineNo, 'skipped a message record whose role or content has an unexpected type')
      return
    }
    if (role === 'user') {
      this.flush()
      // A second prompt with no result in between: the open run never got its result.
      if (this.run.hasContent) this.closeWithoutResult()
      this.content(lineNo, ts, 'message')
      this.assistantOpen = false
      this.inModelTurn = false
      return
    }
    this.content(lineNo, ts, 'message')
    this.modelTurn()
    this.text = v['delta'] === true && this.assistantOpen && this.text !== null ? this.text + text : text
    this.assistantOpen = true
    this.lastWarning = null
  }

  private onToolUse(v: Record<string, unknown>, lineNo: number, ts: string | undefined): void {
    const name = v['tool_name']
    if (name !== undefined && typeof name !== 'string') {
      this.diag(lineNo, 'skipped a tool_use record whose tool_name is not a string')
      return
    }
    this.content(lineNo, ts, 'tool_use')
    this.modelTurn()
    this.run.toolCalls++
    this.assistantOpen = false
    this.lastWarning = null
  }

  private onToolResult(v: Record<string, unknown>, lineNo: number, ts: string | undefined): void {
    const status = v['status']
    if (status !== undefined && typeof status !== 'string') {
      this.diag(lineNo, 'skipped a tool_result record whose status is not a string')
      return
    }
    this.content(lineNo, ts, 'tool_result')
    this.inModelTurn = false
    this.assistantOpen = false
  }

  private onError(v: Record<string, unknown>, lineNo: number, ts: string | undefined): void {
    const severity = v['severity']
    const message = v['message']
    if (typeof severity !== 'string' || typeof message !== 'string') {
      this.diag(lineNo, 'skipped an error record whose severity or message is not a string')
      return
    }
    if (this.closed !== null) {
      // After the run's result (K7): the answer stands, the late error is only noted.
      addDiagnostic(this.closed.draft, lineNo, 'an error record after the run\'s result was kept as a diagnostic')
      return
    }
    if (this.late(lineNo, 'an error record after the run\'s result was kept as a diagnostic')) return
    this.content(lineNo, ts, 'error')
    if (severity === 'error') {
      this.lastFatal = message
      this.lastErrorMessage = message
      if (message === MAX_TURNS_MESSAGE) this.turnLimit = true
    } else if (message === LOOP_MESSAGE) {
      this.lastWarning = 'loop'
    } else if (message.startsWith(BLOCKED_PREFIX)) {
      this.lastWarning = 'blocked'
      this.blockedMessage = message
    }
  }

  private onResult(v: Record<string, unknown>, lineNo: number, ts: string | undefined): void {
    const status = v['status']
    const err = v['error']
    if (typeof status !== 'string') {
      this.diag(lineNo, 'skipped a result record whose status is not a string')
      return
    }
    if (this.closed !== null) {
      // A second result with no new prompt or model output (K7): it does not override the first.
      addDiagnostic(this.closed.draft, lineNo, 'ignored a further result record for a run that already has one')
      return
    }
    if (this.late(lineNo, 'ignored a further result record for a run that already has one')) return
    this.content(lineNo, ts, 'result')
    const d = this.run
    let errType: string | undefined
    let errMessage: string | undefined
    let hasError = false
    if (err !== undefined && err !== null) {
      if (isObject(err)) {
        hasError = true
        if (typeof err['type'] === 'string') errType = err['type']
        if (typeof err['message'] === 'string') errMessage = err['message']
      } else addDiagnostic(d, lineNo, 'ignored a result error that is not an object')
    }
    const ending = this.resultEnding(status, hasError, errType, errMessage)
    const durationMs = this.readStats(v['stats'], d, lineNo, status === 'success')
    const keepsText = ending.kind === 'answered' || ending.kind === 'cut_off'
    const facts: RunFacts = {
      format: GEMINI,
      sessionId: this.sessionId,
      ending,
      finishReason: status,
      response: keepsText ? this.text : null,
      file: this.file,
      ...(durationMs !== undefined ? { durationMs } : {}),
    }
    this.closed = { draft: d, facts }
    this.resetRun()
    if (this.live !== null) {
      this.flush()
      this.justEnded = true
    }
  }

  private resultEnding(status: string, hasError: boolean, errType: string | undefined, errMessage: string | undefined): RunEnding {
    if (errType === 'FatalCancellationError') return { kind: 'stopped', by: 'caller', reason: 'cancelled' }
    const vague = errType === undefined || errType === 'unknown'
    if (errType === 'FatalTurnLimitedError' || (status === 'error' && vague && this.turnLimit)) return { kind: 'limit', reason: 'max_turns' }
    if (status === 'error' || hasError) {
      const message = errMessage ?? this.lastErrorMessage ?? undefined
      if (errType === undefined || errType === 'INVALID_STREAM') {
        const cut = message !== undefined ? cutOffOf(message) : undefined
        if (cut !== undefined) return { kind: 'cut_off', finishReason: cut }
      }
      const name = vague ? (this.stderrClass ?? errType) : errType
      if (message === undefined && name === undefined) return { kind: 'failed', reason: 'error' }
      const error: EndingError = {
        message: message ?? 'the run ended with an error',
        ...(name !== undefined ? { name: shortName(name) } : {}),
        ...(vague && this.stderrCode !== null ? { code: this.stderrCode } : {}),
      }
      return { kind: 'failed', reason: 'error', error }
    }
    if (status === 'success') {
      if (this.lastWarning === 'loop') return { kind: 'limit', reason: 'tool_loop' }
      if (this.lastWarning === 'blocked') return { kind: 'blocked', guardrail: 'hook', ...(this.blockedMessage !== null ? { reason: this.blockedMessage } : {}) }
      return { kind: 'answered' }
    }
    return { kind: 'failed', reason: 'unrecognized', raw: status }
  }

  /**
   * Sets the run's usage from `result.stats` (differenced against this process's previous result); returns the
   * duration, or `undefined` when the stats give none (or the 0 of an error result).
   */
  private readStats(stats: unknown, d: RunDraft, lineNo: number, success: boolean): number | undefined {
    if (stats === undefined || stats === null) return undefined
    if (!isObject(stats)) {
      addDiagnostic(d, lineNo, 'ignored result stats that are not an object')
      return undefined
    }
    const now = new Map<string, Totals>()
    const models = stats['models']
    let bad = false
    if (isObject(models) && Object.keys(models).length > 0) {
      for (const model of Object.keys(models)) {
        const m = models[model]
        const t = isObject(m) ? readTotals(m) : null
        if (t === null) bad = true
        else if (t !== undefined) now.set(model, t)
      }
    } else {
      if (models !== undefined && !isObject(models)) bad = true
      const t = readTotals(stats)
      if (t === null) bad = true
      else if (t !== undefined) now.set(this.initModel ?? 'unknown', t)
    }
    if (bad) addDiagnostic(d, lineNo, 'ignored a token count in result stats that is not a finite, non-negative number')
    const prev = this.prevTotals
    const items: Array<{ model: string; usage: { inputTokens: number; cacheReadTokens: number; outputTokens: number; reasoningTokens: number }; costUsd: undefined }> = []
    for (const [model, t] of now) {
      const delta = minus(t, prev?.get(model))
      if (prev !== null && prev.has(model) && isZero(delta)) continue
      items.push({
        model,
        usage: { inputTokens: delta.uncached, cacheReadTokens: delta.cached, outputTokens: delta.output + delta.thinking, reasoningTokens: delta.thinking },
        costUsd: undefined,
      })
    }
    if (now.size > 0) {
      setUsageByModel(d, items)
      this.prevTotals = now
    }
    const dur = stats['duration_ms']
    if (dur === undefined) return undefined
    if (!isCount(dur)) {
      addDiagnostic(d, lineNo, 'ignored a duration_ms that is not a finite, non-negative number')
      return undefined
    }
    // gemini-cli's error path writes `duration_ms: 0` (not measured; corpus gemini-error.jsonl spans 156 ms):
    // the span of the record times is the better figure then.
    if (dur === 0 && !success) return undefined
    const ms = this.prevDurationMs !== null ? Math.max(0, dur - this.prevDurationMs) : dur
    this.prevDurationMs = dur
    return ms
  }
}
