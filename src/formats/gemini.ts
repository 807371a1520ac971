/**
 * `--format gemini`: Google's Gemini CLI, both as it streams (`gemini --output-format stream-json`) and as it
 * records sessions on disk (`~/.gemini/tmp/<project>/chats/session-*.json` and the newer `.jsonl`). Field names
 * follow gemini-cli's `packages/core/src/output/types.ts`, `packages/cli/src/nonInteractiveCli.ts` and
 * `packages/core/src/services/chatRecording*.ts` (shared/reference/formats.md §C5).
 *
 * ## stream-json (line reader)
 *
 * Records: `init{session_id,model}`, `message{role,content,delta?}`, `tool_use`, `tool_result{status,error?}`,
 * `error{severity,message}`, `result{status,error?{type,message},stats?}`. Lines that are not JSON (banners such
 * as "YOLO mode is enabled", warnings, stack traces printed on stdout) are diagnostics.
 *
 * Runs: each `result` ends one run. A run is emitted when the next run starts (a prompt, model output, a tool
 * record or a new `init`) or at the end of the input, so that what the process still prints after its `result`
 * stays with that run: a further `result` or `error` record with no new prompt or output in between is a
 * diagnostic of the run and never overrides its ending (fault K7). An `init` begins a new process: an open run
 * without a `result` ends there. Records with no run content (`init`, noise) do not make a run on their own; an
 * input with no run gives one `unfinished` run.
 *
 * Ending, at the `result` (`finishReason` is `result.status` as written):
 * - `error.type` `FatalCancellationError` → `stopped` by `caller` (exit 130);
 * - `error.type` `FatalTurnLimitedError`, or `status: "error"` with no telling type after the
 *   "Maximum session turns exceeded" error record → `limit` `max_turns` (exit 53);
 * - `status: "error"` (or any `error` object, which beats a `success` label, SPEC §2 rule 4) with no type or type
 *   `INVALID_STREAM`, whose message (or the run's last `severity: "error"` record, which is where gemini-cli puts
 *   the invalid-stream message) names the `MAX_TOKENS` finish reason → `cut_off` `max_tokens`; naming `SAFETY`,
 *   `RECITATION`, `PROHIBITED_CONTENT`, `BLOCKLIST` or `SPII` → `cut_off` `content_filter` (the partial text is
 *   the response);
 * - any other error → `failed` `error` with `error: { message, name: type }`. When the type is `unknown` (the
 *   generic `[API Error: …]`) and a stack trace was printed on stdout in the run, its error class (for example
 *   `TerminalQuotaError`) becomes `name`, and a printed `code: NNN` becomes `code`;
 * - `status: "success"` → `answered`, except right after the warning "Loop detected, stopping execution"
 *   (`limit` `tool_loop`) or "Agent execution blocked: …" with no model output after it (`blocked` by a hook);
 * - any other status string → `failed` `unrecognized` with `raw` (SPEC §2 rule 3).
 * No `result`: `failed` `error` with `phase: "stream"` when the run's last record is an `error` with
 * `severity: "error"` (SPEC §2 rule 2, fault K1), else `unfinished` with the last record's type.
 *
 * Response: the text of the run's last assistant message: consecutive `delta: true` chunks are joined; a
 * `tool_use`, `tool_result` or a prompt closes the message, and the next assistant chunk starts a new one.
 *
 * Usage: from `result.stats.models` (one `byModel` entry per model; the top-level figures under the `init`
 * model when `models` is absent). Per model, `input_tokens` is the whole prompt including `cached`, `input` the
 * uncached part (`input_tokens − cached` when absent), and `total_tokens − input_tokens − output_tokens` is
 * thinking (it also holds tool-use prompt tokens, which stream stats do not separate): `inputTokens = input`,
 * `cacheReadTokens = cached`, `outputTokens = output_tokens + thinking`, `reasoningTokens = thinking`. Stats are
 * the gemini process's running totals; gemini runs one prompt per process, so a `result` after an `init` is
 * taken as stated, and a later `result` of the same process is differenced against the previous one. There is
 * no cost at all: every model entry is a priced item without a cost (`cost.totalUsd` null, `missing` = models);
 * a run without stats has no priced item and, gemini being a format without cost, an unknown cost too
 * (`totalUsd` null, `missing` 0; `finishRun`), never a complete-looking $0 (fault K12).
 * `durationMs` is `stats.duration_ms` (an error result's `0` means not measured: the span of the record times is
 * used instead, as when the stats are absent); `toolCalls` counts `tool_use` records; `turns` counts model responses
 * (a run of assistant messages and tool uses up to the next tool result); `sessionId` is `init.session_id`.
 *
 * ## Session records (document reader, and the line reader for `.jsonl`)
 *
 * The legacy `.json` is one `ConversationRecord` (`sessionId`, `projectHash`, `startTime`, `lastUpdated`,
 * `messages[]`); the `.jsonl` log is a metadata line, then message lines, `{"$set":{…}}` metadata updates and
 * `{"$rewindTo": id}` records. A message id written again replaces the earlier copy in place (gemini-cli
 * appends the whole message each time it changes, e.g. when its tokens or tool calls arrive), so a message is
 * counted once, from its last copy. `$rewindTo` drops the named message **and** everything after it (gemini-cli
 * `rewindTo` slices before that message; its loader drops all messages when the id is unknown, and so does this
 * reader, with a diagnostic). `$set.sessionId` renames the session; `$set.messages` is gemini-cli rewriting the
 * model's context (compression, masking, a rolled-back turn) and does not change the runs.
 *
 * Runs: each user prompt starts one. User messages that only carry `functionResponse` parts (tool results, in
 * newer builds) and injected context (`<session_context>`, `<hook_context>`) are not prompts; `info` and
 * `warning` messages never decide anything. There is no terminal record, so every ending is `inferred: true`
 * and `finishReason` is null. From the run's last messages:
 * - an `error` message last → `failed` `error` with its text as the message;
 * - the last gemini message (possibly followed by tool-response messages) has tool calls: any `cancelled` →
 *   `stopped` by `caller`; else any `awaiting_approval` → `suspended` with those calls pending; else any
 *   `error` → `failed` `error`, `phase: "tool"`, with the tool's error text; else (all succeeded or still
 *   running) → `unfinished`: the model never answered the tool results;
 * - a gemini message with text and no tool calls last → `answered`, its text the response;
 * - nothing after the prompt, or an empty gemini message → `unfinished`.
 *
 * Usage: per gemini message from `tokens{input,output,cached,thoughts,tool,total}`, summed over the run's
 * messages. These are per API response, not running totals: in the corpus `output` and `thoughts` go down as
 * well as up from one message to the next (session 981c87cb: output 21, 170, 62; session 9c9a14e1: thoughts 319
 * then 0). `tokens.input` is the whole prompt (`promptTokenCount`) and already includes `cached`
 * (`cachedContentTokenCount`): in all 26 gemini messages of the six corpus sessions `total = input + output +
 * thoughts + tool`, cached or not (e.g. 5689 + 43 + 54 + 0 = 5786 with `cached: 5519`), and `cached ≤ input`
 * always. So `inputTokens = input − cached + tool`, `cacheReadTokens = cached`, `outputTokens = output +
 * thoughts`, `reasoningTokens = thoughts`; each message with tokens is a priced item without a cost (a run
 * without any has an unknown cost, `missing` 0). `turns` counts gemini
 * messages, `toolCalls` their tool calls; times come from message timestamps.
 *
 * Runs of a session are emitted at the end of the input (a later `$rewindTo` can still remove them), except
 * past 10,000 held messages or 16 Mi characters of earlier answers, where the oldest runs are emitted early
 * (`MAX_SESSION_ENTRIES`, `MAX_SESSION_TEXT`: memory stays flat; a `$rewindTo` into such a run drops only the
 * runs still held, with a diagnostic).
 *
 * Memory: the stream translator keeps a few flags per run and the last assistant message's text (flat in the
 * records). The session translator keeps one small entry per held message (kind, time, line, token counts, tool-call
 * state; no bodies, and answer texts only for the last run plus each earlier run's final answer), because a
 * rewritten id or a `$rewindTo` can reach back to any earlier message; gemini-cli's own loader holds the whole
 * conversation.
 *
 * ## Translation (protocol 2)
 *
 * stream-json: `init` → a record (its line and time open the next run) and the session id, stated as
 * `session/started` with the next run's first content; a prompt → `user/message`; an assistant chunk →
 * `assistant/message` with the message's text so far (delta chunks joined), after a `turn/start` when it opens a
 * model turn; `tool_use` → `tool/call` (also after a `turn/start` when it opens one); `tool_result` →
 * `tool/result`; an `error` with severity `error` → `stream/error` (stated again when a stack trace printed
 * after it names the error's class or HTTP code), any other severity → an `assistant/chunk` (content that never
 * decides); `result` → `usage/set` (its `stats` by model, differenced within a process; it replaces what the run
 * added) and `turn/end` with the reason above, `finishReason` (the status as written) and `durationMs`; non-JSON
 * lines → diagnostics. A `result` that is its run's first content states an `assistant/chunk` first (right after
 * a run boundary, a bare `turn/end` would be read as a late record of the run before). The run boundary (the next
 * run's first content, a new `init` or prompt; live, the `result` itself) → the root idle. A further `result` or
 * `error` of an ended run is a diagnostic of that run (live: a note), never a second `turn/end`. Every event
 * counts at its line, so a run's `source` lines include its diagnostics' (the banners before the first record).
 *
 * Sessions: at the end of the input, per run in order, its diagnostics and messages in line order (each at its
 * own line): a prompt → `user/message`; a tool-response message → `tool/result`; a gemini message →
 * `turn/start`, `assistant/message` (its id as `messageId`, its tokens as `usage`) and one `tool/call` per tool
 * call; an `error` message → `stream/error`; injected context and `info` / `warning` messages → content that
 * never decides (`user/message` / `assistant/chunk`); then the inferred ending as a `turn/end` (`inferred`,
 * `finishReason` null, stated between records) and the root idle. The session id (after every `$set`) is stated
 * once, before the first run. A run spans from its lowest to its highest line: when a message rewritten later
 * keeps its earlier place, a `source/record` at that line says so.
 *
 * @module
 */
import * as t from 'io-ts'
import type { Translator } from '../core/translator.js'
import { emitDiagnostic } from './events.js'
import { documentReaderFrom, readerFrom } from './fromTranslator.js'
import {
  newSessionState,
  sessionDiagnostic,
  sessionDocument,
  sessionEnd,
  sessionNoise,
  sessionNotObject,
  sessionRecord,
  sessionRelease,
  SessionStateCodec,
  type SessionState,
} from './gemini/session.js'
import { GEMINI } from './gemini/shared.js'
import { newStreamState, streamEnd, streamFailed, streamNoise, streamNotObject, streamRecord, StreamStateCodec, type StreamState } from './gemini/stream.js'
import { isObject } from './json.js'
import { shareScore } from './sniff.js'
import type { FormatModule, ReaderFactory, ReaderOptions } from './types.js'
import type { RunResult } from '../core/RunResult.js'

const SESSION_TYPES = new Set(['user', 'gemini', 'info', 'error', 'warning'])

/** A stream-json record, by its own distinguishing fields (Claude Code's `result` has a `subtype`; Gemini's does not). */
const isStreamRecord = (v: Record<string, unknown>): boolean => {
  switch (v['type']) {
    case 'init':
      return typeof v['session_id'] === 'string' && !('subtype' in v)
    case 'message':
      return (v['role'] === 'user' || v['role'] === 'assistant') && typeof v['content'] === 'string' && !('id' in v)
    case 'tool_use':
      return typeof v['tool_name'] === 'string'
    case 'tool_result':
      return typeof v['tool_id'] === 'string'
    case 'error':
      return typeof v['severity'] === 'string' && typeof v['message'] === 'string'
    case 'result':
      return typeof v['status'] === 'string' && !('subtype' in v) && !('is_error' in v)
    default:
      return false
  }
}

/** A session-log record: metadata, a message, `$set`, `$rewindTo`, or a whole `ConversationRecord`. */
const isSessionRecord = (v: Record<string, unknown>): boolean =>
  typeof v['$rewindTo'] === 'string' ||
  isObject(v['$set']) ||
  (typeof v['id'] === 'string' && typeof v['type'] === 'string' && SESSION_TYPES.has(v['type']) && typeof v['timestamp'] === 'string' && !('severity' in v)) ||
  (typeof v['sessionId'] === 'string' && (typeof v['projectHash'] === 'string' || Array.isArray(v['messages'])))

/** A record of either Gemini CLI input, for detection. */
const isGeminiRecord = (v: Record<string, unknown>): boolean => isStreamRecord(v) || isSessionRecord(v)

/**
 * The Gemini translator's state: which input it turned out to be (the first JSON object decides), and that
 * input's state. Until it is known, lines are read as stream-json (banners before the first record).
 * @since 0.2.0
 */
export interface GeminiState {
  mode: 'undecided' | 'stream' | 'session'
  stream: StreamState | null
  session: SessionState | null
}

const GeminiStateCodec: t.Type<GeminiState, unknown> = t.type({
  mode: t.keyof({ undecided: null, stream: null, session: null }),
  stream: t.union([StreamStateCodec, t.null]),
  session: t.union([SessionStateCodec, t.null]),
}) as unknown as t.Type<GeminiState, unknown>

const UNREADABLE = 'skipped a record that could not be read (reading one of its fields failed)'

/** The input is a session record: the stream state is dropped (what it stated stays with the first run). */
const toSession = (s: GeminiState): SessionState => {
  s.mode = 'session'
  s.stream = null
  s.session ??= newSessionState()
  return s.session
}

/**
 * The Gemini CLI translator: `stream-json` output, `.jsonl` session logs (the first JSON object decides), and
 * whole `ConversationRecord` documents. Never returns a `ProtocolError`, never throws.
 * @since 0.2.0
 */
export const geminiTranslator: Translator<GeminiState> = {
  format: GEMINI,
  stateCodec: GeminiStateCodec,
  init: (options) => ({ mode: 'undecided', stream: newStreamState(options.live === true), session: null }),
  record(s, v, line, emit) {
    try {
      if (!isObject(v)) {
        if (s.session !== null) sessionNotObject(s.session, line)
        else streamNotObject(emit)
        return undefined
      }
      if (s.mode === 'undecided') {
        if (isSessionRecord(v)) toSession(s)
        else s.mode = 'stream'
      }
      if (s.session !== null) {
        sessionRecord(s.session, v, line)
        sessionRelease(s.session, emit)
      } else if (s.stream !== null) streamRecord(s.stream, v, emit)
    } catch {
      // a live object whose getter throws (or a proxy): what was read before stands
      if (s.session !== null) sessionDiagnostic(s.session, line, UNREADABLE)
      else emitDiagnostic(emit, UNREADABLE)
    }
    return undefined
  },
  text(s, text, line, unterminated, emit) {
    if (s.session !== null) sessionNoise(s.session, line, unterminated)
    else if (s.stream !== null) streamNoise(s.stream, text, unterminated, emit)
    return undefined
  },
  document(s, doc, emit) {
    const session = toSession(s)
    try {
      if (isObject(doc) && (typeof doc['sessionId'] === 'string' || Array.isArray(doc['messages']))) {
        sessionDocument(session, doc, undefined)
        sessionRelease(session, emit)
      } else sessionDiagnostic(session, undefined, 'the document is not a Gemini CLI session record (an object with sessionId and messages)')
    } catch {
      sessionDiagnostic(session, undefined, UNREADABLE)
    }
  },
  end(s, emit) {
    if (s.session !== null) sessionEnd(s.session, emit)
    else if (s.stream !== null) streamEnd(s.stream, emit)
  },
  failed(s, emit) {
    if (s.stream !== null) streamFailed(s.stream, emit)
  },
}

/**
 * Reads Gemini CLI line-based input: `stream-json` output, or a `.jsonl` session log (a whole
 * `ConversationRecord` on one line is read too). The first JSON object decides which. Never throws; bad lines
 * are diagnostics. Stream runs are emitted as they end (see the module doc); session runs at the end.
 * @since 0.1.0
 */
export const geminiReader: ReaderFactory = readerFrom(geminiTranslator)

/**
 * Reads a legacy Gemini CLI session file (a parsed `ConversationRecord`) into its runs, one per user prompt.
 * Any other JSON value gives one `unfinished` run with a diagnostic. Never throws.
 * @since 0.1.0
 */
export const readGeminiDocument: (doc: unknown, options: ReaderOptions) => ReadonlyArray<RunResult> = documentReaderFrom(geminiTranslator)

/**
 * The Gemini CLI format module (`--format gemini`): `stream-json` output and on-disk session records
 * (`.json` documents and `.jsonl` logs). Ending and usage rules are in this module's doc.
 * @since 0.1.0
 */
export const geminiFormat: FormatModule = {
  name: 'gemini',
  description: 'Gemini CLI: --output-format stream-json, and ~/.gemini/tmp/*/chats session files (.json, .jsonl)',
  sniffLines: (values) => shareScore(values, isGeminiRecord),
  sniffDocument(doc) {
    if (!isObject(doc) || typeof doc['sessionId'] !== 'string' || !Array.isArray(doc['messages'])) return 0
    return typeof doc['projectHash'] === 'string' ? 1 : 0.8
  },
  reader: geminiReader,
  readDocument: readGeminiDocument,
  translator: geminiTranslator,
}
