/**
 * `--format claude-code`: Claude Code's three shapes, told apart record by record (formats.md §C1).
 *
 * 1. **stream-json** (`claude -p --output-format stream-json --verbose`; the Agent SDK's `SDKMessage` JSONL).
 *    Records `system` / `assistant` / `user` / `result` with a snake-case `session_id`.
 * 2. **`--output-format json`**: one `result` object, or a JSON array of every message. A one-line array is
 *    read element by element (all on that line); a pretty-printed document goes through `readDocument`.
 * 3. **On-disk transcripts** (`~/.claude/projects/<project>/<session>.jsonl`): records with a camel-case
 *    `sessionId`, `uuid`, `parentUuid`, `isSidechain`, or the `summary` / `file-history-snapshot` / … types.
 *
 * The first record that is unmistakably one of them fixes the shape for the whole input.
 *
 * ## stream-json: runs and endings
 * Each root `result` ends a run (with `--input-format stream-json` there is one per turn). A further `result`
 * with no user or assistant record since the previous one belongs to that run: it does not override it and
 * becomes a diagnostic (K7). To allow that, a closed run is handed out when the next user or assistant record
 * arrives, or when the input ends (live, at its result; the late result is then a note). A `result` whose `session_id` differs from the run's (a background
 * subagent's) is listed in `children` and never ends the run (K9). The ending of a `result`, in this order:
 * - `terminal_reason` `aborted_streaming` / `aborted_tools`, or `error_during_execution` after a root
 *   `[Request interrupted by user…]` message → `stopped` by `caller` (K8);
 * - `hook_stopped` / `stop_hook_prevented` → `stopped` by `hook`;
 * - `error_max_turns` / `error_max_budget_usd` / `error_max_structured_output_retries`, or `terminal_reason`
 *   `max_turns` / `budget_exhausted` / `structured_output_retry_exhausted` / `blocking_limit` /
 *   `prompt_too_long` / `rapid_refill_breaker` → `limit` (`max_turns` with `actual` = `num_turns`;
 *   `cost_limit` with `actual` = `total_cost_usd`; `limit` when a figure can be read), even with `is_error`;
 * - `tool_deferred` → `suspended`, the `deferred_tool_use` pending as `{id, kind: 'approval', toolName, arguments}`;
 *   `background_requested` → `stopped` by `caller`;
 * - `is_error: true` (even with `subtype: success`, K6), `error_during_execution`, `model_error`, `api_error`,
 *   `image_error`, `malformed_tool_use_exhausted`, `turn_setup_failed`, `tool_deferred_unavailable` →
 *   `failed` (`provider_error` when an API status or assistant error code is known, else `error`; `phase:
 *   'startup'` with `startup_failure_reason`); the `result` text is the error message, `response` stays null;
 * - `stop_reason` (of the result, else of the last root assistant message) `max_tokens` / `refusal` /
 *   `model_context_window_exceeded` / `pause_turn` → `cut_off` (`max_tokens`, `refusal`, `context_window`,
 *   `pause_turn`) (K13);
 * - `subtype: success` with an empty (or no) `result` text on a turn whose model last stopped to call a tool (the
 *   result's `stop_reason`, else the last root message's, is `tool_use`, or that message's last block is a
 *   `tool_use`) → `unfinished` (`lastEventType` `tool_use`, or `tool_result` when the call's result came and the
 *   model never continued), `response` null (K18: a success label is no answer there);
 * - `subtype: success` → `answered`, `response` = the whole text of the final root assistant message (its text
 *   blocks in order, records of one `message.id` joined by a blank line) when the `result` text is only part of it
 *   (K19: Claude Code's result can hold just the last text block), else the `result` text;
 * - any other `terminal_reason` or `subtype` → `failed` `unrecognized`, the raw string in `raw` and
 *   `finishReason` (K14).
 * A stream without a `result` is `unfinished` (`lastEventType` = the last record's type), or `failed` with
 * `phase: 'stream'` when its last user/assistant record was a synthetic API-error message (SPEC §2 rule 2), or
 * `failed` `provider_error` with `phase: 'provider'` when it was a provider error object in place of the message
 * (K25: an AWS body `{"Output":{"__type":"…#…Exception"}}` with no content, the error type kept as `name` and
 * `code`). The same assistant record written twice (same `message.id`, a new `uuid`) adds neither text nor usage,
 * and an earlier message written again later is no new turn and not the last message (K26).
 * `finishReason` = `terminal_reason`, else `subtype`. `permission_denials` → `permissionDenials` (denials do
 * not end a run; an id already reported by an earlier run of the same process is not repeated);
 * `system/api_retry` records are not failures. Subagent messages (`parent_tool_use_id` set) never give the
 * response or the ending; Task/Agent calls, `task_started` / `task_notification` tasks and their results
 * appear in `children`.
 *
 * ## stream-json: usage and cost (cumulative per process)
 * `total_cost_usd`, `modelUsage` and `num_turns` are running totals of the process, so a run's figures are the
 * latest totals minus those of the previous run's `result` (never a sum; a total that goes down restarts from
 * zero, with a diagnostic; a new `system/init` session starts fresh totals) (K11). Usage per model is the change in `modelUsage`
 * (`inputTokens`, `cacheReadInputTokens`, `cacheCreationInputTokens`, `outputTokens` → input, cache read,
 * cache write, output tokens; `costUSD` → `costUsd`); it includes subagents. When `modelUsage` is absent or
 * empty, usage comes from the assistant messages (root and subagents), counted once per `message.id` with
 * the last copy, and per-model cost is unknown unless a single model is involved. The run's cost is the
 * change in `total_cost_usd` (complete; with one model, that model's cost too); a model whose usage moved
 * without a `costUSD` makes the cost missing (`totalUsd` null, K12). A result without `total_cost_usd` leaves
 * the cost to the priced items: the `modelUsage` changes with their `costUSD`, or the assistant messages (which
 * carry none: missing). `turns` is the change in `num_turns`, else the root assistant messages (distinct
 * `message.id`s) of the run. A result with no `modelUsage` (Claude Code 1.0.x) has its `usage` object as the run's
 * usage: it is the figure `total_cost_usd` was computed from, a running total of the process like it (so a run gets
 * its change), under the model of the run's root messages; the streamed messages' own usage undercounts (their
 * `output_tokens` are not final). Only when neither is present do the messages' figures count.
 *
 * ## Transcripts: runs and inferred endings
 * Each real prompt (a root user record typed by the person: not a `tool_result`, not `isMeta`, not a
 * compaction summary, not a slash-command or local-command record, not an interrupt marker, not hook
 * feedback) starts a run; a slash-command record also starts one, but only assistant work makes it a run.
 * A run is handed out when the next one starts, and at the end of input. There is no terminal record, so
 * the ending is read from the run's last root records (`inferred: true`):
 * - last block of the last root assistant message is text → `answered` (`cut_off` when its `stop_reason`
 *   is `max_tokens` / `refusal` / `model_context_window_exceeded` / `pause_turn`); `finishReason` is that
 *   `stop_reason` or null;
 * - `[Request interrupted by user…]` → `stopped` by `caller`;
 * - a synthetic API-error message (`isApiErrorMessage`, or model `<synthetic>` with "API Error…") → `failed`
 *   `provider_error`;
 * - a provider error object in place of the message (K25, e.g. Bedrock's `Output.__type` `…Exception` with empty
 *   `content`) → `failed` `provider_error`, `phase: 'provider'`, `error: {message, name, code}` (the type kept);
 *   it is no model response, so no priced item (cost `null` when nothing else was priced, K27);
 * - a `system` `api_refusal` (Claude Code ≥ 2.1: the API refused and retracted the message it had begun) →
 *   `cut_off` `refusal`, `response` null; a `system` `stop_hook_summary` with `preventedContinuation: true` →
 *   `stopped` by `hook` (its `stopReason` text kept);
 * - a `max_turns_reached` attachment → `limit` `max_turns`;
 * - ends on a call of a tool that asks the person and waits (`AskUserQuestion` → a `question`,
 *   `ExitPlanMode` → an `approval`) with no result yet → `suspended` with `{id, kind, toolName, arguments}`;
 * - ends on a `tool_result` followed by a `system` `turn_duration` or `stop_hook_summary` record (Claude Code ≥ 2.1
 *   writes them when a turn is over) → the turn finished on its own: `answered`, `response` null (there is no
 *   final text); a new root record after a marker reopens the turn, and a half-written marker (no string
 *   `subtype`) closes nothing;
 * - ends on any other `tool_use`, a `tool_result`, thinking or the prompt itself → `unfinished`.
 * A user record that carries a `<task-notification>` (a background task reporting back) starts a run too, as a
 * prompt does, unless the model is waiting for its tool results (then the running turn takes it in). The same
 * assistant record written twice (same `message.id` and content, a new `uuid`) adds no text, usage, tool call or
 * ending (K26); an earlier message of the run written again later changes neither the answer nor the ending.
 * Sidechain (`isSidechain: true`) records never set the ending; they add usage, tool calls and children
 * (one child per Task/Agent call, named by the call id or the `agentId` its result gives; its ending from
 * that result). A file whose first message is a sidechain with an `agentId` (a subagent file) is read as
 * one run of its own.
 *
 * ## Transcripts: copies across files (K15)
 * A resumed or forked session writes a new file that repeats earlier records of the session with the same
 * identities (the record `uuid`; for an assistant message its `message.id` with its `requestId`). When the files of
 * one input share a {@link SeenRecords} (`ReaderOptions.seen`; `replay` passes one for the files of a directory),
 * a user or assistant record another file of the input holds too is skipped — it is no run, no usage — with one
 * diagnostic per file; it counts in the file read first. A single file replayed alone cannot know its first
 * records are copies: each file then counts all its records.
 *
 * ## Transcripts: usage and cost
 * Usage comes from the assistant messages (root and sidechain), once per `message.id` with the last copy,
 * buckets copied as Anthropic reports them (`input_tokens`, `cache_read_input_tokens`,
 * `cache_creation_input_tokens`, `output_tokens`; thinking is inside output). Transcripts carry no cost: every
 * message with usage is a priced item with a missing cost (`totalUsd` null). `turns` counts the root
 * assistant API responses (distinct `message.id`s) of the run.
 *
 * Lenient: non-JSON lines, records of unknown types and known records with fields of unexpected types are
 * diagnostics; the reader never returns a `ProtocolError`, and never throws on any value (a live SDK stream's
 * objects included: a field whose getter throws skips that record with a diagnostic).
 *
 * ## Translation (protocol 2)
 * The format is a `Translator` ({@link claudeCodeTranslator}) whose records become native events for the one
 * fold (details in `claudeCode/stream.ts` and `claudeCode/transcript.ts`). stream-json: messages → `turn/start`
 * (a new root `message.id`), `assistant/message` (`messageId` = `message.id`), `tool/call`, `tool/result`,
 * `user/message`; subagent messages → the same facts in the child's session; Task/Agent calls, `task_started` /
 * `task_notification` and results of other sessions → `subagent/started` and the child's `turn/end`; a synthetic
 * API-error message → `stream/error` (`provider_error`); each root `result` → `usage/total` running totals
 * (counters per process session; the fold differences them), `permission/denied`, `turn/end` and the root idle;
 * a further result with nothing in between → a `turn/end` after that idle, which the fold keeps out of the run's
 * ending (K7). Transcripts: the inferred ending of a run → a `turn/end` with `inferred: true`, then the root idle,
 * both stated between records when the next real prompt arrives (and the ending at the end of the input);
 * sidechain records → a session that is neither the root nor a child; a Task result naming an `agentId` →
 * `subagent/started { childSessionId: agentId, previousSessionId: callId }`.
 *
 * @module
 */
import * as t from 'io-ts'
import { Pipeline } from '../core/pipeline.js'
import type { RunResult } from '../core/RunResult.js'
import type { Emit, Translator } from '../core/translator.js'
import { newStreamState, streamRecord, StreamStateCodec, type StreamState } from './claudeCode/stream.js'
import {
  newTranscriptState,
  TRANSCRIPT_TYPES,
  transcriptEnd,
  transcriptRecord,
  TranscriptStateCodec,
  type SubagentMode,
  type TranscriptState,
} from './claudeCode/transcript.js'
import { TRANSCRIPT_SKIM } from './claudeCode/skim.js'
import type { SkimDeclaration } from './skim/skim.js'
import { emitDiagnostic } from './events.js'
import { documentReaderFrom, readerFrom } from './fromTranslator.js'
import { isObject, type Obj } from './json.js'
import type { FormatModule, LineReader, ReaderFactory, ReaderOptions } from './types.js'
import type { SeenRecords } from './claudeCode/seen.js'

export { SEEN_CAP, SeenRecords } from './claudeCode/seen.js'

const STREAM_TYPES: ReadonlySet<string> = new Set(['system', 'assistant', 'user', 'result', 'stream_event', 'tool_progress', 'rate_limit_event', 'auth_status'])
/** Types that only transcripts write. */
const TRANSCRIPT_ONLY: ReadonlySet<string> = new Set([
  'file-history-snapshot',
  'queue-operation',
  'permission-mode',
  'custom-title',
  'ai-title',
  'last-prompt',
  'agent-name',
])

/** Which Claude Code shape a record is, or `undefined` when it is not recognisably one. */
const shapeOf = (v: Obj): 'stream' | 'transcript' | undefined => {
  const type = v['type']
  if (typeof type !== 'string') return undefined
  if (
    typeof v['sessionId'] === 'string' &&
    TRANSCRIPT_TYPES.has(type) &&
    ('parentUuid' in v || typeof v['isSidechain'] === 'boolean' || typeof v['uuid'] === 'string')
  ) {
    return 'transcript'
  }
  if (type === 'summary' && typeof v['leafUuid'] === 'string') return 'transcript'
  if (TRANSCRIPT_ONLY.has(type) && (typeof v['sessionId'] === 'string' || typeof v['messageId'] === 'string')) return 'transcript'
  if (STREAM_TYPES.has(type) && typeof v['session_id'] === 'string') {
    if (type === 'assistant' || type === 'user') return isObject(v['message']) ? 'stream' : undefined
    if (type === 'system') return typeof v['subtype'] === 'string' ? 'stream' : undefined
    if (type === 'result') return typeof v['subtype'] === 'string' || typeof v['is_error'] === 'boolean' ? 'stream' : undefined
    return 'stream'
  }
  if (type === 'result' && typeof v['is_error'] === 'boolean' && (typeof v['subtype'] === 'string' || typeof v['num_turns'] === 'number')) return 'stream'
  return undefined
}

/** A marker only Claude Code writes: the stream-json `system/init` or a transcript envelope. */
const strong = (v: Obj, shape: 'stream' | 'transcript'): boolean =>
  shape === 'stream'
    ? (v['type'] === 'system' && v['subtype'] === 'init' && (typeof v['claude_code_version'] === 'string' || Array.isArray(v['tools']))) ||
      (v['type'] === 'result' && typeof v['is_error'] === 'boolean' && typeof v['num_turns'] === 'number')
    : typeof v['uuid'] === 'string' && 'parentUuid' in v && typeof v['isSidechain'] === 'boolean'

interface Tally {
  objects: number
  hits: number
  strong: boolean
}

const tallyValue = (t: Tally, v: unknown): void => {
  if (!isObject(v)) return
  t.objects++
  const s = shapeOf(v)
  if (s === undefined) return
  t.hits++
  if (!t.strong && strong(v, s)) t.strong = true
}

const score = (t: Tally): number => (t.hits === 0 || t.objects === 0 ? 0 : Math.min(1, 0.5 + 0.45 * (t.hits / t.objects) + (t.strong ? 0.05 : 0)))

/** Elements of a JSON array looked at when sniffing. */
const SNIFF_ELEMENTS = 50

/**
 * How sure the first parsed lines are Claude Code (stream-json, a one-line `--output-format json` array, or a
 * transcript): 0 when no record has a Claude Code shape; `0.5 + 0.45 × (share of objects that do)`, plus
 * 0.05 for a marker only Claude Code writes (`system/init` with `claude_code_version`/`tools`, a `result`
 * with `is_error` and `num_turns`, a transcript envelope with `uuid`, `parentUuid` and `isSidechain`).
 * @since 0.1.0
 */
export const sniffClaudeCodeLines = (values: ReadonlyArray<unknown>): number => {
  const t: Tally = { objects: 0, hits: 0, strong: false }
  for (const v of values) {
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length && i < SNIFF_ELEMENTS; i++) tallyValue(t, v[i])
    } else tallyValue(t, v)
  }
  return score(t)
}

/**
 * How sure a whole JSON document is Claude Code `--output-format json` output: a `result` object, or an array
 * of stream-json messages. 0 otherwise.
 * @since 0.1.0
 */
export const sniffClaudeCodeDocument = (doc: unknown): number => {
  const t: Tally = { objects: 0, hits: 0, strong: false }
  if (Array.isArray(doc)) {
    for (let i = 0; i < doc.length && i < SNIFF_ELEMENTS; i++) tallyValue(t, doc[i])
  } else tallyValue(t, doc)
  return score(t)
}

/** The Claude Code translator's state: which shape the input turned out to be, and that shape's state. @since 0.2.0 */
export interface ClaudeCodeState {
  file: string | null
  /** How a transcript's sidechain records are read (see {@link ClaudeCodeReaderOptions.subagent}). */
  subagent: 'auto' | 'sub' | 'main'
  shape: 'stream' | 'transcript' | null
  stream: StreamState | null
  transcript: TranscriptState | null
  /** This input's number in the shared {@link SeenRecords} of its replay (K15), or `null` when none is shared. */
  seenInput: number | null
}

const ClaudeCodeStateCodec: t.Type<ClaudeCodeState, unknown> = t.type({
  file: t.union([t.string, t.null]),
  subagent: t.keyof({ auto: null, sub: null, main: null }),
  shape: t.union([t.literal('stream'), t.literal('transcript'), t.null]),
  stream: t.union([StreamStateCodec, t.null]),
  transcript: t.union([TranscriptStateCodec, t.null]),
  seenInput: t.union([t.number, t.null]),
}) as unknown as t.Type<ClaudeCodeState, unknown>

const NOT_AN_OBJECT = 'skipped a value that is not a JSON object'

/** One value: a record of the shape the input has (the first recognisable record fixes it). Never throws. */
const one = (s: ClaudeCodeState, v: unknown, emit: Emit, seen: SeenRecords | undefined): void => {
  try {
    if (!isObject(v)) {
      emitDiagnostic(emit, NOT_AN_OBJECT)
      return
    }
    if (s.shape === null) {
      const shape = shapeOf(v)
      if (shape === undefined) {
        emitDiagnostic(
          emit,
          typeof v['type'] === 'string' ? 'skipped a record that is not recognisably Claude Code' : 'skipped a record without a string "type"',
        )
        return
      }
      s.shape = shape
      if (shape === 'stream') s.stream = newStreamState()
      else s.transcript = newTranscriptState(s.file, s.subagent === 'auto' ? 'auto' : s.subagent === 'sub', s.seenInput)
    }
    if (s.stream !== null) streamRecord(s.stream, v, emit)
    else if (s.transcript !== null) transcriptRecord(s.transcript, v, emit, seen)
  } catch {
    // a live object whose getter throws, or a value no JSON parser makes: the record is skipped
    emitDiagnostic(emit, 'skipped a record that could not be read')
  }
}

/** A parsed value: an array (a one-line `--output-format json` array, a whole document) is read element by element. */
const value = (s: ClaudeCodeState, v: unknown, emit: Emit, seen?: SeenRecords): void => {
  let isArray = false
  try {
    isArray = Array.isArray(v)
  } catch {
    // a revoked proxy
  }
  if (!isArray) {
    one(s, v, emit, seen)
    return
  }
  const a = v as ReadonlyArray<unknown>
  let n = 0
  try {
    n = a.length
  } catch {
    emitDiagnostic(emit, 'skipped a record that could not be read')
  }
  for (let i = 0; i < n; i++) {
    let x: unknown
    try {
      x = a[i]
    } catch {
      emitDiagnostic(emit, 'skipped a record that could not be read')
      continue
    }
    one(s, x, emit, seen)
  }
}

const translatorFor = (subagent: 'auto' | 'sub' | 'main', seen?: SeenRecords): Translator<ClaudeCodeState> & SkimDeclaration<ClaudeCodeState> => ({
  format: 'claude-code',
  stateCodec: ClaudeCodeStateCodec,
  init: (options) => ({
    file: options.file ?? null,
    subagent,
    shape: null,
    stream: null,
    transcript: null,
    seenInput: seen !== undefined ? seen.begin() : null,
  }),
  record(s, v, _line, emit) {
    value(s, v, emit, seen)
    return undefined
  },
  text(_s, _text, _line, unterminated, emit) {
    emitDiagnostic(emit, unterminated ? 'skipped the last line: it was cut off (no newline) and is not valid JSON' : 'skipped a non-JSON line')
    return undefined
  },
  document(s, doc, emit) {
    value(s, doc, emit, seen)
  },
  end(s, emit) {
    if (s.transcript !== null) transcriptEnd(s.transcript, emit)
  },
  // transcripts are skimmed (claudeCode/skim.ts); stream-json and the first record are parsed whole
  skim: (s) => (s.transcript !== null ? TRANSCRIPT_SKIM : undefined),
})

/**
 * The Claude Code translator (any of the three shapes): records (parsed lines, or the objects of a live Agent SDK
 * stream; an array is read element by element) → native events. Sidechains of transcripts are read in `auto`
 * mode. Never returns a `ProtocolError` and never throws.
 * @since 0.2.0
 */
export const claudeCodeTranslator: Translator<ClaudeCodeState> = translatorFor('auto')
const subagentFileTranslator = translatorFor('sub')
const mainSessionTranslator = translatorFor('main')

/**
 * The Claude Code translator for one file of an input whose files share `seen` (K15): a transcript record that
 * an earlier file of the input holds too (the same record `uuid`, or `message.id` with `requestId`, as a resumed or
 * forked session copies them) is skipped: it is no run of this file and adds no usage. The set is not part of the
 * translator's state (a checkpoint does not carry it).
 * @since 0.2.0
 */
export const claudeCodeTranslatorSharing = (seen: SeenRecords): Translator<ClaudeCodeState> => translatorFor('auto', seen)

/** Reads Claude Code lines through the pipeline; with `options.seen`, the files of one input share it (K15). */
const claudeCodeReader: ReaderFactory = (emit, options) =>
  readerFrom(options.seen !== undefined ? claudeCodeTranslatorSharing(options.seen) : claudeCodeTranslator)(emit, options)

/** Options of {@link createClaudeCodeReader} beyond the common reader options. @since 0.1.0 */
export interface ClaudeCodeReaderOptions {
  /**
   * How to read sidechain records of a transcript: `true` reads a subagent file (all sidechain) as one run of
   * its own; `false` always treats sidechains as subagents of the root session; `auto` (default) reads a
   * file as a subagent file when its first message is a sidechain with an `agentId` (or the file lies in a
   * `subagents/` folder).
   */
  readonly subagent?: SubagentMode
}

/** A Claude Code line reader that can also take already-parsed values (document elements). @since 0.1.0 */
export interface ClaudeCodeLineReader extends LineReader {
  /** Reads one parsed value as if it were on `lineNo` (an array is read element by element). */
  value(v: unknown, lineNo: number | undefined): void
}

/**
 * Makes a Claude Code reader (any of the three shapes) over the pipeline of {@link claudeCodeTranslator}.
 * `emit` gets each run as it is handed out (see the module doc for when); notes go to `options.note`. Never
 * throws and never returns a `ProtocolError`.
 * @since 0.1.0
 */
export const createClaudeCodeReader = (
  emit: (result: RunResult) => void,
  options: ReaderOptions,
  extra: ClaudeCodeReaderOptions = {},
): ClaudeCodeLineReader => {
  // with options.seen the file's records are claimed in the shared set, as in `reader` (K15)
  const mode = extra.subagent === true ? 'sub' : extra.subagent === false ? 'main' : 'auto'
  const translator =
    options.seen !== undefined
      ? translatorFor(mode, options.seen)
      : mode === 'sub'
        ? subagentFileTranslator
        : mode === 'main'
          ? mainSessionTranslator
          : claudeCodeTranslator
  const p = new Pipeline(translator, {
    file: options.file ?? null,
    ...(options.live === true ? { live: true } : {}),
    ...(options.estimate !== undefined ? { estimate: options.estimate } : {}),
  })
  const flush = (): void => {
    for (const r of p.takeResults()) emit(r)
    for (const n of p.takeNotes()) options.note?.(n.line, n.message)
  }
  return {
    value(v, lineNo) {
      p.record(v, lineNo)
      flush()
    },
    line(text, lineNo, unterminated) {
      p.textLine(text, lineNo, unterminated)
      flush()
      return undefined
    },
    snapshot: () => p.snapshot(),
    quiet() {
      p.quiet()
      flush()
    },
    end() {
      p.end()
      flush()
    },
    failed() {
      p.failed()
      flush()
    },
  }
}

/**
 * The `claude-code` format module: stream-json, `--output-format json` (one-line or pretty-printed) and
 * on-disk transcripts (see the module doc for the ending, usage and cost rules).
 * @since 0.1.0
 */
export const claudeCodeFormat: FormatModule = {
  name: 'claude-code',
  description: 'Claude Code: stream-json / Agent SDK messages, --output-format json, and ~/.claude/projects transcripts',
  sniffLines: sniffClaudeCodeLines,
  sniffDocument: sniffClaudeCodeDocument,
  reader: claudeCodeReader,
  readDocument: documentReaderFrom(claudeCodeTranslator),
  translator: claudeCodeTranslator,
}
