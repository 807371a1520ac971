/**
 * The Claude Code stream-json reader (`claude -p --output-format stream-json --verbose`, the Agent SDK's
 * `SDKMessage` JSONL, and the records of `--output-format json`). See `../claudeCode.ts` for the rules.
 *
 * @module
 * @internal
 */
import type { Failed, Limit, PendingItem, RunEnding } from '../../core/RunEnding.js'
import {
  cloneDraft,
  addDiagnostic,
  ensureChild,
  finishRun,
  newDraft,
  setChildEnding,
  touch,
  type RunDraft,
  type RunFacts,
  type RunResult,
} from '../../core/RunResult.js'
import { isObject, str, type Obj } from '../json.js'
import {
  RecentSet,
  SYNTHETIC_MODEL,
  UsageLedger,
  addMessageUsage,
  apiErrorMessage,
  badRecord,
  classifyUserText,
  clip,
  cutOffReason,
  endingError,
  failedToolResult,
  joinText,
  ledgerFigures,
  messageOf,
  modelUsageEntry,
  num,
  otherRecord,
  readAssistantBlocks,
  recordType,
  roundUsd,
  timeOf,
  writeUsage,
  type Buckets,
  type ModelFigure,
} from './shared.js'

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

/** What the run showed before its `result`, for the ending rules. */
interface RunFlags {
  sawInterrupt: boolean
  lastStop: string | undefined
  lastAssistantError: string | undefined
  refusalNoFallback: boolean
  fatal: { message: string; code: string | undefined } | null
}

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
  for (const t of texts) {
    const m = re.exec(t)
    if (m !== null && m[1] !== undefined) {
      const n = Number(m[1])
      if (Number.isFinite(n)) return n
    }
  }
  return undefined
}

const limitEnding = (reason: string, v: Obj): Limit => {
  const errors = errorsOf(v)
  if (reason === 'max_turns') {
    const lim = num(v['max_turns']) ?? num(v['maxTurns']) ?? firstNumber(errors, /max(?:imum)?(?: number of)? turns\D{0,20}(\d+)/i)
    return { kind: 'limit', reason, field: 'num_turns', actual: num(v['num_turns']) ?? null, ...(lim !== undefined ? { limit: lim } : {}) }
  }
  if (reason === 'cost_limit') {
    const lim = num(v['max_budget_usd']) ?? num(v['maxBudgetUsd']) ?? firstNumber(errors, /\$\s?(\d+(?:\.\d+)?)/)
    return { kind: 'limit', reason, field: 'total_cost_usd', actual: num(v['total_cost_usd']) ?? null, ...(lim !== undefined ? { limit: lim } : {}) }
  }
  return { kind: 'limit', reason }
}

const failedEnding = (v: Obj, reason: string, f: RunFlags, raw?: string): Failed => {
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
  const code = num(v['api_error_status']) ?? startup ?? f.lastAssistantError ?? f.fatal?.code
  return {
    kind: 'failed',
    reason,
    ...(startup !== undefined ? { phase: 'startup' } : {}),
    error: code !== undefined ? { message, code } : { message },
    ...(raw !== undefined ? { raw } : {}),
  }
}

const isErrorLike = (v: Obj, f: RunFlags): string =>
  num(v['api_error_status']) !== undefined || f.lastAssistantError !== undefined || f.fatal !== null ? 'provider_error' : 'error'

/**
 * The ending of a root `result` (SPEC §2 rules 3–4, formats.md §C1/§D): interrupts, hooks and limits keep
 * their meaning even with `is_error`; then a deferred tool (suspended); then the error flag; then a cut-off
 * `stop_reason`; then success. An unknown `terminal_reason` or `subtype` is `failed` `unrecognized`.
 * @internal
 */
export const resultEnding = (v: Obj, f: RunFlags): RunEnding => {
  const subtype = str(v['subtype'])
  const tr = str(v['terminal_reason'])
  const isError = v['is_error'] === true
  const bySubtype = (): RunEnding => {
    if (subtype !== undefined) {
      const lim = LIMIT_SUBTYPE.get(subtype)
      if (lim !== undefined) return limitEnding(lim, v)
    }
    if (subtype === 'error_during_execution') {
      return f.sawInterrupt ? { kind: 'stopped', by: 'caller' } : failedEnding(v, 'error', f)
    }
    if (isError) {
      if (subtype === 'success' || subtype === undefined) return failedEnding(v, isErrorLike(v, f), f)
      return failedEnding(v, 'unrecognized', f, subtype)
    }
    if (subtype === 'success' || (subtype === undefined && v['is_error'] === false && typeof v['result'] === 'string')) {
      const cut = cutOffReason(str(v['stop_reason']) ?? f.lastStop) ??
        (f.lastAssistantError === 'max_output_tokens' ? 'max_tokens' : f.refusalNoFallback ? 'refusal' : undefined)
      return cut !== undefined ? { kind: 'cut_off', finishReason: cut } : { kind: 'answered' }
    }
    if (subtype === undefined) return { kind: 'failed', reason: 'unrecognized' }
    return { kind: 'failed', reason: 'unrecognized', raw: subtype }
  }
  if (tr === undefined || tr === 'completed') return bySubtype()
  if (tr === 'aborted_streaming' || tr === 'aborted_tools') return { kind: 'stopped', by: 'caller' }
  if (tr === 'hook_stopped' || tr === 'stop_hook_prevented') return { kind: 'stopped', by: 'hook' }
  const lim = LIMIT_TERMINAL.get(tr)
  if (lim !== undefined) return limitEnding(lim, v)
  if (tr === 'tool_deferred') {
    const dtu = v['deferred_tool_use']
    const pending: Array<PendingItem> = []
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
  if (tr === 'background_requested') return { kind: 'stopped', by: 'caller', reason: 'background_requested' }
  const err = ERROR_TERMINAL.get(tr)
  if (err !== undefined) return failedEnding(v, err, f)
  // An unknown terminal reason: a label naming a limit still keeps its meaning; otherwise unrecognised.
  if (subtype !== undefined) {
    const l = LIMIT_SUBTYPE.get(subtype)
    if (l !== undefined) return limitEnding(l, v)
  }
  return isError ? failedEnding(v, 'unrecognized', f, tr) : { kind: 'failed', reason: 'unrecognized', raw: tr }
}

const childEndingOfStatus = (status: string | undefined): RunEnding => {
  switch (status) {
    case 'completed':
      return { kind: 'answered' }
    case 'failed':
      return { kind: 'failed', reason: 'error' }
    case 'stopped':
    case 'killed':
    case 'cancelled':
      return { kind: 'stopped', by: 'parent' }
    case undefined:
      return { kind: 'unfinished' }
    default:
      return { kind: 'failed', reason: 'unrecognized', raw: status }
  }
}

const isZero = (b: Buckets): boolean =>
  b.inputTokens === 0 && b.cacheReadTokens === 0 && b.cacheWriteTokens === 0 && b.outputTokens === 0 && b.reasoningTokens === 0

const covers = (cur: Buckets, prev: Buckets): boolean =>
  cur.inputTokens >= prev.inputTokens &&
  cur.cacheReadTokens >= prev.cacheReadTokens &&
  cur.cacheWriteTokens >= prev.cacheWriteTokens &&
  cur.outputTokens >= prev.outputTokens

const minus = (cur: Buckets, prev: Buckets): Buckets => ({
  inputTokens: cur.inputTokens - prev.inputTokens,
  cacheReadTokens: cur.cacheReadTokens - prev.cacheReadTokens,
  cacheWriteTokens: cur.cacheWriteTokens - prev.cacheWriteTokens,
  outputTokens: cur.outputTokens - prev.outputTokens,
  reasoningTokens: Math.max(0, cur.reasoningTokens - prev.reasoningTokens),
})

/**
 * Folds stream-json records into runs. Each root `result` closes a run; the closed run is handed out when the
 * next user or assistant record arrives, or at the end of input, so that a further `result` with nothing in
 * between (K7) can be folded into it as a diagnostic instead of overriding it.
 * @internal
 */
export class StreamReader {
  private d: RunDraft
  private sessionId: string | null = null
  private flags: RunFlags = { sawInterrupt: false, lastStop: undefined, lastAssistantError: undefined, refusalNoFallback: false, fatal: null }
  private ledger = new UsageLedger()
  private rootMessages = 0
  private lastRootId: string | undefined = undefined
  private rootText: string | null = null
  private readonly tools = new RecentSet()
  private taskIds = new Set<string>()
  private denials = new Set<string>()
  private lastType: string | null = null
  private held: { d: RunDraft; facts: RunFacts } | null = null
  /** Running totals at the previous run's `result` (per process). */
  private baseCost: number | null = null
  private baseTurns: number | null = null
  private baseModels = new Map<string, { b: Buckets; cost: number | undefined }>()
  private processSession: string | null = null
  private readonly seenDenials = new RecentSet(4096)
  private emitted = 0
  /** Live mode: a run was handed out at its result and no user input or assistant message has come since. */
  private justEmitted = false

  constructor(
    private readonly emit: (r: RunResult) => void,
    private readonly file: string | null,
    initial: RunDraft,
    private readonly live: { readonly note?: (line: number | undefined, message: string) => void } | null = null,
  ) {
    this.d = initial
  }

  /**
   * A user or assistant message arrived: it is content of the open run, and the previous result's run (held, or
   * handed out live) is over. Returns the open run's draft.
   */
  private message(line: number | undefined, time: string | number | undefined, type: 'user' | 'assistant'): RunDraft {
    this.flushHeld()
    this.justEmitted = false
    const d = this.d
    touch(d, line, time)
    d.hasContent = true
    this.lastType = type
    return d
  }

  /** The draft that takes diagnostics for the current line. */
  get draft(): RunDraft {
    return this.d
  }

  private newRun(): void {
    this.d = newDraft()
    this.sessionId = null
    this.flags = { sawInterrupt: false, lastStop: undefined, lastAssistantError: undefined, refusalNoFallback: false, fatal: null }
    this.ledger = new UsageLedger()
    this.rootMessages = 0
    this.lastRootId = undefined
    this.rootText = null
    this.tools.clear()
    this.taskIds = new Set()
    this.denials = new Set()
    this.lastType = null
  }

  private flushHeld(): void {
    if (this.held === null) return
    const h = this.held
    this.held = null
    this.emitted++
    this.emit(finishRun(h.d, h.facts))
  }

  /** Reads one parsed record (an object). */
  record(v: Obj, line: number | undefined): void {
    const type = recordType(this.d, v, line)
    if (type === undefined) return
    const time = timeOf(v['timestamp'])
    switch (type) {
      case 'assistant':
        this.assistant(v, line, time)
        return
      case 'user':
        this.user(v, line, time)
        return
      case 'result':
        this.result(v, line, time)
        return
      case 'system':
        this.system(v, line, time)
        return
      default:
        otherRecord(this.d, line, time, type, IGNORED_TYPES)
    }
  }

  private assistant(v: Obj, line: number | undefined, time: string | number | undefined): void {
    const msg = messageOf(this.d, v, line, time, 'assistant')
    if (msg === undefined) return
    const d = this.message(line, time, 'assistant')
    const parent = str(v['parent_tool_use_id'])
    const model = str(msg['model']) ?? 'unknown'
    const id = str(msg['id'])
    const synthetic = model === SYNTHETIC_MODEL
    if (!synthetic) addMessageUsage(d, this.ledger, line, id, model, msg['usage'])
    if (parent === undefined) {
      const sid = str(v['session_id'])
      if (sid !== undefined) this.sessionId = sid
      if (id === undefined || id !== this.lastRootId) {
        this.rootMessages++
        this.lastRootId = id
        this.rootText = null
      }
    } else {
      ensureChild(d, parent)
    }
    // stream-json opens a subagent child for a server-side call too
    const text = readAssistantBlocks(d, msg['content'], this.tools, this.taskIds, true)
    if (parent !== undefined) return
    const f = this.flags
    const errCode = str(v['error'])
    const apiError = v['isApiErrorMessage'] === true || v['is_api_error_message'] === true
    if (synthetic && (errCode !== undefined || apiError)) {
      f.fatal = { message: apiErrorMessage(text), code: errCode }
    } else {
      f.fatal = apiError ? { message: apiErrorMessage(text), code: errCode } : null
    }
    f.lastAssistantError = errCode
    const stop = str(msg['stop_reason'])
    if (stop !== undefined) f.lastStop = stop
    if (!synthetic && text !== null) this.rootText = joinText(this.rootText, text)
  }

  private user(v: Obj, line: number | undefined, time: string | number | undefined): void {
    const msg = messageOf(this.d, v, line, time, 'user')
    if (msg === undefined) return
    const d = this.message(line, time, 'user')
    this.flags.fatal = null
    const parent = str(v['parent_tool_use_id'])
    const content = msg['content']
    if (typeof content === 'string') {
      if (parent === undefined && classifyUserText(content) === 'interrupt') this.flags.sawInterrupt = true
      return
    }
    if (!Array.isArray(content)) return
    let sawText = false
    for (const b of content) {
      if (!isObject(b)) continue
      const bt = b['type']
      if (bt === 'tool_result') {
        const tid = str(b['tool_use_id'])
        if (tid !== undefined && this.taskIds.has(tid)) {
          setChildEnding(d, tid, b['is_error'] === true ? failedToolResult(b['content']) : { kind: 'answered' }, null)
        }
      } else if (bt === 'text' && !sawText) {
        sawText = true
        const t = b['text']
        if (parent === undefined && typeof t === 'string' && classifyUserText(t) === 'interrupt') this.flags.sawInterrupt = true
      }
    }
  }

  private system(v: Obj, line: number | undefined, time: string | number | undefined): void {
    const d = this.d
    touch(d, line, time)
    const subtype = str(v['subtype'])
    this.lastType = subtype !== undefined ? `system/${subtype.length > 40 ? subtype.slice(0, 40) : subtype}` : 'system'
    switch (subtype) {
      case 'init': {
        const sid = str(v['session_id'])
        if (sid !== undefined) {
          if (this.processSession !== null && sid !== this.processSession) this.resetTotals()
          this.processSession = sid
          if (this.sessionId === null) this.sessionId = sid
        }
        return
      }
      case 'task_started': {
        const key = str(v['tool_use_id']) ?? str(v['task_id'])
        if (key !== undefined) ensureChild(d, key)
        return
      }
      case 'task_notification': {
        const key = str(v['tool_use_id']) ?? str(v['task_id'])
        if (key !== undefined) setChildEnding(d, key, childEndingOfStatus(str(v['status'])), str(v['status']) ?? null)
        return
      }
      case 'permission_denied': {
        const name = str(v['tool_name'])
        const id = str(v['tool_use_id'])
        if (name !== undefined && id !== undefined) this.addDenial(d, name, id)
        return
      }
      case 'model_refusal_no_fallback':
        this.flags.refusalNoFallback = true
        return
      default:
        return
    }
  }

  private addDenial(d: RunDraft, toolName: string, toolCallId: string): void {
    if (this.denials.has(toolCallId)) return
    this.denials.add(toolCallId)
    d.permissionDenials.push({ toolName, toolCallId })
  }

  private resetTotals(): void {
    this.baseCost = null
    this.baseTurns = null
    this.baseModels = new Map()
  }

  private result(v: Obj, line: number | undefined, time: string | number | undefined): void {
    const st = v['subtype']
    const ie = v['is_error']
    const tr = v['terminal_reason']
    if ((st !== undefined && typeof st !== 'string') || (ie !== undefined && typeof ie !== 'boolean') || (tr !== undefined && tr !== null && typeof tr !== 'string')) {
      touch(this.held?.d ?? this.d, line, time)
      badRecord(this.held?.d ?? this.d, line, 'result', 'subtype, is_error or terminal_reason has an unexpected type')
      return
    }
    const sid = str(v['session_id'])
    const rootSid = this.sessionId ?? this.processSession
    if (sid !== undefined && rootSid !== null && sid !== rootSid) {
      // A result of another session in this stream (a background subagent): a child, never the run's ending.
      touch(this.d, line, time)
      setChildEnding(this.d, sid, resultEnding(v, { sawInterrupt: false, lastStop: undefined, lastAssistantError: undefined, refusalNoFallback: false, fatal: null }), str(tr) ?? str(st) ?? null)
      return
    }
    if (this.held !== null) {
      touch(this.held.d, line, time)
      addDiagnostic(this.held.d, line, 'ignored a further result record: no user input or assistant message came after the previous result, so it belongs to that run')
      return
    }
    if (this.justEmitted) {
      // live: that run is already out; the late result is reported, never a second run (K7)
      touch(this.d, line, time)
      const msg = 'ignored a further result record: no user input or assistant message came after the previous result, so it belongs to that run'
      if (this.live?.note !== undefined) this.live.note(line, msg)
      else addDiagnostic(this.d, line, msg)
      return
    }
    const d = this.d
    touch(d, line, time)
    d.hasContent = true
    const ending = resultEnding(v, this.flags)
    const finishReason = str(tr) ?? str(st) ?? null
    this.applyTotals(v, d, line)
    const denials = v['permission_denials']
    if (Array.isArray(denials)) {
      for (const x of denials) {
        if (!isObject(x)) continue
        const name = str(x['tool_name'])
        const id = str(x['tool_use_id'])
        if (name === undefined || id === undefined) continue
        if (!this.seenDenials.has(id)) this.addDenial(d, name, id)
      }
    } else if (denials !== undefined && denials !== null) {
      addDiagnostic(d, line, 'ignored permission_denials: it is not an array')
    }
    for (const x of d.permissionDenials) this.seenDenials.add(x.toolCallId)
    const text = str(v['result'])
    const so = v['structured_output']
    const dur = num(v['duration_ms'])
    const facts: RunFacts = {
      format: 'claude-code',
      sessionId: sid ?? this.sessionId ?? this.processSession,
      ending,
      finishReason,
      response: text ?? this.rootText,
      ...(so !== undefined && so !== null ? { structuredOutput: so } : {}),
      inferred: false,
      file: this.file,
      ...(dur !== undefined ? { durationMs: dur } : {}),
    }
    this.held = { d, facts }
    this.newRun()
    if (this.live !== null) {
      this.flushHeld()
      this.justEmitted = true
    }
  }

  /** This run's usage, cost and turns: the change of the process's running totals since the previous result. */
  private applyTotals(v: Obj, d: RunDraft, line: number | undefined): void {
    const rawCost = v['total_cost_usd']
    const total = num(rawCost)
    if (rawCost !== undefined && rawCost !== null && (total === undefined || total < 0)) addDiagnostic(d, line, 'ignored total_cost_usd: it is not a non-negative number')
    let runCost: number | null = null
    if (total !== undefined && total >= 0) {
      const base = this.baseCost
      runCost = base === null || total < base ? total : base === 0 ? total : roundUsd(total - base)
      this.baseCost = total
    }
    const mu = v['modelUsage']
    const keys = isObject(mu) ? Object.keys(mu) : []
    if (isObject(mu) && keys.length > 0) {
      const figures: Array<ModelFigure> = []
      for (const model of keys) {
        const e = modelUsageEntry(mu[model])
        if (e === null) {
          addDiagnostic(d, line, 'ignored a modelUsage entry whose counts are not non-negative numbers')
          continue
        }
        const prev = this.baseModels.get(model)
        this.baseModels.set(model, e)
        let b = e.b
        let cost = e.cost
        if (prev !== undefined && covers(e.b, prev.b)) {
          b = minus(e.b, prev.b)
          if (cost !== undefined && prev.cost !== undefined && cost >= prev.cost) cost = prev.cost === 0 ? cost : roundUsd(cost - prev.cost)
        }
        if (isZero(b) && (cost === undefined || cost === 0)) continue
        figures.push({ model, b, cost, items: 1 })
      }
      writeUsage(d, figures, undefined)
      if (d.costMissing === 0) {
        if (runCost === null) {
          d.costMissing = 1
          d.costItems = Math.max(d.costItems, 1)
        } else d.costUsd = runCost
      }
    } else {
      const figures = ledgerFigures(this.ledger)
      const only = figures[0]
      if (figures.length === 1 && only !== undefined && runCost !== null) figures[0] = { ...only, cost: runCost }
      writeUsage(d, figures, runCost)
    }
    const rawTurns = v['num_turns']
    const nt = Number.isSafeInteger(rawTurns) && (rawTurns as number) >= 0 ? (rawTurns as number) : undefined
    if (nt === undefined && rawTurns !== undefined && rawTurns !== null) addDiagnostic(d, line, 'ignored num_turns: it is not a non-negative integer')
    if (nt !== undefined) {
      const base = this.baseTurns
      d.turns = base === null || nt < base ? nt : nt - base
      this.baseTurns = nt
    } else {
      d.turns = this.rootMessages
    }
  }

  /** The open run as it stands (for live status lines): `unfinished` until its result; `undefined` when none is open. */
  snapshot(): RunResult | undefined {
    if (!this.d.hasContent) return undefined
    const d = cloneDraft(this.d)
    writeUsage(d, ledgerFigures(this.ledger), undefined)
    d.turns = this.rootMessages
    return finishRun(d, {
      format: 'claude-code',
      sessionId: this.sessionId ?? this.processSession,
      ending: this.lastType !== null ? { kind: 'unfinished', lastEventType: this.lastType } : { kind: 'unfinished' },
      finishReason: null,
      response: null,
      file: this.file,
    })
  }

  /** The input ended: hand out the held run, then the open one (unfinished, or failed when the last word was a fatal error). */
  end(): void {
    const d = this.d
    if (!d.hasContent && this.held !== null) {
      for (const x of d.diagnostics) addDiagnostic(this.held.d, x.line, x.message)
      this.held.d.diagnosticsDropped += d.diagnosticsDropped
    }
    this.flushHeld()
    if (!d.hasContent && this.emitted > 0) return
    const fatal = this.flags.fatal
    const ending: RunEnding =
      fatal !== null
        ? { kind: 'failed', reason: 'provider_error', phase: 'stream', error: endingError(fatal) }
        : this.lastType !== null
          ? { kind: 'unfinished', lastEventType: this.lastType }
          : { kind: 'unfinished' }
    writeUsage(d, ledgerFigures(this.ledger), undefined)
    d.turns = this.rootMessages
    this.emitted++
    this.emit(
      finishRun(d, {
        format: 'claude-code',
        sessionId: this.sessionId ?? this.processSession,
        ending,
        finishReason: null,
        response: null,
        inferred: false,
        file: this.file,
      }),
    )
  }
}
