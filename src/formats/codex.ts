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
 *    (`inferred: true`). A `user_message` sent while a turn runs (a "steer") belongs to that turn (K24). A fork
 *    (`session_meta.forked_from_id`) opens with its parent's copied history: no run, no usage, only the running
 *    total's baseline, up to the fork's own first turn (K15). Usage is the run's difference of
 *    `token_count.info.total_token_usage` running totals, never a sum of totals. Details in `codex/rollout.ts`.
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
 * Sources: [docs/formats.md](../../docs/formats.md) §C2 (`codex-rs/exec/src/exec_events.rs`,
 * `event_processor_with_jsonl_output.rs`, `@openai/codex-sdk` types, rollout `RolloutItem`s).
 *
 * @module
 */
import * as t from 'io-ts'
import type { Translator } from '../core/translator.js'
import { execEnd, execFailed, execRecord, ExecStateCodec, newExecState, type ExecState } from './codex/exec.js'
import { ROLLOUT_SKIM } from './codex/skim.js'
import type { SkimDeclaration } from './skim/skim.js'
import {
  newRolloutState,
  rolloutDiagnostic,
  rolloutEnd,
  rolloutFailed,
  rolloutQuiet,
  rolloutRecord,
  RolloutStateCodec,
  type RolloutState,
} from './codex/rollout.js'
import { emitDiagnostic, emitRecord } from './events.js'
import { readerFrom } from './fromTranslator.js'
import { isObject, type Obj } from './json.js'
import { shareScore } from './sniff.js'
import type { FormatModule, ReaderFactory } from './types.js'

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
export const CODEX_ROLLOUT_TYPES: ReadonlySet<string> = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted', 'world_state'])

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

/** The Codex translator's state: which shape the input turned out to be, and that shape's state. @since 0.2.0 */
export interface CodexState {
  live: boolean
  shape: 'exec' | 'rollout' | null
  exec: ExecState | null
  rollout: RolloutState | null
}

const CodexStateCodec: t.Type<CodexState, unknown> = t.type({
  live: t.boolean,
  shape: t.union([t.literal('exec'), t.literal('rollout'), t.null]),
  exec: t.union([ExecStateCodec, t.null]),
  rollout: t.union([RolloutStateCodec, t.null]),
}) as unknown as t.Type<CodexState, unknown>

const choose = (s: CodexState, shape: 'exec' | 'rollout'): void => {
  s.shape = shape
  if (shape === 'exec') s.exec = newExecState(s.live)
  else s.rollout = newRolloutState(s.live)
}

/**
 * The Codex translator (either shape). Records before the first one of a known shape count only as lines and
 * diagnostics of the first run. Never returns a `ProtocolError`.
 * @since 0.2.0
 */
export const codexTranslator: Translator<CodexState> & SkimDeclaration<CodexState> = {
  format: 'codex',
  stateCodec: CodexStateCodec,
  init: (options) => ({ live: options.live === true, shape: null, exec: null, rollout: null }),
  record(s, v, _line, emit) {
    if (s.shape === null) {
      const shape = codexShapeOf(v)
      if (shape === undefined) {
        if (isObject(v) && typeof v['type'] === 'string') emitRecord(emit)
        else emitDiagnostic(emit, NOT_A_RECORD)
        return undefined
      }
      choose(s, shape)
    }
    if (!isObject(v) || typeof v['type'] !== 'string') {
      if (s.rollout !== null) rolloutDiagnostic(s.rollout, NOT_A_RECORD, emit)
      else emitDiagnostic(emit, NOT_A_RECORD)
      return undefined
    }
    if (s.rollout !== null) rolloutRecord(s.rollout, v, v['type'], emit)
    else if (s.exec !== null) execRecord(s.exec, v, v['type'], emit)
    return undefined
  },
  text(s, _text, _line, unterminated, emit) {
    const message = unterminated ? 'skipped the last line: it was cut off (no newline) and is not valid JSON' : 'skipped a line that is not JSON'
    if (s.rollout !== null) rolloutDiagnostic(s.rollout, message, emit)
    else emitDiagnostic(emit, message)
    return undefined
  },
  quiet(s, emit) {
    if (s.rollout !== null) rolloutQuiet(s.rollout, emit)
  },
  failed(s, emit) {
    if (s.rollout !== null) rolloutFailed(s.rollout, emit)
    else if (s.exec !== null) execFailed(s.exec, emit)
  },
  end(s, emit) {
    if (s.rollout !== null) rolloutEnd(s.rollout, emit)
    else if (s.exec !== null) execEnd(s.exec, emit)
  },
  // rollouts are skimmed (codex/skim.ts); exec records and the first record are parsed whole
  skim: (s) => (s.rollout !== null ? ROLLOUT_SKIM : undefined),
}

/** Reads Codex JSONL (either shape) through the pipeline (see {@link codexTranslator}). @since 0.1.0 */
export const codexReader: ReaderFactory = readerFrom(codexTranslator)

/**
 * The Codex format module (`--format codex`): `codex exec --json` output and on-disk rollouts, lines only.
 * @since 0.1.0
 */
export const codexFormat: FormatModule = {
  name: 'codex',
  description: 'OpenAI Codex CLI: `codex exec --json` output and session rollouts (~/.codex/sessions/**/rollout-*.jsonl[.gz])',
  sniffLines: sniffCodexLines,
  reader: codexReader,
  translator: codexTranslator,
}
