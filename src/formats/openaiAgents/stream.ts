/**
 * The events of an OpenAI Agents JS streamed run (`run(agent, input, { stream: true })`, a `StreamedRunResult`
 * iterated) as native events. The `RunStreamEvent`s are those of `@openai/agents-core` `events.ts`:
 *
 * - `raw_model_stream_event { data }`, `data.type` one of `response_started` (a model call begins: a turn),
 *   `output_text_delta { delta }`, `response_done { response: { id, usage, output, providerData } }` (one model
 *   response and its usage; the Responses model puts the model name in `providerData.model`) and `model`
 *   (the provider's own event).
 * - `run_item_stream_event { name, item }`: `message_output_created`, `tool_called`, `tool_output`,
 *   `tool_approval_requested`, `handoff_requested`, `handoff_occurred`, `reasoning_item_created`,
 *   `compaction_item_created`, `tool_search_called`, `tool_search_output_created`; `item` a `RunItem`
 *   (`{ type, rawItem, agent }`; a handoff output has `sourceAgent` and `targetAgent` instead of `agent`).
 * - `agent_updated_stream_event { agent }`: the runner switched agents (after a handoff).
 *
 * Translation: `response_started` → `turn/start` (a second one before the `response_done` of the first is a
 * retried call of the same turn: a record only); `output_text_delta` → `assistant/chunk`; `response_done` →
 * `usage/add` (its model when named); `model` → a record; `message_output_created` → `assistant/message` (the
 * item's `output_text` parts, as the SDK's `RunMessageOutputItem.content`); `tool_called` → `tool/call` (each
 * call id once per run); `tool_output` → `tool/result`; `tool_approval_requested` → a pending approval kept
 * until a `tool_output` answers its call or the run ends; `handoff_occurred` / `agent_updated_stream_event` →
 * the handoff facts ({@link handTo}); reasoning, compaction, tool-search and `handoff_requested` items →
 * `assistant/chunk`.
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import type { SessionEvent } from '../../core/events.js'
import { nativeEvent } from '../events.js'
import { isObject, short, str, type Obj } from '../json.js'
import { agentName, bucketsOf, callIdOf, get, jsonCopy, pendingOf, toolNameOfType, type Pending } from './shared.js'
import { NO_MODEL } from '../../core/RunResult.js'

/** The `type`s of `RunStreamEvent`s. @internal */
export const STREAM_TYPES: ReadonlySet<string> = new Set(['raw_model_stream_event', 'run_item_stream_event', 'agent_updated_stream_event'])

/** `true` for a `RunStreamEvent` (object or parsed line) with the field its type carries. @internal */
export const isStreamEvent = (v: unknown): v is Obj => {
  if (!isObject(v)) return false
  switch (get(v, 'type')) {
    case 'raw_model_stream_event':
      return isObject(get(v, 'data'))
    case 'run_item_stream_event':
      return typeof get(v, 'name') === 'string' && isObject(get(v, 'item'))
    case 'agent_updated_stream_event':
      return isObject(get(v, 'agent'))
    default:
      return false
  }
}

/** Call ids remembered per run (a repeat beyond them would count again). */
const MAX_CALL_IDS = 4096

/** Pending approvals kept per run. */
const MAX_PENDING = 256

/** What the translator remembers of the open run (plain JSON). @internal */
export interface RunFacts {
  /** The run has content (a root fact that makes it a run). */
  content: boolean
  /** The run has stream records. */
  stream: boolean
  /** A `response_started` is not yet closed by its `response_done`. */
  responseOpen: boolean
  /** `#`-prefixed ids of the tool calls counted in the run. */
  calls: Record<string, true>
  callCount: number
  /** Approvals requested and not answered by a `tool_output`, in order. */
  pending: Array<Pending>
  pendingDropped: boolean
  /** The model of the run's responses (`unknown` for a response that names none), `null` before any. */
  model: string | null
  /** The responses named more than one model. */
  mixedModels: boolean
  /** The agent that started the run, when known. */
  rootAgent: string | null
  /** The agent that holds the run now, when known. */
  holder: string | null
  /** The child (`handoff:<agent>`) of the agent the run was handed to, `null` while the starting agent holds it. */
  active: string | null
}

const PendingCodec = t.intersection([t.type({ id: t.string, kind: t.string }), t.partial({ toolName: t.string, arguments: t.unknown })])

/** io-ts codec of {@link RunFacts}. @internal */
export const RunFactsCodec: t.Type<RunFacts, unknown> = t.type({
  content: t.boolean,
  stream: t.boolean,
  responseOpen: t.boolean,
  calls: t.record(t.string, t.literal(true)),
  callCount: t.number,
  pending: t.array(PendingCodec),
  pendingDropped: t.boolean,
  model: t.union([t.string, t.null]),
  mixedModels: t.boolean,
  rootAgent: t.union([t.string, t.null]),
  holder: t.union([t.string, t.null]),
  active: t.union([t.string, t.null]),
}) as unknown as t.Type<RunFacts, unknown>

/** A fresh run. @internal */
export const newRunFacts = (): RunFacts => ({
  content: false,
  stream: false,
  responseOpen: false,
  calls: {},
  callCount: 0,
  pending: [],
  pendingDropped: false,
  model: null,
  mixedModels: false,
  rootAgent: null,
  holder: null,
  active: null,
})

/** The model a state's usage is attributed to: the one model the run's responses named, else {@link NO_MODEL}. @internal */
export const usageModelOf = (run: RunFacts): string => (run.model !== null && !run.mixedModels ? run.model : NO_MODEL)

/** `true` for a call id the run already counted. @internal */
export const isCounted = (run: RunFacts, id: string): boolean => run.calls[`#${id}`] === true

/** Remembers a counted call id (up to {@link MAX_CALL_IDS}). @internal */
export const rememberCall = (run: RunFacts, id: string): void => {
  if (run.callCount >= MAX_CALL_IDS || run.calls[`#${id}`] === true) return
  run.calls[`#${id}`] = true
  run.callCount++
}

type Out = Array<SessionEvent>

const diag = (out: Out, message: string): void => {
  out.push(nativeEvent('source/diagnostic', { message }))
}

const record = (out: Out, recordType: string): void => {
  out.push(nativeEvent('source/record', {}, { recordType }))
}

/**
 * The run changes hands (`handoff_occurred` with its `sourceAgent`, or `agent_updated_stream_event`). A
 * handoff is not a child run: the target agent continues the root run (its messages, tool calls and usage are
 * the run's, and its final output is the run's answer). It is stated as delegation: the agent handed to is
 * listed in `children` as `handoff:<name>` (`subagent/started`); when it hands the run on in turn, its entry
 * ends `stopped` by `delegation` (`aborted` `delegation`); the one that holds the run at its end ends as the
 * run does. A switch to the agent that already holds the run (the `agent_updated_stream_event` that follows a
 * `handoff_occurred`) is a record only; one before anything named an agent names the starting agent.
 * @internal
 */
export const handTo = (run: RunFacts, target: string, source: string | undefined, recordType: string, out: Out): void => {
  if (run.rootAgent === null) {
    if (source !== undefined) {
      run.rootAgent = source
      run.holder = source
    } else {
      run.rootAgent = target
      run.holder = target
      record(out, recordType)
      return
    }
  }
  if (target === (run.holder ?? run.rootAgent)) {
    record(out, recordType)
    return
  }
  if (run.active !== null) {
    out.push(
      nativeEvent('turn/end', { reason: { kind: 'aborted', reason: { kind: 'delegation' } }, finishReason: recordType }, { sessionId: run.active, recordType }),
    )
  }
  if (target === run.rootAgent) {
    run.active = null
    record(out, recordType)
  } else {
    const key = `handoff:${target}`
    out.push(nativeEvent('subagent/started', { childSessionId: key }, { recordType }))
    run.active = key
  }
  run.holder = target
}

/** The agent of a run item, as the first name the run learns (the starting agent, before any handoff). */
const learnAgent = (run: RunFacts, item: unknown): void => {
  if (run.rootAgent !== null) return
  const name = agentName(get(item, 'agent'))
  if (name !== undefined) {
    run.rootAgent = name
    run.holder = name
  }
}

/** The text of an assistant message item: its `output_text` parts, concatenated; `undefined` without a content list. */
const messageText = (raw: unknown): string | undefined => {
  const content = get(raw, 'content')
  if (!Array.isArray(content)) return undefined
  let text = ''
  for (const part of content) {
    if (get(part, 'type') !== 'output_text') continue
    const s = get(part, 'text')
    if (typeof s === 'string') text += s
  }
  return text
}

const rawModelEvent = (run: RunFacts, v: Obj, out: Out): void => {
  const data = get(v, 'data')
  const type = str(get(data, 'type'))
  if (!isObject(data) || type === undefined) {
    diag(out, 'skipped a raw_model_stream_event whose data is not an object with a string type')
    return
  }
  const origin = { recordType: short(type) }
  switch (type) {
    case 'response_started':
      // a second start before the first response is done: the runner retried the same model call
      if (run.responseOpen) record(out, type)
      else {
        run.responseOpen = true
        out.push(nativeEvent('turn/start', {}, origin))
      }
      return
    case 'output_text_delta': {
      const delta = get(data, 'delta')
      if (typeof delta === 'string') out.push(nativeEvent('assistant/chunk', { chunk: { type: 'text', text: delta } }, origin))
      else {
        diag(out, 'skipped an output_text_delta without a string delta')
        record(out, type)
      }
      return
    }
    case 'response_done': {
      run.responseOpen = false
      const response = get(data, 'response')
      const usage = bucketsOf(get(response, 'usage'), (m) => diag(out, m))
      if (usage === undefined) {
        diag(out, 'skipped the usage of a response_done event: not an object of token counts')
        record(out, type)
        return
      }
      const model = str(get(get(response, 'providerData'), 'model'))
      const key = model ?? NO_MODEL
      if (run.model === null) run.model = key
      else if (run.model !== key) run.mixedModels = true
      out.push(nativeEvent('usage/add', { usage, ...(model !== undefined ? { model } : {}) }, origin))
      return
    }
    case 'model':
      record(out, type)
      return
    default:
      diag(out, `ignored a raw_model_stream_event of unknown data.type "${short(type)}"`)
      record(out, short(type))
  }
}

const runItemEvent = (run: RunFacts, v: Obj, out: Out): void => {
  const name = str(get(v, 'name'))
  if (name === undefined) {
    diag(out, 'skipped a run_item_stream_event without a string name')
    return
  }
  const item = get(v, 'item')
  const recordType = short(name)
  if (!isObject(item)) {
    diag(out, `skipped a ${recordType} event whose item is not an object`)
    record(out, recordType)
    return
  }
  const origin = { recordType }
  if (name !== 'handoff_occurred') learnAgent(run, item)
  const raw = get(item, 'rawItem')
  switch (name) {
    case 'message_output_created': {
      const text = messageText(raw)
      if (text === undefined) {
        diag(out, 'skipped a message_output_created item without a content list')
        out.push(nativeEvent('assistant/chunk', { chunk: { type: name } }, origin))
        return
      }
      out.push(nativeEvent('assistant/message', { message: { content: text === '' ? [] : [{ type: 'text', text }] } }, origin))
      return
    }
    case 'tool_called': {
      const id = callIdOf(raw)
      if (id !== undefined && isCounted(run, id)) {
        record(out, recordType)
        return
      }
      if (id !== undefined) rememberCall(run, id)
      const toolName = str(get(raw, 'name')) ?? toolNameOfType(get(raw, 'type')) ?? str(get(raw, 'type')) ?? 'unknown'
      const args = get(raw, 'arguments')
      out.push(nativeEvent('tool/call', { callId: id ?? '', name: toolName, ...(typeof args === 'string' ? { arguments: args } : {}) }, origin))
      return
    }
    case 'tool_output': {
      const id = callIdOf(raw)
      if (id !== undefined) run.pending = run.pending.filter((p) => p.id !== id)
      out.push(nativeEvent('tool/result', { callId: id ?? '' }, origin))
      return
    }
    case 'tool_approval_requested': {
      const p = pendingOf(item, run.pending.length)
      if (p === undefined) {
        diag(out, 'skipped a tool_approval_requested item without an object rawItem')
        record(out, recordType)
        return
      }
      if (!run.pending.some((q) => q.id === p.id)) {
        if (run.pending.length >= MAX_PENDING) {
          if (!run.pendingDropped) diag(out, `more than ${MAX_PENDING} approvals pending in one run; the later ones are not listed`)
          run.pendingDropped = true
        } else {
          const args = p.arguments === undefined ? undefined : jsonCopy(p.arguments)
          run.pending.push({
            id: p.id,
            kind: p.kind,
            ...(p.toolName !== undefined ? { toolName: p.toolName } : {}),
            ...(args !== undefined ? { arguments: args } : {}),
          })
        }
      }
      record(out, recordType)
      return
    }
    case 'handoff_occurred': {
      const target = agentName(get(item, 'targetAgent'))
      if (target === undefined) {
        diag(out, 'skipped a handoff_occurred item without a target agent name')
        record(out, recordType)
        return
      }
      handTo(run, target, agentName(get(item, 'sourceAgent')), recordType, out)
      return
    }
    case 'handoff_requested':
    case 'reasoning_item_created':
    case 'compaction_item_created':
    case 'tool_search_called':
    case 'tool_search_output_created':
      out.push(nativeEvent('assistant/chunk', { chunk: { type: name } }, origin))
      return
    default:
      diag(out, `ignored a run_item_stream_event of unknown name "${recordType}"`)
      record(out, recordType)
  }
}

/**
 * Translates one `RunStreamEvent` (see {@link isStreamEvent}) into `out`, updating the run's facts.
 * @internal
 */
export const streamEvent = (run: RunFacts, v: Obj, out: Out): void => {
  run.stream = true
  switch (get(v, 'type')) {
    case 'raw_model_stream_event':
      rawModelEvent(run, v, out)
      return
    case 'run_item_stream_event':
      runItemEvent(run, v, out)
      return
    default: {
      const name = agentName(get(v, 'agent'))
      if (name === undefined) {
        diag(out, 'skipped an agent_updated_stream_event without an agent name')
        record(out, 'agent_updated_stream_event')
        return
      }
      handTo(run, name, undefined, 'agent_updated_stream_event', out)
    }
  }
}
