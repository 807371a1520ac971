/**
 * `RunResult`: what one run produced (SPEC §3), and `RunDraft`, the mutable, JSON-serializable accumulator
 * every reader (native fold and vendor formats) fills while it reads a run.
 *
 * Usage buckets are disjoint (input not served from cache, cache reads, cache writes, output including
 * reasoning); `usage` and `cost` cover this run only; a missing cost is not zero. Memory stays flat: a draft
 * keeps counters, the last answer and at most 100 diagnostics, never the events.
 *
 * @module
 */
import { idKey } from './idKey.js'
import { keepsResponse, type RunEnding } from './RunEnding.js'
import { isoFromMs, msFromIso } from './time.js'
import { roundUsd } from './usd.js'
import { isTokenCount } from './values.js'

/** Token counts in disjoint buckets (tokens). @since 0.1.0 @category Results */
export interface UsageBuckets {
  /** Input tokens not served from cache. */
  readonly inputTokens: number
  /** Input tokens read from the prompt cache. */
  readonly cacheReadTokens: number
  /** Input tokens written to the prompt cache. */
  readonly cacheWriteTokens: number
  /** Output tokens, reasoning included. */
  readonly outputTokens: number
  /** The reasoning (thinking) share of `outputTokens`. */
  readonly reasoningTokens: number
}

/** One model's usage in a run, with its cost in USD (`null` when any of its responses had no cost). @since 0.1.0 @category Results */
export interface ModelUsage extends UsageBuckets {
  readonly costUsd: number | null
}

/**
 * The `usage.byModel` key (and the model name an estimate is asked with) of usage whose source names no model —
 * a `codex exec --json` log, a Claude Code record without `message.model` — or that several models share (an AI
 * SDK or OpenAI Agents run total). Its cost stays unknown (`cost.missing` counts it) unless the source reports one
 * or a price table names it exactly: a pattern such as `*` never prices it (`priceOf`).
 * @since 0.3.0
 * @category Results
 */
export const NO_MODEL = 'unknown'

/** A run's usage: the buckets summed over every model, root and children, plus `byModel`. @since 0.1.0 @category Results */
export interface Usage extends UsageBuckets {
  readonly byModel: Readonly<Record<string, ModelUsage>>
}

/**
 * A run's cost in USD. `totalUsd` is `null` and `complete` false when any priced item (a model response that
 * carries usage) had no cost; `missing` counts those items. A run with nothing priced at all (no model response
 * with usage, no cost the log reports) is `{ totalUsd: null, complete: false, missing: 0 }`: unknown, never a
 * complete $0 (K27). `estimated` is set when a price table supplied it.
 * @since 0.1.0
 * @category Results
 */
export interface Cost {
  readonly totalUsd: number | null
  readonly complete: boolean
  readonly missing: number
  readonly estimated?: boolean
}

/** A note about input that was skipped or repaired: never an echo of the input itself. @since 0.1.0 @category Results */
export interface Diagnostic {
  /** 1-based line in the log, when known. */
  readonly line?: number
  readonly message: string
}

/** A subagent (child session) of the run, with its own ending. It never sets the run's ending (SPEC §2 rule 1). @since 0.1.0 @category Results */
export interface ChildResult {
  readonly sessionId: string
  readonly ending: RunEnding
  readonly finishReason?: string | null
}

/** A tool call the run's permission layer refused (Claude Code `permission_denials`). @since 0.1.0 @category Results */
export interface PermissionDenial {
  readonly toolName: string
  readonly toolCallId: string
}

/** Where a run was read from: the file and its 1-based line range. @since 0.1.0 @category Results */
export interface RunSource {
  readonly file: string | null
  readonly firstLine: number | null
  readonly lastLine: number | null
}

/** Input format names (SPEC §1 `--format`). @since 0.1.0 @category Results */
export type FormatName = 'native' | 'claude-code' | 'codex' | 'gemini' | 'ai-sdk' | 'openai-agents' | 'acp' | (string & { readonly __format?: never })

/**
 * One run's result (SPEC §3): the library object and the CLI's `--json` line.
 * @since 0.1.0
 * @category Results
 */
export interface RunResult {
  readonly format: FormatName
  readonly sessionId: string | null
  readonly ending: RunEnding
  /**
   * The raw terminal kind as the source wrote it, or `null` when there was none (SPEC §3): a record of what the log
   * says, not a verdict. A Claude Code result with `is_error: true` and `subtype: "success"` has `"success"` here
   * and a `failed` {@link RunResult.ending}; read the ending (or `isSuccess`) for how the run ended.
   */
  readonly finishReason: string | null
  /** The final root answer when the ending is `answered` or `cut_off`, else `null`; never an error message. */
  readonly response: string | null
  /** A stop tool's payload or the source's structured output, when present. */
  readonly structuredOutput: unknown
  readonly schemaVersion: 1
  readonly source: RunSource | null
  /** ISO-8601 times from the events, or `null`. */
  readonly startedAt: string | null
  readonly endedAt: string | null
  /** `true` when the format has no terminal record and the ending was read from the last records. */
  readonly inferred: boolean
  /** Turns of the root session, as the format counts them (native: `turn/start` count). */
  readonly turns: number
  /** Tool calls in the run, root and children. */
  readonly toolCalls: number
  readonly permissionDenials: ReadonlyArray<PermissionDenial>
  readonly usage: Usage
  readonly cost: Cost
  /** Milliseconds, or `null` when unknown. */
  readonly durationMs: number | null
  readonly children: ReadonlyArray<ChildResult>
  /** At most {@link MAX_DIAGNOSTICS}; the rest are counted in `diagnosticsDropped`. */
  readonly diagnostics: ReadonlyArray<Diagnostic>
  readonly diagnosticsDropped: number
}

/** Diagnostics kept per run; further ones are only counted. @since 0.1.0 @category Results */
export const MAX_DIAGNOSTICS = 100

/** Mutable token buckets inside a draft. @internal */
export interface BucketsDraft {
  inputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
}

/**
 * Mutable per-model usage inside a draft. `costMissing` counts this model's unpriced items, `items` all its
 * priced items (a model whose items all moved to another one — a message copy naming another model — is left
 * out of the result).
 * @internal
 */
export interface ModelDraft extends BucketsDraft {
  costUsd: number
  costMissing: number
  items: number
}

/**
 * The mutable, JSON-serializable accumulator of one run. Readers fill it with the helpers below and turn it
 * into a `RunResult` with {@link finishRun}. Keys of `byModel` and `childIndex` are prefixed with `#`, so an
 * id such as `__proto__` is an ordinary key.
 * @since 0.1.0
 */
export interface RunDraft {
  firstLine: number | null
  lastLine: number | null
  /** Raw first and last event times (epoch ms or ISO text), parsed only when the run is finished. */
  firstTime: number | string | null
  lastTime: number | string | null
  hasContent: boolean
  turns: number
  toolCalls: number
  permissionDenials: Array<PermissionDenial>
  usage: BucketsDraft
  byModel: Record<string, ModelDraft>
  costUsd: number
  costItems: number
  costMissing: number
  costEstimated: boolean
  children: Array<{ sessionId: string; ending: RunEnding; finishReason: string | null }>
  childIndex: Record<string, number>
  diagnostics: Array<Diagnostic>
  diagnosticsDropped: number
}

const zeroBuckets = (): BucketsDraft => ({
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
})

/** A new, empty draft. @since 0.1.0 */
export const newDraft = (): RunDraft => ({
  firstLine: null,
  lastLine: null,
  firstTime: null,
  lastTime: null,
  hasContent: false,
  turns: 0,
  toolCalls: 0,
  permissionDenials: [],
  usage: zeroBuckets(),
  byModel: {},
  costUsd: 0,
  costItems: 0,
  costMissing: 0,
  costEstimated: false,
  children: [],
  childIndex: {},
  diagnostics: [],
  diagnosticsDropped: 0,
})

/** A deep copy of a draft (for the pure `step`). @internal */
export const cloneDraft = (d: RunDraft): RunDraft => {
  const byModel: Record<string, ModelDraft> = {}
  for (const k of Object.keys(d.byModel)) {
    const m = d.byModel[k] as ModelDraft
    byModel[k] = {
      inputTokens: m.inputTokens,
      cacheReadTokens: m.cacheReadTokens,
      cacheWriteTokens: m.cacheWriteTokens,
      outputTokens: m.outputTokens,
      reasoningTokens: m.reasoningTokens,
      costUsd: m.costUsd,
      costMissing: m.costMissing,
      items: m.items,
    }
  }
  return {
    ...d,
    permissionDenials: d.permissionDenials.slice(),
    usage: { ...d.usage },
    byModel,
    children: d.children.map((c) => ({ ...c })),
    childIndex: { ...d.childIndex },
    diagnostics: d.diagnostics.slice(),
  }
}

/** Records a line (and optional event time) as part of the run. @since 0.1.0 */
export const touch = (d: RunDraft, line: number | undefined, time?: number | string): void => {
  if (line !== undefined) {
    if (d.firstLine === null) d.firstLine = line
    d.lastLine = line
  }
  if (time !== undefined) {
    if (d.firstTime === null) d.firstTime = time
    d.lastTime = time
  }
}

/** Adds a diagnostic, keeping at most {@link MAX_DIAGNOSTICS}. Never pass input values in `message`. @since 0.1.0 */
export const addDiagnostic = (d: RunDraft, line: number | undefined, message: string): void => {
  if (d.diagnostics.length >= MAX_DIAGNOSTICS) {
    d.diagnosticsDropped++
    return
  }
  d.diagnostics.push(line === undefined ? { message } : { line, message })
}

/** Partial usage for {@link addUsage}: absent buckets count as 0. @since 0.1.0 */
export type UsageInput = Partial<UsageBuckets>

/** A finite price, 0 … 2^53−1 (larger ones would make sums inexact or, summed, infinite). */
const isCount = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n <= Number.MAX_SAFE_INTEGER

/**
 * Adds one priced item (a model response carrying usage) to the run: its buckets to the totals and to
 * `byModel[model]`, and its cost in USD (`undefined`/`null` = unknown, counted as missing). A count that is not
 * a whole number of tokens, 0 … 2^53−1 (`1.5`, `-1`, `1e999`), is ignored with a diagnostic.
 * @since 0.1.0
 */
export const addUsage = (d: RunDraft, model: string | null | undefined, usage: UsageInput, costUsd: number | null | undefined, line?: number): void => {
  const u = d.usage
  const key = idKey(model ?? NO_MODEL)
  let m = d.byModel[key]
  if (m === undefined) {
    m = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, costUsd: 0, costMissing: 0, items: 0 }
    d.byModel[key] = m
  }
  m.items++
  const { inputTokens, cacheReadTokens, cacheWriteTokens, outputTokens, reasoningTokens } = usage
  let bad = false
  if (inputTokens !== undefined) {
    if (isTokenCount(inputTokens)) {
      u.inputTokens += inputTokens
      m.inputTokens += inputTokens
    } else bad = true
  }
  if (cacheReadTokens !== undefined) {
    if (isTokenCount(cacheReadTokens)) {
      u.cacheReadTokens += cacheReadTokens
      m.cacheReadTokens += cacheReadTokens
    } else bad = true
  }
  if (cacheWriteTokens !== undefined) {
    if (isTokenCount(cacheWriteTokens)) {
      u.cacheWriteTokens += cacheWriteTokens
      m.cacheWriteTokens += cacheWriteTokens
    } else bad = true
  }
  if (outputTokens !== undefined) {
    if (isTokenCount(outputTokens)) {
      u.outputTokens += outputTokens
      m.outputTokens += outputTokens
    } else bad = true
  }
  if (reasoningTokens !== undefined) {
    if (isTokenCount(reasoningTokens)) {
      u.reasoningTokens += reasoningTokens
      m.reasoningTokens += reasoningTokens
    } else bad = true
  }
  if (bad) addDiagnostic(d, line, 'ignored a token count that is not a whole, non-negative number')
  d.costItems++
  if (costUsd === undefined || costUsd === null || !isCount(costUsd)) {
    d.costMissing++
    m.costMissing++
  } else {
    d.costUsd += costUsd
    m.costUsd += costUsd
  }
}

/**
 * Replaces the run's usage and cost with figures the source states for the whole run (for example the
 * difference of two running totals), per model. Buckets of each model are summed into the totals.
 * @since 0.1.0
 */
export const setUsageByModel = (d: RunDraft, models: ReadonlyArray<{ model: string; usage: UsageInput; costUsd: number | null | undefined }>): void => {
  d.usage = zeroBuckets()
  d.byModel = {}
  d.costUsd = 0
  d.costItems = 0
  d.costMissing = 0
  for (const m of models) addUsage(d, m.model, m.usage, m.costUsd)
}

/** Records a child session (idempotent) and returns its index. @since 0.1.0 */
export const ensureChild = (d: RunDraft, sessionId: string): number => {
  const key = idKey(sessionId)
  const i = d.childIndex[key]
  if (i !== undefined) return i
  d.children.push({ sessionId, ending: { kind: 'unfinished' }, finishReason: null })
  d.childIndex[key] = d.children.length - 1
  return d.children.length - 1
}

/** Sets a child's ending (and raw finish reason). @since 0.1.0 */
export const setChildEnding = (d: RunDraft, sessionId: string, ending: RunEnding, finishReason: string | null): void => {
  const c = d.children[ensureChild(d, sessionId)]
  if (c !== undefined) {
    c.ending = ending
    c.finishReason = finishReason
  }
}

/** A cost that can be printed and summed: finite, not negative, at most 2^53−1 USD (a 1e308 price makes `Infinity`). */
const isUsd = (x: number): boolean => Number.isFinite(x) && x >= 0 && x <= Number.MAX_SAFE_INTEGER

const NEGATIVE_DURATION = 'the run ends before it starts (its clock went backwards, or the source gives a negative duration): duration unknown'
const HUGE_COST = 'a cost summed to a figure that is not a finite USD amount (a price or reported cost too large): cost unknown'

const timeMs = (t: number | string | null): number | null => {
  if (t === null) return null
  const ms = typeof t === 'number' ? t : msFromIso(t)
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? ms : null
}

const isoOf = (ms: number | null): string | null => (ms === null ? null : isoFromMs(ms))

/** What a reader knows about a run when it finishes it. @since 0.1.0 */
export interface RunFacts {
  readonly format: FormatName
  readonly sessionId: string | null
  readonly ending: RunEnding
  readonly finishReason: string | null
  /** The final answer; it is kept only when the ending is `answered` or `cut_off`. */
  readonly response: string | null
  readonly structuredOutput?: unknown
  readonly inferred?: boolean
  readonly file?: string | null
  /** The source's own duration (milliseconds); otherwise the span of the event times. */
  readonly durationMs?: number | null
}

/**
 * Turns a draft into the immutable `RunResult` of SPEC §3. The response is dropped unless the ending is
 * `answered` or `cut_off`; `cost.totalUsd` is `null` whenever an item was unpriced, and when nothing was
 * priced at all (K27: a run without model output or a reported cost has an unknown cost, not $0). Values are
 * never out of range: a negative duration (the last event time before the first — a clock that went backwards —
 * or a negative source duration) is `durationMs: null`, and a cost sum that is not a finite USD amount up to
 * 2^53−1 (a 1e308 price) is `totalUsd: null`, `complete: false` (that model's `costUsd` `null`); each adds a
 * diagnostic (within the 100 kept, else counted).
 * @since 0.1.0
 */
export const finishRun = (d: RunDraft, facts: RunFacts): RunResult => {
  const byModel: Array<[string, ModelUsage]> = []
  let hugeCost = false
  for (const k of Object.keys(d.byModel)) {
    const m = d.byModel[k] as ModelDraft
    if (m.items <= 0) continue
    const known = m.costMissing === 0
    if (known && !isUsd(m.costUsd)) hugeCost = true
    byModel.push([
      k.slice(1),
      {
        inputTokens: m.inputTokens,
        cacheReadTokens: m.cacheReadTokens,
        cacheWriteTokens: m.cacheWriteTokens,
        outputTokens: m.outputTokens,
        reasoningTokens: m.reasoningTokens,
        costUsd: !known || !isUsd(m.costUsd) ? null : roundUsd(m.costUsd),
      },
    ])
  }
  const start = timeMs(d.firstTime)
  const end = timeMs(d.lastTime)
  const span =
    facts.durationMs !== undefined && facts.durationMs !== null && Number.isFinite(facts.durationMs)
      ? facts.durationMs
      : start !== null && end !== null
        ? end - start
        : null
  // a negative duration is never printed: it is unknown, with a diagnostic saying why
  const duration = span !== null && span < 0 ? null : span
  const totalKnown = d.costMissing === 0
  if (totalKnown && d.costItems > 0 && !isUsd(d.costUsd)) hugeCost = true
  let diagnostics = d.diagnostics.slice()
  let dropped = d.diagnosticsDropped
  for (const [bad, message] of [
    [span !== null && span < 0, NEGATIVE_DURATION],
    [hugeCost, HUGE_COST],
  ] as const) {
    if (!bad) continue
    if (diagnostics.length < MAX_DIAGNOSTICS) diagnostics = [...diagnostics, { message }]
    else dropped++
  }
  return {
    format: facts.format,
    sessionId: facts.sessionId,
    ending: facts.ending,
    finishReason: facts.finishReason,
    response: keepsResponse(facts.ending) ? facts.response : null,
    structuredOutput: facts.structuredOutput ?? null,
    schemaVersion: 1,
    source: d.firstLine === null && (facts.file ?? null) === null ? null : { file: facts.file ?? null, firstLine: d.firstLine, lastLine: d.lastLine },
    startedAt: isoOf(start),
    endedAt: isoOf(end),
    inferred: facts.inferred ?? false,
    turns: d.turns,
    toolCalls: d.toolCalls,
    permissionDenials: d.permissionDenials.slice(),
    usage: {
      inputTokens: d.usage.inputTokens,
      cacheReadTokens: d.usage.cacheReadTokens,
      cacheWriteTokens: d.usage.cacheWriteTokens,
      outputTokens: d.usage.outputTokens,
      reasoningTokens: d.usage.reasoningTokens,
      byModel: Object.fromEntries(byModel),
    },
    cost:
      // nothing priced (no model response with usage, no cost the source reports): the cost is unknown, never a
      // complete $0 — one rule for every format (K27)
      d.costItems === 0 && !d.costEstimated
        ? { totalUsd: null, complete: false, missing: 0 }
        : {
            totalUsd: !totalKnown || hugeCost ? null : roundUsd(d.costUsd),
            complete: totalKnown && !hugeCost,
            missing: d.costMissing,
            ...(d.costEstimated ? { estimated: true } : {}),
          },
    durationMs: duration,
    children: d.children.map((c) => ({ sessionId: c.sessionId, ending: c.ending, finishReason: c.finishReason })),
    diagnostics,
    diagnosticsDropped: dropped,
  }
}
