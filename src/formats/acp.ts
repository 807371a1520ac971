/**
 * `--format acp`: Agent Client Protocol (Zed's ACP, protocol version 1) traffic as JSONL, one JSON-RPC 2.0
 * message per line, both directions (client→agent and agent→client), as a proxy or a debug log captures it.
 *
 * **Line shapes.** A bare JSON-RPC message (`{jsonrpc, id?, method?, params?, result?, error?}`), or a capture
 * wrapper holding it under `message` or `msg`, with an optional direction (`direction` or `dir`, any two
 * values, e.g. `incoming`/`outgoing`, `>>>`/`<<<`, `client_to_agent`/`agent_to_client`) and time (`timestamp`, `ts` or `time`:
 * ISO-8601 text, or epoch milliseconds). Both wrapper spellings are written by real ACP debug loggers
 * (`{ts, dir, msg}`; `{timestamp, direction, message}`). The direction, when present, only serves to pair a
 * response with its request (a response travels the other way); without it, responses are paired by `id`,
 * the shape of the result, and nesting (the most recent open request with that id). A session update written
 * without its JSON-RPC envelope, as the bare `SessionNotification` `{sessionId, update}` (agent-side captures),
 * is read as the `session/update` it is.
 *
 * **Runs.** Each `session/prompt` request (keyed by its JSON-RPC `id` and `params.sessionId`) starts a run;
 * its response ends it. `session/update` notifications of that session, `session/request_permission`
 * requests and `session/cancel` feed the open run of their `sessionId`. Updates for a session with no open
 * prompt (for example the history replayed by `session/load`) make no run. A run is emitted when its response
 * arrives (a `usage_update` of the same session on the very next line still counts for it), or at the end of
 * the input.
 *
 * **One-way (agent-side) logs** hold only the agent's messages: the responses to requests that are not in the
 * log, and the updates. A `PromptResponse` (`result.stopReason`) whose request is not in the log is the end of a
 * prompt turn all the same, and the updates before it are that turn's content: the updates of a session for which
 * the log shows no `session/prompt` request (and no `session/load` / `session/resume` awaiting its response) open
 * an implicit turn — turn content only (`agent_message_chunk`, `agent_thought_chunk`, `user_message_chunk`,
 * `tool_call`, `tool_call_update`, `plan`); session state (`available_commands_update`, modes, titles,
 * `usage_update`) opens none. An unpaired `PromptResponse` ends the implicit turn that got the latest update (in a
 * log with no prompt request at all, a turn of its own when none is open; in a log that carries the prompts it
 * answers none of them: a diagnostic). An unpaired response that states a session (`modes` / `models`: a
 * `session/new` / `load` answer) shows that the updates before it were the history `session/load` replays: those
 * implicit turns make no run. Requests and notifications the reader does not know are ignored; non-JSON lines and lines that
 * are not JSON-RPC are diagnostics: of the next run emitted, or, after the last run, of that run (replay) or
 * a note (live); a log with no prompt is one `unfinished` run holding them. Never a `ProtocolError`.
 *
 * **Ending rules** (SPEC §2, formats.md §C4; `finishReason` is `result.stopReason` as written):
 * - `end_turn` → `answered`; `max_tokens` → `cut_off` `max_tokens`; `max_turn_requests` → `limit`
 *   `max_turn_requests`; `refusal` → `cut_off` `refusal`; `cancelled` → `stopped` by `caller`; any other
 *   string → `failed` `unrecognized`, the string kept in `raw` and `finishReason`.
 * - A `session/cancel` from the client, followed by `end_turn` (or any stop reason the table reads as `answered` or
 *   `cut_off`) for that prompt → `stopped` by `caller`, the partial text no answer, `finishReason` the stop reason
 *   as written (K23: the cancel was answered by a normal stop). A limit (`max_turn_requests`) after a cancel stays a
 *   limit. The cancel is stated to the fold as `turn/cancel`, whose rule this is.
 * - A JSON-RPC error response → `failed` `error` with `error: {message, code}`; but after the client sent
 *   `session/cancel` for the session, an error response is the caller's cancellation (`stopped` by `caller`,
 *   bug kind K8: agents are told to answer `cancelled`, some let the abort surface as an error).
 * - No response when the input ends (or when the next prompt of the same session starts): `suspended` when a
 *   `session/request_permission` of the run is still unanswered (`pending: [{id: toolCall.toolCallId, kind:
 *   'approval', toolName: toolCall.title (else the title of the earlier tool_call, else its kind), arguments:
 *   toolCall.rawInput}]`, `inferred: true`); `stopped` by `caller` when a `session/cancel` was sent and never
 *   answered (`inferred: true`, the fold's reading of an unanswered `turn/cancel`); `unfinished` otherwise
 *   (`lastEventType` the last method or `sessionUpdate`).
 * - A permission answered `{outcome: 'selected', optionId}` with an option of kind `reject_once` /
 *   `reject_always` is a permission denial of the run (once per `toolCallId`); an answered permission is no
 *   longer pending.
 *
 * **Response and counts.** `response` is the concatenated text of the run's `agent_message_chunk` updates
 * (text content blocks only; `null` when there were none). `toolCalls` counts distinct `toolCallId`s of `tool_call` updates. `turns` is 1
 * per prompt.
 *
 * **Usage** comes from the (unstable) `PromptResponse.usage`
 * `{inputTokens, outputTokens, totalTokens, thoughtTokens?, cachedReadTokens?, cachedWriteTokens?}` and is read
 * as this prompt turn's usage (the field sits on one prompt's response; the schema's descriptions say
 * "across all turns", but the End-Turn Token Usage RFD leaves per-turn vs cumulative open and the adapters in
 * use report the turn). The schema defines `totalTokens` as the sum of all token types, so the categories are
 * read as disjoint: `inputTokens` excludes cache reads and `thoughtTokens` are apart from `outputTokens`
 * (added to output, and repeated as `reasoningTokens`). When `totalTokens` instead matches another split
 * (thought inside output: `input + output + cacheRead + cacheWrite`; cache reads inside input:
 * `input + output (+ cacheWrite) (+ thought)`), that split is used; a total matching none is read the schema
 * way with a diagnostic.
 *
 * **Cost** comes from `usage_update.cost {amount, currency}`, the session's cumulative cost: a run's cost is the
 * latest USD amount seen during the run minus the amount before it started (0 for a session created by
 * `session/new` in this log). It is missing (never zero) when the run saw no USD cost, when the amount is in
 * another currency, or when the session's earlier cost is unknown (a session loaded, resumed or forked, or
 * begun before the log, with no earlier `usage_update`). Each prompt turn is one priced item; the model is the
 * session's `models.currentModelId` (from `session/new`/`load`/`resume`/`fork`) or `session/set_model`.
 *
 * **Translation (protocol 2).** A prompt turn is kept in the translator state until it is over (its response and
 * a trailing `usage_update`, the next prompt of its session, or the end), then emitted whole, so interleaved
 * sessions come out as separate runs in the order above: `session/started` (the turn's session is the run's),
 * `turn/start` (the prompt), `turn/cancel` when the client sent `session/cancel` during the turn, a `tool/call` per
 * distinct `toolCallId` (`tool/result` when its last status is
 * `completed` / `failed`), the chunks' text as one `assistant/message`, `permission/denied` per rejected
 * permission, one `usage/add` (usage, model, cost), the `turn/end` (the stop reason through the ACP table with
 * `finishReason` as written; `aborted` by the user for a JSON-RPC error after `session/cancel`, else `error`; the
 * inferred `suspended` / `unfinished` when no response came — and no `turn/end` at all after an unanswered cancel,
 * only the turn's last record, so the fold infers the stop), and the root idle. Diagnostics of
 * lines outside any turn join the next turn emitted. What is kept per turn, and why no event is buffered:
 * `acp/state.ts`; the events of a turn: `acp/turn.ts`. Live objects are read as their JSON text.
 *
 * @module
 */
import type { Translator } from '../core/translator.js'
import { sniffAcp } from './acp/envelope.js'
import { AcpStateCodec, newAcpState, type AcpState } from './acp/state.js'
import { acpEnd, acpFailed, acpRecord, acpText } from './acp/translate.js'
import { readerFrom } from './fromTranslator.js'
import type { FormatModule, ReaderFactory } from './types.js'

export type { AcpState } from './acp/state.js'
export { endingOfStopReason } from './acp/turn.js'
export { acpUsageBuckets } from './acp/usage.js'

/**
 * The ACP translator (see the module doc). Never returns a `ProtocolError` and never throws.
 * @since 0.2.0
 */
export const acpTranslator: Translator<AcpState> = {
  format: 'acp',
  stateCodec: AcpStateCodec,
  init: () => newAcpState(),
  record(s, value, line, emit) {
    acpRecord(s, value, line, emit)
    return undefined
  },
  text(s, _text, line, unterminated, emit) {
    acpText(s, line, unterminated, emit)
    return undefined
  },
  end(s, emit) {
    acpEnd(s, emit)
  },
  failed(s, emit) {
    acpFailed(s, emit)
  },
}

/**
 * Reads ACP JSON-RPC traffic (JSONL) and emits one `RunResult` per `session/prompt` (see the module doc), through
 * the pipeline. Never returns a `ProtocolError`.
 * @since 0.1.0
 */
export const acpReader: ReaderFactory = readerFrom(acpTranslator)

/**
 * The `acp` format module: Agent Client Protocol JSON-RPC traffic, one message per line.
 * @since 0.1.0
 */
export const acpFormat: FormatModule = {
  name: 'acp',
  description: 'Agent Client Protocol (ACP) JSON-RPC traffic, one message per line, bare or wrapped as {direction, message}',
  sniffLines: sniffAcp,
  reader: acpReader,
  translator: acpTranslator,
}
