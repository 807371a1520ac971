/**
 * `--format openai-agents`: OpenAI Agents JS (`@openai/agents-core`) runs, in two shapes that may be mixed in
 * one input.
 *
 * 1. **A serialized `RunState`** (`state.toString()` / `JSON.stringify(state)`). One JSON document is one run.
 *    It is read whole as a document (`readDocument`), or as one JSON object per line (`reader`), each line a
 *    run; a live `RunState` object is serialized with its own `toJSON()`.
 * 2. **A streamed run** (`run(agent, input, { stream: true })`): the `RunStreamEvent`s it yields, as objects or
 *    as JSON lines (`raw_model_stream_event`, `run_item_stream_event`, `agent_updated_stream_event`; see
 *    `openaiAgents/stream.ts`), usually followed by the run's final record: its `RunState` (`stream.state`),
 *    the result itself (`{ finalOutput, interruptions, cancelled?, error?, state? }`, or the JSON of a
 *    `StreamedRunResult`: `{ state, currentTurn, maxTurns }`), or the error the run threw (an `AgentsError`,
 *    whose JSON is `{ state, name }`).
 *
 * **Schema versions.** `$schemaVersion` `1.0` … `1.20` (the versions `@openai/agents-core` writes and reads as
 * of its 1.20 schema); the fields read below are present, with the same meaning, in all of them (1.11 allows
 * `maxTurns: null`). Tested on writer output of 1.2 and 1.18. A version that is not `1.<n>`, or newer than
 * 1.20, is read the same way with a diagnostic.
 *
 * **Ending rules of a state** (first match wins; formats.md §C6 and the SDK's `RunState` / `RunResult`):
 * 1. `limit` `max_turns` (`limit: maxTurns`) when `currentTurn > maxTurns` (the runner increments the turn and
 *    then throws `MaxTurnsExceededError`, or lets an `errorHandlers.maxTurns` handler write a final output: the
 *    ending is still the limit), or when `currentAgentSpan.error.message` records the max-turns error.
 * 2. `suspended` when `currentStep.type` is `next_step_interruption`: one pending item per distinct call in
 *    `currentStep.data.interruptions` of type `tool_approval_item`, `{ id: rawItem.callId (else rawItem.id),
 *    kind: 'approval', toolName: toolName (else rawItem.name), arguments: rawItem.arguments parsed when it is
 *    JSON text }` (bug kind K5). Copies of the same approval in `generatedItems` and in nested serialized
 *    states (`pendingAgentToolRuns`) never add items. Only when `data.interruptions` is missing are the
 *    unanswered `tool_approval_item`s of `generatedItems` used instead.
 * 3. `blocked` when an input or output guardrail result has `output.tripwireTriggered: true` (`phase` `input`
 *    / `output`, `guardrail` its name), or a tool guardrail result has `behavior.type: 'throwException'`.
 * 4. `answered` when `currentStep.type` is `next_step_final_output` (or the object has a `finalOutput` field):
 *    `response` is the output text; a non-string output becomes `structuredOutput`.
 * 5. `unfinished` otherwise: a state that has not run (turn 0, no model responses, no step), or one serialized
 *    between turns (`next_step_run_again`, `next_step_handoff`), with `lastEventType` the step type. An unknown
 *    step type is also `unfinished`, with a diagnostic.
 *
 * `finishReason` is `currentStep.type` as written (or `null`). `turns` is `currentTurn`. Nested agent-tool
 * runs (`pendingAgentToolRuns`, each a serialized `RunState` string) are listed in `children` with their own
 * ending, keyed by their `pendingAgentToolRuns` key; they never set the root ending (SPEC §2 rule 1).
 * `toolCalls` counts distinct `callId`s of `tool_call_item`s, root and nested. `permissionDenials` lists
 * calls of this run whose id is in a `rejected` list of `context.approvals` / `context.functionApprovals`.
 *
 * **Usage and cost.** `context.usage` is the run's cumulative usage (root context only; nested states are not
 * added, as the SDK runs agent tools in the parent's context): `inputTokens` minus the summed
 * `inputTokensDetails[].cached_tokens` (→ `cacheReadTokens`), `outputTokens` (reasoning included; the summed
 * `outputTokensDetails[].reasoning_tokens` → `reasoningTokens`). When `context.usage` is unusable the
 * `modelResponses[].usage` are summed instead. The SDK reports no cost: each model response is one priced
 * item with its cost missing, so `cost.totalUsd` is `null` whenever the run made a model call.
 *
 * **A streamed run** is one run, from its first stream event to its final record. Each `response_started`
 * is a turn, each `response_done` one priced item with its usage (same buckets as above, under the model its
 * `providerData.model` names), each `tool_called` a tool call (each call id once), the last
 * `message_output_created` the response. Its ending:
 * - a final `RunState` (or a result / error carrying one) decides it by the rules above, and states the run
 *   whole as the SDK counts it: its usage replaces the stream's (the same model calls; a resumed state's also
 *   holds the earlier ones), under the one model the stream named (else `unknown`), and its `currentTurn` is
 *   the run's turns; its tool calls are counted with the stream's, each id once;
 * - a result: `cancelled: true` → `stopped` by `caller` (`finishReason` `cancelled`), before everything else;
 *   an `error` → as an error record; non-empty `interruptions` → `suspended` (rule 2's items,
 *   `finishReason` `interruptions`); a `finalOutput` → `answered` (rule 4; `finishReason` `finalOutput`);
 * - an error (`name` an `AgentsError` class, or an `Error` object): its state's ending when that is `limit`,
 *   `blocked` or `suspended`; else by class: `MaxTurnsExceededError` → `limit` `max_turns`,
 *   `ModelRefusalError` → `cut_off` `refusal`, `Input`/`OutputGuardrailTripwireTriggered` → `blocked` (`input` /
 *   `output`, the guardrail of `result.guardrail.name`), `ToolInput`/`ToolOutputGuardrailTripwireTriggered` →
 *   `blocked` (`tool_input_guardrail` / `tool_output_guardrail`), any other → `failed` `error` with its
 *   `message` (else its name) and `name`; an error beats a final output next to it (SPEC §2 rule 4).
 *   `finishReason` is the error's name;
 * - no final record (or a result that decides nothing): `suspended`, inferred (`inferred: true`,
 *   `finishReason` `null`), when approvals requested in the run (`tool_approval_requested`) were not answered
 *   by a `tool_output`; otherwise `unfinished` with the last record's type (the stream has no terminal event of
 *   its own, and a missing one is never `answered`, SPEC §2 rule 2).
 * A handoff is not a child run: the agent handed to continues the root run, and its answer is the run's. The
 * agents handed to are listed in `children` (`handoff:<agent name>`): one that hands the run on ends `stopped`
 * by `delegation`; the one holding the run at its end ends as the run does (see `openaiAgents/stream.ts`).
 *
 * **Run boundaries.** A final record ends the run; the next stream event or `RunState` starts another (so
 * one `RunState` per line is one run each, as before). A result or error right after a final record, with
 * nothing between, is a further terminal record of the same run: a diagnostic, the first ending stands (K7).
 * Lines that are not records are diagnostics of the run they follow (or of the first run). When the first
 * line opens a JSON document spread over lines (it does not parse on its own and starts with `{` or `[`),
 * every line is gathered, up to 64 Mi characters, and read as one document at the end. Live, a run is handed
 * out at its final record.
 *
 * **Translation (protocol 2).** A state → `turn/start` (a run of its own) or nothing (the final state of a
 * streamed run), `session/started` (`conversationId`, else the trace's `group_id`), `usage/set` (its
 * `currentTurn` as the run's turns; its usage, one item per model response),
 * `subagent/started` + a child `turn/end` per nested run, `tool/call` per call not yet counted (nested ones in
 * their child's session), `permission/denied`, and the root `turn/end` (its reason, `finishReason`, the output
 * as `text` / `structuredOutput`). Stream events as in `openaiAgents/stream.ts`; an inferred suspension is a
 * `turn/end` with `inferred` stated between records; a run boundary is the root idle. Diagnostics keep the
 * wording of the reader this translator replaced.
 *
 * @module
 */
import * as t from 'io-ts'
import type { SessionEvent } from '../core/events.js'
import type { Emit, Translator } from '../core/translator.js'
import { emitDiagnostic, emitIdle, emitRecord, nativeEvent } from './events.js'
import { documentReaderFrom, readerFrom } from './fromTranslator.js'
import { NOT_JSON, isObject, parseJson, short, str, type Obj } from './json.js'
import {
  blockedReason,
  endingEvents,
  endingOfState,
  isRunStateLike,
  isRunStateObject,
  maxTurnsOf,
  maxTurnsReason,
  readState,
  runStateScore,
  serializedStateOf,
  type Ending,
} from './openaiAgents/runState.js'
import { FORMAT, get, jsonCopy, pendingFromList } from './openaiAgents/shared.js'
import {
  STREAM_TYPES,
  RunFactsCodec,
  isCounted,
  isStreamEvent,
  newRunFacts,
  rememberCall,
  streamEvent,
  usageModelOf,
  type RunFacts,
} from './openaiAgents/stream.js'
import { shareScore } from './sniff.js'
import type { FormatModule, ReaderFactory, ReaderOptions } from './types.js'
import type { RunResult } from '../core/RunResult.js'

export { isRunStateLike } from './openaiAgents/runState.js'

/** A pretty-printed document handed to the line reader is gathered up to this many characters (64 Mi). */
const MAX_GATHERED_CHARS = 64 * 1024 * 1024

/** Lines of a document spread over lines (the first line did not parse alone). @internal */
export interface Gather {
  lines: Array<string>
  chars: number
  first: number
  last: number
}

/** The translator's state (plain JSON). @since 0.2.0 */
export interface OpenAiAgentsState {
  live: boolean
  /** Records and lines seen. */
  seen: number
  /** A document spread over lines being gathered, or `null`. */
  gather: Gather | null
  /** A final record ended the open run and nothing of a new run came since. */
  ended: boolean
  /** The idle that closes the ended run was stated (live at once, else at the next run or a pause). */
  idled: boolean
  /** RunStates read. */
  states: number
  /** Runs begun. */
  runs: number
  run: RunFacts
}

const GatherCodec = t.type({ lines: t.array(t.string), chars: t.number, first: t.number, last: t.number })

const StateCodec: t.Type<OpenAiAgentsState, unknown> = t.type({
  live: t.boolean,
  seen: t.number,
  gather: t.union([GatherCodec, t.null]),
  ended: t.boolean,
  idled: t.boolean,
  states: t.number,
  runs: t.number,
  run: RunFactsCodec,
}) as unknown as t.Type<OpenAiAgentsState, unknown>

/** What a record is. */
type Kind = 'stream' | 'state' | 'result' | 'error'

const ERROR_NAME = /(?:Error|Exception|TripwireTriggered)$/

/** The kind of a record, or `undefined` for a value this format does not read. */
const kindOf = (v: unknown): Kind | undefined => {
  if (!isObject(v)) return undefined
  const type = get(v, 'type')
  if (typeof type === 'string') {
    if (STREAM_TYPES.has(type)) return 'stream'
    return isRunStateLike(v) ? 'state' : undefined
  }
  if (isRunStateLike(v) || isRunStateObject(v)) return 'state'
  if ((v as object) instanceof Error) return 'error'
  const name = get(v, 'name')
  if (typeof name === 'string' && ERROR_NAME.test(name)) return 'error'
  const state = get(v, 'state')
  if ('finalOutput' in v || 'interruptions' in v || 'cancelled' in v || isRunStateLike(state) || isRunStateObject(state)) return 'result'
  return undefined
}

const CANCELLED: Ending = { reason: { kind: 'aborted', reason: { kind: 'user' } }, finishReason: 'cancelled' }

/** The name of an error value: its `name`, else (an `Error` object) its class name. */
const errorName = (err: unknown): string | undefined => {
  const name = str(get(err, 'name'))
  if (name !== undefined || !((err as object) instanceof Error)) return name
  return str(get(get(err, 'constructor'), 'name'))
}

/**
 * The ending of an error the run threw (see the module doc). `own` is its state's ending when it carries one.
 */
const errorEnding = (err: unknown, own: Ending | undefined, state: Obj | undefined): Ending => {
  const name = errorName(err)
  const finishReason = name !== undefined ? short(name) : 'error'
  const k = own?.reason.kind
  if (own !== undefined && (k === 'limit' || k === 'blocked' || k === 'suspended')) return { reason: own.reason, finishReason }
  const guardrail = str(get(get(get(err, 'result'), 'guardrail'), 'name'))
  switch (name) {
    case 'MaxTurnsExceededError':
      return { reason: maxTurnsReason(maxTurnsOf(state)), finishReason }
    case 'ModelRefusalError':
      return { reason: { kind: 'refusal' }, finishReason }
    case 'InputGuardrailTripwireTriggered':
      return { reason: blockedReason(guardrail, 'input'), finishReason }
    case 'OutputGuardrailTripwireTriggered':
      return { reason: blockedReason(guardrail, 'output'), finishReason }
    case 'ToolInputGuardrailTripwireTriggered':
      return { reason: blockedReason(guardrail, undefined, 'tool_input_guardrail'), finishReason }
    case 'ToolOutputGuardrailTripwireTriggered':
      return { reason: blockedReason(guardrail, undefined, 'tool_output_guardrail'), finishReason }
    default: {
      const message = str(get(err, 'message'))
      const code = get(err, 'code')
      return {
        reason: {
          kind: 'error',
          error: {
            message: message !== undefined && message !== '' ? message : (name ?? 'error'),
            ...(name !== undefined ? { name: short(name) } : {}),
            ...(typeof code === 'string' || (typeof code === 'number' && Number.isFinite(code)) ? { code } : {}),
          },
        },
        finishReason,
      }
    }
  }
}

/** The ending a result states by its own fields (no state), or `undefined` when it decides nothing. */
const resultEnding = (v: Obj, diag: (message: string) => void): Ending | undefined => {
  if (get(v, 'cancelled') === true) return CANCELLED
  const err = get(v, 'error')
  if (err !== undefined && err !== null) return errorEnding(err, undefined, undefined)
  const list = get(v, 'interruptions')
  if (Array.isArray(list)) {
    // live RunToolApprovalItems: arguments that are not JSON text are copied out of the SDK's objects
    const pending = pendingFromList(list, (n) => diag(`skipped ${n} interruption item(s) without an object rawItem`)).map((p) =>
      typeof p.arguments === 'object' && p.arguments !== null ? withArguments(p, jsonCopy(p.arguments)) : p,
    )
    if (pending.length > 0) return { reason: { kind: 'suspended', pending }, finishReason: 'interruptions' }
  }
  const out = get(v, 'finalOutput')
  if (out === undefined || out === null) return undefined
  if (typeof out === 'string') return { reason: { kind: 'completed' }, finishReason: 'finalOutput', text: out }
  const copy = jsonCopy(out)
  if (copy === undefined) diag('the final output cannot be written as JSON; structuredOutput left out')
  return { reason: { kind: 'completed' }, finishReason: 'finalOutput', ...(copy !== undefined ? { structuredOutput: copy } : {}) }
}

const withArguments = <P extends { arguments?: unknown }>(p: P, args: unknown): P => {
  const { arguments: _, ...rest } = p
  return (args === undefined ? rest : { ...rest, arguments: args }) as P
}

/** The content event types (a root one makes a run). */
const CONTENT: ReadonlySet<string> = new Set(['turn/start', 'turn/end', 'user/message', 'assistant/chunk', 'assistant/message', 'tool/call', 'tool/result'])

/** Emits the events of one record and notes whether they gave the run content. */
const emitAll = (s: OpenAiAgentsState, events: ReadonlyArray<SessionEvent>, emit: Emit): void => {
  for (const ev of events) {
    if (ev.sessionId === null && CONTENT.has(ev.type)) s.run.content = true
    emit(ev)
  }
}

/** A new run begins: the ended one is closed (its idle stated unless it was already). */
const beginRun = (s: OpenAiAgentsState, emit: Emit): void => {
  if (s.ended) {
    if (!s.idled) emitIdle(emit)
    s.run = newRunFacts()
    s.ended = false
    s.idled = false
  }
  if (!s.run.content && !s.run.stream) s.runs++
}

/** The open run's final record was read. */
const ended = (s: OpenAiAgentsState, emit: Emit): void => {
  s.ended = true
  s.idled = false
  if (s.live) {
    emitIdle(emit)
    s.idled = true
  }
}

/** The run ends without a final record that decides: approvals still pending suspend it (inferred). */
const inferEnding = (s: OpenAiAgentsState, emit: Emit): void => {
  const run = s.run
  if (run.pending.length === 0) return
  const pending = run.pending.map((p) => ({ ...p }))
  emitAll(s, endingEvents({ reason: { kind: 'suspended', pending }, finishReason: null }, run.active, '', true), emit)
}

/** Reads a serialized state as the final record of the open run (or a run of its own). */
const stateRecord = (s: OpenAiAgentsState, st: Obj, emit: Emit, decide?: (own: Ending) => Ending): void => {
  const run = s.run
  const read = readState(st, { hasContent: run.content, model: usageModelOf(run), counted: (id) => isCounted(run, id), active: run.active }, decide)
  s.states++
  for (const id of read.callIds) rememberCall(run, id)
  emitAll(s, read.events, emit)
  ended(s, emit)
}

/** A result or an error as the open run's final record. */
const terminalRecord = (s: OpenAiAgentsState, v: Obj, kind: 'result' | 'error', emit: Emit): void => {
  const out: Array<SessionEvent> = []
  const diag = (message: string): void => {
    out.push(nativeEvent('source/diagnostic', { message }))
  }
  const rawState = get(v, 'state')
  const st = serializedStateOf(rawState)
  if (rawState !== undefined && rawState !== null && st === undefined)
    diag(`the ${kind === 'error' ? 'error' : 'result'}'s state is not a readable RunState; read without it`)
  if (st !== undefined) {
    const cancelled = kind === 'result' && get(v, 'cancelled') === true
    const err = kind === 'error' ? v : get(v, 'error')
    const failed = err !== undefined && err !== null
    emitAll(s, out, emit)
    stateRecord(s, st, emit, (own) => (cancelled ? CANCELLED : failed ? errorEnding(err, own, st) : own))
    return
  }
  const ending = kind === 'error' ? errorEnding(v, undefined, undefined) : resultEnding(v, diag)
  const recordType = kind === 'error' ? 'error' : 'RunResult'
  emitAll(s, out, emit)
  if (ending === undefined) {
    inferEnding(s, emit)
    emitRecord(emit, recordType)
  } else emitAll(s, endingEvents(ending, s.run.active, recordType), emit)
  ended(s, emit)
}

/** A result or error after the run's final record: a further terminal record of that run (K7, the fold's diagnostic). */
const lateRecord = (s: OpenAiAgentsState, v: Obj, kind: 'result' | 'error', emit: Emit): void => {
  const st = serializedStateOf(get(v, 'state'))
  const own = st !== undefined ? endingOfState(st) : undefined
  let ending: Ending | undefined
  if (kind === 'error') ending = errorEnding(v, own, st)
  else if (get(v, 'cancelled') === true) ending = CANCELLED
  else {
    const err = get(v, 'error')
    ending = err !== undefined && err !== null ? errorEnding(err, own, st) : (own ?? resultEnding(v, () => undefined))
  }
  if (!s.idled) {
    emitIdle(emit)
    s.idled = true
  }
  if (ending === undefined) emitRecord(emit, kind === 'error' ? 'error' : 'RunResult')
  else emit(nativeEvent('turn/end', { reason: ending.reason, finishReason: ending.finishReason }, { recordType: kind === 'error' ? 'error' : 'RunResult' }))
}

const NOT_A_LINE = 'skipped a line that is not a serialized RunState'
const NOT_A_VALUE = 'skipped a value that is not an OpenAI Agents stream event, RunState, run result or error'

/** One record (a parsed line or an object). Never throws. */
const dispatch = (s: OpenAiAgentsState, v: unknown, isLine: boolean, emit: Emit): void => {
  const kind = kindOf(v)
  if (kind === undefined) {
    emitDiagnostic(emit, isLine ? NOT_A_LINE : NOT_A_VALUE)
    return
  }
  const o = v as Obj
  switch (kind) {
    case 'stream': {
      beginRun(s, emit)
      const out: Array<SessionEvent> = []
      streamEvent(s.run, o, out)
      emitAll(s, out, emit)
      return
    }
    case 'state': {
      const st = serializedStateOf(o)
      if (st === undefined) {
        emitDiagnostic(emit, 'skipped a RunState object that could not be serialized (its toJSON() failed)')
        return
      }
      beginRun(s, emit)
      stateRecord(s, st, emit)
      return
    }
    default:
      if (s.ended) lateRecord(s, o, kind, emit)
      else {
        beginRun(s, emit)
        terminalRecord(s, o, kind, emit)
      }
  }
}

/** Runs `f`, turning anything it throws into a diagnostic (a value whose fields cannot be read). */
const guarded = (emit: Emit, f: () => void): void => {
  try {
    f()
  } catch {
    emitDiagnostic(emit, 'skipped a record whose fields could not be read')
  }
}

/** An event stated at a line of the log (a gathered document's first and last lines). */
const atLine = (ev: SessionEvent, line: number): SessionEvent => ({ ...ev, line }) as SessionEvent

/** A whole document: a state, a JSON array of records, or one record. */
const readDocument = (s: OpenAiAgentsState, doc: unknown, emit: Emit): void => {
  if (isRunStateLike(doc)) {
    dispatch(s, doc, false, emit)
    return
  }
  if (Array.isArray(doc)) {
    let found = 0
    let skipped = 0
    for (const v of doc) {
      if (kindOf(v) === undefined) skipped++
      else {
        found++
        guarded(emit, () => dispatch(s, v, false, emit))
      }
    }
    if (found === 0) emitDiagnostic(emit, `the array holds no serialized RunState (${skipped} element(s) skipped)`)
    return
  }
  if (kindOf(doc) !== undefined) {
    dispatch(s, doc, false, emit)
    return
  }
  emitDiagnostic(emit, 'the document is not a serialized OpenAI Agents RunState')
}

/** The gathered lines, read as one document at the end of the input. */
const readGathered = (s: OpenAiAgentsState, g: Gather, emit: Emit): void => {
  const doc = parseJson(g.lines.join('\n'))
  if (doc === NOT_JSON) {
    emit(atLine(nativeEvent('source/diagnostic', { message: 'the input starts a JSON document that is not valid JSON' }), g.first))
    return
  }
  if (!isRunStateLike(doc) && !Array.isArray(doc)) {
    emit(atLine(nativeEvent('source/diagnostic', { message: 'the document is not a serialized OpenAI Agents RunState' }), g.first))
    return
  }
  const before = s.runs
  readDocument(s, doc, emit)
  // one run read from the lines: it spans them
  if (s.runs - before <= 1) {
    emit(atLine(nativeEvent('source/record', {}), g.first))
    emit(atLine(nativeEvent('source/record', {}), g.last))
  }
}

const gatherLine = (s: OpenAiAgentsState, g: Gather, text: string, line: number | undefined, emit: Emit): void => {
  if (line !== undefined) g.last = line
  g.chars += text.length + 1
  if (g.chars > MAX_GATHERED_CHARS) {
    s.gather = null
    emitDiagnostic(emit, 'the JSON document spread over lines is over 64 Mi characters; not read')
    return
  }
  g.lines.push(text)
}

const textOf = (v: unknown): string => {
  try {
    return JSON.stringify(v) ?? ''
  } catch {
    return ''
  }
}

/** A run whose final output has arrived is closed (its root idle), once: what a pause or a failed read does. */
const closeEnded = (s: OpenAiAgentsState, emit: Emit): void => {
  if (s.ended && !s.idled) {
    emitIdle(emit)
    s.idled = true
  }
}

/**
 * The OpenAI Agents translator: serialized `RunState`s and streamed runs (see the module doc). Never returns a
 * `ProtocolError` and never throws.
 * @since 0.2.0
 */
export const openaiAgentsTranslator: Translator<OpenAiAgentsState> = {
  format: FORMAT,
  stateCodec: StateCodec,
  init: (options) => ({ live: options.live === true, seen: 0, gather: null, ended: false, idled: false, states: 0, runs: 0, run: newRunFacts() }),
  record(s, value, line, emit) {
    s.seen++
    if (s.gather !== null) gatherLine(s, s.gather, textOf(value), line, emit)
    else guarded(emit, () => dispatch(s, value, line !== undefined, emit))
    return undefined
  },
  text(s, text, line, unterminated, emit) {
    s.seen++
    if (s.gather !== null) {
      gatherLine(s, s.gather, text, line, emit)
      return undefined
    }
    const c = text.trimStart().charCodeAt(0)
    if (s.seen === 1 && (c === 123 || c === 91)) {
      s.gather = { lines: [text], chars: text.length + 1, first: line ?? 0, last: line ?? 0 }
      return undefined
    }
    emitDiagnostic(emit, unterminated ? 'skipped the last line: it was cut off and is not valid JSON' : 'skipped a line that is not valid JSON')
    return undefined
  },
  document(s, doc, emit) {
    guarded(emit, () => readDocument(s, doc, emit))
  },
  // a pause (live) or a failed read: a run whose final output has arrived closes
  quiet: closeEnded,
  failed: closeEnded,
  end(s, emit) {
    if (s.gather !== null) {
      const g = s.gather
      s.gather = null
      guarded(emit, () => readGathered(s, g, emit))
    }
    if (!s.ended) inferEnding(s, emit)
  },
}

/**
 * Reads OpenAI Agents lines — one serialized `RunState` per line, a streamed run's events and its final
 * record, or a document spread over lines — through the pipeline (see {@link openaiAgentsTranslator}).
 * Never returns a `ProtocolError`.
 * @since 0.1.0
 */
export const openaiAgentsReader: ReaderFactory = readerFrom(openaiAgentsTranslator)

/**
 * Reads a whole JSON document: a serialized `RunState` (one run), a JSON array of them (one run each) or of a
 * streamed run's records, or one run result. Anything else gives one `unfinished` run with a diagnostic.
 * Never throws.
 * @since 0.1.0
 */
export const readOpenAiAgentsDocument: (doc: unknown, options: ReaderOptions) => ReadonlyArray<RunResult> = documentReaderFrom(openaiAgentsTranslator)

/** A record that counts for line detection: a stream event of the SDK's shape, or a serialized `RunState`. */
const isAgentsLine = (v: Obj): boolean => isStreamEvent(v) || isRunStateLike(v)

/**
 * Detection score for the first parsed lines: a first JSON value that is a serialized `RunState` scores as
 * before (0.95, or 0.6 with few of its fields); otherwise `0.5 + 0.5 × (records / JSON objects)` where
 * records are `RunStreamEvent`s (`type` `raw_model_stream_event` with a `data` object,
 * `run_item_stream_event` with a `name` and an `item`, `agent_updated_stream_event` with an `agent`) and
 * serialized states; 0 when there is none.
 * @since 0.2.0
 */
export const sniffOpenAiAgentsLines = (values: ReadonlyArray<unknown>): number => {
  for (const v of values) {
    if (v === undefined) continue
    if (isRunStateLike(v)) return runStateScore(v)
    break
  }
  return shareScore(values, isAgentsLine)
}

/**
 * The `openai-agents` format module: serialized OpenAI Agents JS `RunState` documents and streamed runs.
 * @since 0.1.0
 */
export const openaiAgentsFormat: FormatModule = {
  name: FORMAT,
  description:
    "OpenAI Agents JS: a serialized RunState (state.toString(); one JSON document per run, or one per line), or a streamed run's RunStreamEvents (JSONL or objects) with its final state or result",
  sniffDocument(doc) {
    if (Array.isArray(doc)) {
      if (doc.length === 0) return 0
      return isStreamEvent(doc[0]) ? 0.8 : runStateScore(doc[0]) * 0.9
    }
    return runStateScore(doc)
  },
  sniffLines: sniffOpenAiAgentsLines,
  reader: openaiAgentsReader,
  readDocument: readOpenAiAgentsDocument,
  translator: openaiAgentsTranslator,
}
