/**
 * Helpers shared by the two Codex readers (`exec --json` and rollouts): the conversion of Codex token counts
 * into run-outcome's disjoint buckets, and the base class that holds the open run and hands runs out.
 *
 * Codex counts tokens the OpenAI way (field names from `codex-rs` `TokenUsage` and the SDK's `Usage`):
 * `input_tokens` is every prompt token, cached ones included; `cached_input_tokens` is the cached part of it;
 * `cache_write_input_tokens` (newer builds, optional) is the part written to the cache; `output_tokens` includes
 * `reasoning_output_tokens`; `total_tokens` is `input_tokens + output_tokens`.
 *
 * @module
 */
import type { RunEnding } from '../../core/RunEnding.js'
import {
  addDiagnostic,
  finishRun,
  newDraft,
  touch,
  type Diagnostic,
  type RunDraft,
  type RunResult,
  type UsageInput,
} from '../../core/RunResult.js'
import { count, isObject, short, type Obj } from '../json.js'

/**
 * Codex token counts as the source writes them (tokens). `input` includes `cached` and `cacheWrite`;
 * `output` includes `reasoning`.
 * @since 0.1.0
 */
export interface CodexTokens {
  readonly input: number
  readonly cached: number
  readonly cacheWrite: number
  readonly output: number
  readonly reasoning: number
}

const FIELDS = [
  ['input', 'input_tokens'],
  ['cached', 'cached_input_tokens'],
  ['cacheWrite', 'cache_write_input_tokens'],
  ['output', 'output_tokens'],
  ['reasoning', 'reasoning_output_tokens'],
] as const

/**
 * Reads a Codex usage object (`turn.completed.usage`, `token_count.info.total_token_usage`). Absent or `null`
 * fields count as 0. Returns `undefined` when `u` is not an object or a present field is not a finite,
 * non-negative number (the caller records a diagnostic and skips the usage).
 * @since 0.1.0
 */
export const readTokens = (u: unknown): CodexTokens | undefined => {
  if (!isObject(u)) return undefined
  const out = { input: 0, cached: 0, cacheWrite: 0, output: 0, reasoning: 0 }
  for (const [k, f] of FIELDS) {
    const v = u[f]
    if (v === undefined || v === null) continue
    const n = count(v)
    if (n === undefined) return undefined
    out[k] = n
  }
  return out
}

/** `true` when every count of `b` is at least the same count of `a` (so `b` can be a running total after `a`). @internal */
export const notBelow = (a: CodexTokens, b: CodexTokens): boolean =>
  b.input >= a.input && b.cached >= a.cached && b.cacheWrite >= a.cacheWrite && b.output >= a.output && b.reasoning >= a.reasoning

/** `b − a`, count by count. @internal */
export const minus = (b: CodexTokens, a: CodexTokens): CodexTokens => ({
  input: b.input - a.input,
  cached: b.cached - a.cached,
  cacheWrite: b.cacheWrite - a.cacheWrite,
  output: b.output - a.output,
  reasoning: b.reasoning - a.reasoning,
})

/** `true` when every count is 0. @internal */
export const isZero = (t: CodexTokens): boolean =>
  t.input === 0 && t.cached === 0 && t.cacheWrite === 0 && t.output === 0 && t.reasoning === 0

/**
 * Codex counts → disjoint buckets (SPEC §3): `inputTokens = input − cached − cacheWrite` (input not served from
 * or written to the cache; `cacheWrite` is 0 unless the source sent it), `cacheReadTokens = cached`,
 * `cacheWriteTokens = cacheWrite`, `outputTokens = output` (reasoning is already inside), `reasoningTokens =
 * reasoning`. The conversion is linear, so the buckets of a difference of running totals are the difference of
 * their buckets.
 *
 * Example: `{input_tokens: 6040, cached_input_tokens: 4992, output_tokens: 129}` →
 * `{inputTokens: 1048, cacheReadTokens: 4992, outputTokens: 129}`.
 * @since 0.1.0
 */
export const toBuckets = (t: CodexTokens): UsageInput => ({
  inputTokens: t.input - t.cached - t.cacheWrite,
  cacheReadTokens: t.cached,
  cacheWriteTokens: t.cacheWrite,
  outputTokens: t.output,
  reasoningTokens: t.reasoning,
})

/**
 * `true` for text that starts like an ISO-8601 date-time (`YYYY-MM-DDT`), checked on character codes only, so a
 * redacted or garbage timestamp never becomes a run's `startedAt`.
 * @internal
 */
export const looksIsoTime = (s: unknown): s is string => {
  if (typeof s !== 'string' || s.length < 16) return false
  for (let i = 0; i < 10; i++) {
    const c = s.charCodeAt(i)
    if (i === 4 || i === 7) {
      if (c !== 45) return false
    } else if (c < 48 || c > 57) return false
  }
  return s.charCodeAt(10) === 84
}

/**
 * The ending of a run that has no ending record: `unfinished`, with the type of its last record (cut to 60
 * characters) when it had one.
 * @internal
 */
export const unfinishedAfter = (lastType: string | undefined): RunEnding =>
  lastType === undefined ? { kind: 'unfinished' } : { kind: 'unfinished', lastEventType: short(lastType) }

/** A live reader's channel for what it cannot put in a run any more (`ReaderOptions.note`). @internal */
export interface LiveNote {
  readonly note?: (line: number | undefined, message: string) => void
}

/**
 * The part both Codex readers share: the draft of the open run, its session, diagnostics, taking over the
 * lines read before the input's shape was known, and handing runs out.
 * @internal
 */
export abstract class DraftHolder {
  protected draft: RunDraft = newDraft()
  /** The session (thread) id runs are handed out with; `null` until the input names one. */
  protected sessionId: string | null = null
  /** Runs handed out so far. */
  protected emitted = 0

  /**
   * @param emit receives each run as it is handed out
   * @param file the input's file name, for the runs' `source`
   * @param live `null` unless the input is a live stream; its `note` takes what can no longer go into a run
   */
  constructor(
    private readonly emit: (r: RunResult) => void,
    private readonly file: string | null,
    protected readonly live: LiveNote | null = null,
  ) {}

  /** Records a diagnostic (and its line) in the open run. Never pass input values in `message`. */
  diagnostic(line: number, message: string): void {
    touch(this.draft, line)
    addDiagnostic(this.draft, line, message)
  }

  /** Takes over the line range and diagnostics of the lines read before this reader was chosen. */
  adopt(firstLine: number, lastLine: number, diagnostics: ReadonlyArray<Diagnostic>, dropped: number): void {
    touch(this.draft, firstLine)
    touch(this.draft, lastLine)
    for (const d of diagnostics) addDiagnostic(this.draft, d.line, d.message)
    this.draft.diagnosticsDropped += dropped
  }

  /** Live: reports `message` through the caller's `note` when it gave one, else as a diagnostic of the open run. */
  protected noteLive(line: number, message: string): void {
    if (this.live?.note !== undefined) this.live.note(line, message)
    else addDiagnostic(this.draft, line, message)
  }

  /** The open run as it stands, `unfinished` (see {@link unfinishedAfter}), for live status lines. */
  protected unfinishedSnapshot(lastType: string | undefined): RunResult {
    return finishRun(this.draft, {
      format: 'codex',
      sessionId: this.sessionId,
      ending: unfinishedAfter(lastType),
      finishReason: null,
      response: null,
      file: this.file,
    })
  }

  /** Hands out the open run with these facts and starts a new draft (the caller resets its own state). */
  protected handOut(ending: RunEnding, finishReason: string | null, response: string | null, inferred: boolean, durationMs: number | null): void {
    this.emitted++
    this.emit(
      finishRun(this.draft, {
        format: 'codex',
        sessionId: this.sessionId,
        ending,
        finishReason,
        response,
        inferred,
        file: this.file,
        durationMs,
      }),
    )
    this.draft = newDraft()
  }

  /** Reads one parsed record: one that is not an object with a string `type` is only a diagnostic. */
  record(v: unknown, line: number): void {
    if (!isObject(v) || typeof v['type'] !== 'string') {
      this.diagnostic(line, 'skipped a record that is not an object with a string type')
      return
    }
    this.typedRecord(v, v['type'], line)
  }

  /** Reads one record that is an object with a string `type`. */
  protected abstract typedRecord(v: Obj, type: string, line: number): void
  /** The input ended: hands out the open run (or one `unfinished` run when the input held none). */
  abstract end(): void
}
