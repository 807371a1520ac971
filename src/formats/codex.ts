/**
 * `--format codex`: OpenAI Codex CLI logs, in two shapes, told apart by their first recognised record.
 *
 * 1. **`codex exec --json`** output: JSONL `ThreadEvent`s (`thread.started`, `turn.started`, `turn.completed`,
 *    `turn.failed`, `item.*`, `error`). Each `turn.completed` / `turn.failed` ends a run: `answered` /
 *    `failed` `error` with the turn's error message; `finishReason` is that event's type. With no terminal event
 *    the run is `failed` `phase: 'stream'` when the last record is a top-level `error`, else `unfinished`
 *    (never `answered`). `sessionId` is the `thread_id`; `response` the last `agent_message` item of the run;
 *    `toolCalls` counts completed `command_execution`, `file_change`, `mcp_tool_call`, `web_search` and
 *    `collab_tool_call` items, each id once. Usage: each `turn.completed.usage` is one priced item without cost;
 *    a second turn's usage that is ≥ the previous one in every count is a running total and is differenced.
 *    Details in `codex/exec.ts`.
 * 2. **Rollouts** (`~/.codex/sessions/…/rollout-*.jsonl`, `archived_sessions/`, `.jsonl.gz`): `{timestamp, type,
 *    payload}` records. Each `event_msg.user_message` starts a run; `task_complete` / `turn_complete` →
 *    `answered` (or `failed` with its `error`), `turn_aborted` by reason (`interrupted`, `replaced`,
 *    `review_ended` → `stopped` by `caller`; `budget_limited` → `limit` `budget`; other → `failed`
 *    `unrecognized`); without task events (0.40) the ending is inferred from the run's last records
 *    (`inferred: true`). Usage is the run's difference of `token_count.info.total_token_usage` running totals,
 *    never a sum of totals. Details in `codex/rollout.ts`.
 *
 * Both shapes: input tokens include cached ones, so `inputTokens = input_tokens − cached_input_tokens −
 * cache_write_input_tokens`, `cacheReadTokens = cached_input_tokens`, `cacheWriteTokens =
 * cache_write_input_tokens`, `outputTokens = output_tokens` (reasoning already inside, repeated in
 * `reasoningTokens`). Codex reports no cost: `cost.totalUsd` is null whenever a run carried usage.
 *
 * Lenient (SPEC §4): non-JSON lines (`Reading additional input from stdin...`) and records of a known type with
 * unexpected field types are diagnostics; unknown record types are ignored. The reader never returns a
 * `ProtocolError` and never throws.
 *
 * Sources: `shared/reference/formats.md` §C2 (`codex-rs/exec/src/exec_events.rs`,
 * `event_processor_with_jsonl_output.rs`, `@openai/codex-sdk` types, rollout `RolloutItem`s).
 *
 * @module
 */
import { MAX_DIAGNOSTICS, type Diagnostic } from '../core/RunResult.js'
import { ExecReader } from './codex/exec.js'
import { RolloutReader } from './codex/rollout.js'
import { NOT_JSON, isObject, parseJson, type Obj } from './json.js'
import { shareScore } from './sniff.js'
import type { FormatModule, LineReader, ReaderFactory } from './types.js'

/** Top-level `type`s of `codex exec --json` (the `ThreadEvent` tags). @since 0.1.0 */
export const CODEX_EXEC_TYPES: ReadonlySet<string> = new Set([
  'thread.started',
  'turn.started',
  'turn.completed',
  'turn.failed',
  'item.started',
  'item.updated',
  'item.completed',
  'item.plan.delta',
  'request_user_input',
  'error',
])

/** Top-level `type`s of rollout records (`RolloutItem` tags). @since 0.1.0 */
export const CODEX_ROLLOUT_TYPES: ReadonlySet<string> = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'world_state',
])

const NOT_A_RECORD = 'skipped a record that is not an object with a string type'

/** Which Codex shape a parsed record belongs to, or `undefined` when it is neither. @since 0.1.0 */
export const codexShapeOf = (v: unknown): 'exec' | 'rollout' | undefined => {
  if (!isObject(v)) return undefined
  const t = v['type']
  if (typeof t !== 'string') return undefined
  if (CODEX_ROLLOUT_TYPES.has(t)) return 'rollout'
  if (CODEX_EXEC_TYPES.has(t)) return 'exec'
  return undefined
}

/** A record that counts for detection (see {@link sniffCodexLines}). */
const isCodexRecord = (v: Obj): boolean => {
  const t = v['type']
  if (typeof t !== 'string') return false
  return (CODEX_ROLLOUT_TYPES.has(t) && 'payload' in v) || (t !== 'error' && CODEX_EXEC_TYPES.has(t))
}

/**
 * Detection score for the first parsed lines (non-JSON lines are `undefined`): 0 when no line is a Codex
 * record; otherwise `0.5 + 0.5 × (Codex records / JSON objects)`. Exec records count when their `type` is a
 * `ThreadEvent` tag other than the generic `error`; rollout records when their `type` is a `RolloutItem` tag
 * and they carry a `payload`.
 * @since 0.1.0
 */
export const sniffCodexLines = (values: ReadonlyArray<unknown>): number => shareScore(values, isCodexRecord)

/**
 * Reads Codex JSONL (either shape). Lines before the first recognised record are held as line numbers and
 * diagnostics only (at most {@link MAX_DIAGNOSTICS}), then handed to the chosen reader. An input with no Codex
 * record at all gives one `unfinished` run. Never returns a `ProtocolError`.
 * @since 0.1.0
 */
export const codexReader: ReaderFactory = (emit, options): LineReader => {
  const file = options.file ?? null
  let impl: ExecReader | RolloutReader | undefined
  const early: Array<Diagnostic> = []
  let earlyDropped = 0
  let firstLine: number | undefined
  let lastLine: number | undefined
  const hold = (line: number, message?: string): void => {
    if (firstLine === undefined) firstLine = line
    lastLine = line
    if (message === undefined) return
    if (early.length < MAX_DIAGNOSTICS) early.push({ line, message })
    else earlyDropped++
  }
  const choose = (shape: 'exec' | 'rollout'): ExecReader | RolloutReader => {
    const live = options.live === true ? (options.note !== undefined ? { note: options.note } : {}) : null
    const r = shape === 'rollout' ? new RolloutReader(emit, file, live) : new ExecReader(emit, file, live)
    if (firstLine !== undefined) r.adopt(firstLine, lastLine ?? firstLine, early, earlyDropped)
    early.length = 0
    return r
  }
  return {
    line(text, lineNo, unterminated) {
      const v = parseJson(text)
      if (v === NOT_JSON) {
        const message = unterminated ? 'skipped the last line: it was cut off (no newline) and is not valid JSON' : 'skipped a line that is not JSON'
        if (impl === undefined) hold(lineNo, message)
        else impl.diagnostic(lineNo, message)
        return undefined
      }
      if (impl === undefined) {
        const shape = codexShapeOf(v)
        if (shape === undefined) {
          hold(lineNo, isObject(v) && typeof v['type'] === 'string' ? undefined : NOT_A_RECORD)
          return undefined
        }
        impl = choose(shape)
      }
      impl.record(v, lineNo)
      return undefined
    },
    snapshot() {
      return impl?.snapshot()
    },
    quiet() {
      if (impl instanceof RolloutReader) impl.quiet()
    },
    end() {
      if (impl === undefined) impl = choose('exec')
      impl.end()
    },
  }
}

/**
 * The Codex format module (`--format codex`): `codex exec --json` output and on-disk rollouts, lines only.
 * @since 0.1.0
 */
export const codexFormat: FormatModule = {
  name: 'codex',
  description: 'OpenAI Codex CLI: `codex exec --json` output and session rollouts (~/.codex/sessions/**/rollout-*.jsonl[.gz])',
  sniffLines: sniffCodexLines,
  reader: codexReader,
}
