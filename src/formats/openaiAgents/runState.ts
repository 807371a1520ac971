/**
 * A serialized OpenAI Agents JS `RunState` (`state.toString()` / `state.toJSON()` of `@openai/agents-core`)
 * as native events: the ending rules of the `openai-agents` format (see the format module's doc), its usage,
 * turns, tool calls, permission denials and nested agent-tool runs.
 *
 * Everything is read first into a list of events (nothing is emitted while a field is still being read), so a
 * value that cannot be read leaves no half-stated run behind.
 *
 * @module
 * @internal
 */
import type { SessionEvent } from '../../core/events.js'
import { nativeEvent, type ReasonIn } from '../events.js'
import { isObject, short, str, wholeCount, type Obj } from '../json.js'
import { addBuckets, bucketsOf, callIdOf, get, isZero, parseJsonText, pendingFromList, toolNameOfType, zeroBuckets, type Pending } from './shared.js'

/** Nested `pendingAgentToolRuns` are followed this deep (each level is a JSON string inside its parent). */
const MAX_NESTING = 8

/** The record type of the events a state gives (an `unfinished` run's ending names its step type instead). */
const RECORD = 'RunState'

/**
 * `true` when a value looks like a serialized `RunState`: an object with a string `$schemaVersion` and at
 * least one of `currentTurn`, `currentAgent`, `modelResponses`, `generatedItems`.
 * @internal
 */
export const isRunStateLike = (u: unknown): u is Obj => {
  if (!isObject(u) || typeof u['$schemaVersion'] !== 'string') return false
  return 'currentTurn' in u || 'currentAgent' in u || 'modelResponses' in u || 'generatedItems' in u
}

/** How sure a value is a serialized `RunState` (0 when it is not one). @internal */
export const runStateScore = (u: unknown): number => {
  if (!isRunStateLike(u)) return 0
  let hits = 0
  if (typeof u['currentTurn'] === 'number') hits++
  if (isObject(u['currentAgent'])) hits++
  if (Array.isArray(u['modelResponses'])) hits++
  if (Array.isArray(u['generatedItems'])) hits++
  if (isObject(u['context'])) hits++
  return hits >= 2 ? 0.95 : 0.6
}

/**
 * A live `RunState` object (the SDK class: `_currentTurn`, `_currentStep`, a `toJSON` method), as opposed to
 * its serialized form.
 * @internal
 */
export const isRunStateObject = (u: unknown): boolean => isObject(u) && typeof get(u, 'toJSON') === 'function' && ('_currentStep' in u || '_currentTurn' in u)

/**
 * The serialized state of a value: a serialized `RunState` itself, its JSON text (`state.toString()`), or a
 * live `RunState` serialized by its own `toJSON()`; `undefined` for anything else or when `toJSON()` throws.
 * @internal
 */
export const serializedStateOf = (u: unknown): Obj | undefined => {
  if (isRunStateLike(u)) return u
  if (typeof u === 'string') {
    const v = parseJsonText(u)
    return isRunStateLike(v) ? v : undefined
  }
  if (!isRunStateObject(u)) return undefined
  try {
    const v = (u as { toJSON: () => unknown }).toJSON()
    return isRunStateLike(v) ? v : undefined
  } catch {
    return undefined
  }
}

/** A run's ending as a `turn/end` states it: the reason, the raw terminal word, the answer. @internal */
export interface Ending {
  readonly reason: ReasonIn
  readonly finishReason: string | null
  readonly text?: string
  readonly structuredOutput?: unknown
}

/** Fallback for an interruption step without `data.interruptions`: approval items with no tool output after them. */
const pendingFromGeneratedItems = (items: unknown): Array<Pending> => {
  if (!Array.isArray(items)) return []
  const answered = new Set<string>()
  for (const it of items) {
    if (!isObject(it) || it['type'] !== 'tool_call_output_item') continue
    const raw = it['rawItem']
    if (isObject(raw)) {
      const id = callIdOf(raw)
      if (id !== undefined) answered.add(id)
    }
  }
  const approvals = items.filter((it) => isObject(it) && it['type'] === 'tool_approval_item')
  return pendingFromList(approvals).filter((p) => !answered.has(p.id))
}

const guardrailName = (r: unknown): string | undefined => str(get(get(r, 'guardrail'), 'name'))

const tripped = (list: unknown): string | null | undefined => {
  if (!Array.isArray(list)) return undefined
  for (const r of list) {
    if (!isObject(r)) continue
    const o = r['output']
    if (isObject(o) && o['tripwireTriggered'] === true) return guardrailName(r) ?? null
  }
  return undefined
}

const toolGuardrailThrew = (list: unknown): string | null | undefined => {
  if (!Array.isArray(list)) return undefined
  for (const r of list) {
    if (!isObject(r)) continue
    const o = r['output']
    const b = isObject(o) ? o['behavior'] : undefined
    if (isObject(b) && b['type'] === 'throwException') return guardrailName(r) ?? null
  }
  return undefined
}

/** A `blocked` reason (the fold reads `message` as the ending's `reason`). @internal */
export const blockedReason = (guardrail: string | null | undefined, phase: 'input' | 'output' | undefined, message?: string): ReasonIn => ({
  kind: 'blocked',
  ...(guardrail !== null && guardrail !== undefined ? { guardrail } : {}),
  ...(phase !== undefined ? { phase } : {}),
  ...(message !== undefined ? { message } : {}),
})

/** A `limit` `max_turns` reason, with the configured figure when known. @internal */
export const maxTurnsReason = (maxTurns: number | undefined): ReasonIn => ({
  kind: 'limit',
  reason: 'max_turns',
  ...(maxTurns !== undefined ? { limit: maxTurns } : {}),
})

const KNOWN_STEPS = new Set(['next_step_interruption', 'next_step_final_output', 'next_step_run_again', 'next_step_handoff'])

const MAX_TURNS_TEXT = /max(imum)?[ _-]?turns/i

/** `maxTurns` of a state when it is a usable figure. @internal */
export const maxTurnsOf = (s: Obj | undefined): number | undefined => wholeCount(s?.['maxTurns'])

/**
 * The ending of one serialized state (rules 1–5 of the module doc). `diag` receives its diagnostics (none for
 * nested states). Never throws on plain JSON.
 * @internal
 */
export const endingOfState = (s: Obj, diag?: (message: string) => void): Ending => {
  const step = s['currentStep']
  const stepObj = isObject(step) ? step : undefined
  const stepType = stepObj !== undefined ? str(stepObj['type']) : undefined
  const finishReason = stepType ?? null
  if (step !== undefined && step !== null && stepType === undefined) diag?.('ignored a currentStep without a string type')
  // 1. max turns
  const currentTurn = wholeCount(s['currentTurn'])
  const maxTurns = maxTurnsOf(s)
  if (maxTurns === undefined && s['maxTurns'] !== undefined && s['maxTurns'] !== null) diag?.('ignored maxTurns: it is not a non-negative integer')
  const span = s['currentAgentSpan']
  const spanError = isObject(span) && isObject(span['error']) ? str(span['error']['message']) : undefined
  if ((currentTurn !== undefined && maxTurns !== undefined && currentTurn > maxTurns) || (spanError !== undefined && MAX_TURNS_TEXT.test(spanError))) {
    return { reason: maxTurnsReason(maxTurns), finishReason }
  }
  // 2. waiting for approval
  if (stepType === 'next_step_interruption') {
    const data = stepObj?.['data']
    const list = isObject(data) ? data['interruptions'] : undefined
    const pending = Array.isArray(list)
      ? pendingFromList(list, (n) => diag?.(`skipped ${n} interruption item(s) without an object rawItem`))
      : pendingFromGeneratedItems(s['generatedItems'])
    if (pending.length > 0) return { reason: { kind: 'suspended', pending }, finishReason }
    diag?.('an interruption step without tool approval items')
  }
  // 3. guardrails
  const input = tripped(s['inputGuardrailResults'])
  if (input !== undefined) return { reason: blockedReason(input, 'input'), finishReason }
  const output = tripped(s['outputGuardrailResults'])
  if (output !== undefined) return { reason: blockedReason(output, 'output'), finishReason }
  const toolIn = toolGuardrailThrew(s['toolInputGuardrailResults'])
  if (toolIn !== undefined) return { reason: blockedReason(toolIn, undefined, 'tool_input_guardrail'), finishReason }
  const toolOut = toolGuardrailThrew(s['toolOutputGuardrailResults'])
  if (toolOut !== undefined) return { reason: blockedReason(toolOut, undefined, 'tool_output_guardrail'), finishReason }
  // 4. final output
  const hasFinalField = 'finalOutput' in s && s['finalOutput'] !== undefined && s['finalOutput'] !== null
  if (stepType === 'next_step_final_output' || hasFinalField) {
    const out = stepType === 'next_step_final_output' ? stepObj?.['output'] : s['finalOutput']
    if (typeof out === 'string') return { reason: { kind: 'completed' }, finishReason, text: out }
    return { reason: { kind: 'completed' }, finishReason, ...(out !== undefined && out !== null ? { structuredOutput: out } : {}) }
  }
  // 5. not finished
  if (stepType !== undefined && !KNOWN_STEPS.has(stepType)) diag?.(`unknown currentStep type "${short(stepType)}"`)
  return { reason: stepType !== undefined ? { kind: 'unfinished', lastEventType: short(stepType) } : { kind: 'unfinished' }, finishReason }
}

/** The nested serialized states of `pendingAgentToolRuns` that parse to a RunState. */
const nestedStates = (s: Obj): Array<{ key: string; state: Obj }> => {
  const runs = s['pendingAgentToolRuns']
  if (!isObject(runs)) return []
  const out: Array<{ key: string; state: Obj }> = []
  for (const key of Object.keys(runs)) {
    const v = runs[key]
    const parsed = typeof v === 'string' ? parseJsonText(v) : v
    if (isRunStateLike(parsed)) out.push({ key, state: parsed })
  }
  return out
}

/** A tool call of a state: its id and tool name. */
interface Call {
  readonly id: string
  readonly name: string
}

/** Adds the distinct calls of a state's `tool_call_item`s (and of its nested states) to `out`, ids in `ids`. */
const collectToolCalls = (s: Obj, ids: Set<string>, out: Array<Call>, depth: number): void => {
  const items = s['generatedItems']
  if (Array.isArray(items)) {
    for (const it of items) {
      if (!isObject(it) || it['type'] !== 'tool_call_item') continue
      const raw = it['rawItem']
      if (!isObject(raw)) continue
      const id = callIdOf(raw)
      if (id === undefined || ids.has(id)) continue
      ids.add(id)
      out.push({ id, name: str(raw['name']) ?? toolNameOfType(raw['type']) ?? str(raw['type']) ?? 'unknown' })
    }
  }
  if (depth >= MAX_NESTING) return
  for (const child of nestedStates(s)) collectToolCalls(child.state, ids, out, depth + 1)
}

const toolNameOfApprovalKey = (key: string): string => {
  if (key.startsWith('[')) {
    const parsed = parseJsonText(key)
    if (Array.isArray(parsed)) {
      const last = parsed[parsed.length - 1]
      if (typeof last === 'string') return last
    }
  }
  return key
}

/** Rejected calls of this run (ids in `callIds`), from the approval records of the run context, each once. */
const denialsOf = (s: Obj, isCall: (id: string) => boolean): Array<{ toolName: string; callId: string }> => {
  const ctx = s['context']
  const out: Array<{ toolName: string; callId: string }> = []
  if (!isObject(ctx)) return out
  const seen = new Set<string>()
  const fromRecords = (records: unknown): void => {
    if (!isObject(records)) return
    for (const key of Object.keys(records)) {
      const rec = records[key]
      if (!isObject(rec)) continue
      const rejected = rec['rejected']
      if (!Array.isArray(rejected)) continue
      for (const id of rejected) {
        if (typeof id !== 'string' || !isCall(id) || seen.has(id)) continue
        seen.add(id)
        out.push({ toolName: toolNameOfApprovalKey(key), callId: id })
      }
    }
  }
  fromRecords(ctx['approvals'])
  const fa = ctx['functionApprovals']
  if (Array.isArray(fa)) for (const entry of fa) if (isObject(entry)) fromRecords(entry['approvals'])
  return out
}

const SCHEMA_VERSION = /^1\.(\d+)$/
const NEWEST_MINOR = 20

const versionDiagnostic = (s: Obj): string | undefined => {
  const v = s['$schemaVersion']
  const m = typeof v === 'string' ? SCHEMA_VERSION.exec(v) : null
  if (m === null) return 'RunState $schemaVersion is not 1.x; read with the 1.x rules'
  if (Number(m[1]) > NEWEST_MINOR) return `RunState schema 1.${short(m[1] ?? '')} is newer than 1.${NEWEST_MINOR}; read with the 1.${NEWEST_MINOR} rules`
  return undefined
}

/** The run's session: `conversationId`, else the trace's `group_id`. @internal */
export const sessionIdOf = (s: Obj): string | null => {
  const conv = str(s['conversationId'])
  if (conv !== undefined) return conv
  const trace = s['trace']
  if (isObject(trace)) {
    const g = str(trace['group_id'])
    if (g !== undefined) return g
  }
  return null
}

/** What the run already holds when a state is read. @internal */
export interface StateContext {
  /** The run has content (a streamed run whose final state this is), so the state needs no `turn/start`. */
  readonly hasContent: boolean
  /** The model of the state's usage items (the one model the run's stream named), else `unknown`. */
  readonly model: string
  /** `true` for a call id the run already counted (from its stream). */
  readonly counted: (id: string) => boolean
  /** The handoff child that holds the run at its end (its ending is the run's), or `null`. */
  readonly active: string | null
}

/** The events of one serialized state, the call ids it counted, and its own ending. @internal */
export interface StateRead {
  readonly events: Array<SessionEvent>
  readonly callIds: ReadonlyArray<string>
  readonly ending: Ending
}

/**
 * Reads one serialized state into its events (see the module doc of the format for the rules). `decide` may
 * replace the state's own ending (a cancelled or failed streamed run); the state's facts stay. Never throws on
 * plain JSON.
 * @internal
 */
export const readState = (s: Obj, ctx: StateContext, decide?: (own: Ending) => Ending): StateRead => {
  const events: Array<SessionEvent> = []
  const origin = { recordType: RECORD }
  const diag = (message: string): void => {
    events.push(nativeEvent('source/diagnostic', { message }, origin))
  }
  const rawTurn = s['currentTurn']
  const turn = wholeCount(rawTurn)
  // a run's content first: a fresh run must not open with a fact the fold would give to the run before (K7)
  if (!ctx.hasContent) events.push(nativeEvent('turn/start', turn !== undefined ? { turn } : {}, origin))
  const session = sessionIdOf(s)
  if (session !== null) events.push(nativeEvent('session/started', {}, { sessionId: session, recordType: RECORD }))
  const version = versionDiagnostic(s)
  if (version !== undefined) diag(version)
  if (turn === undefined && s['currentTurn'] !== undefined) diag('currentTurn is not a non-negative integer')
  if (turn !== undefined) events.push(nativeEvent('usage/set', { turns: turn }, origin))
  else if (!ctx.hasContent) events.push(nativeEvent('usage/set', { turns: 0 }, origin))
  // usage: context.usage (the run's cumulative usage), else the model responses summed; one item per response
  const responses = Array.isArray(s['modelResponses']) ? s['modelResponses'] : []
  const c = s['context']
  let usage = isObject(c) ? bucketsOf(c['usage'], diag) : undefined
  if (usage === undefined) {
    if (isObject(c) && c['usage'] !== undefined) diag('context.usage has no numeric token counts; summed the model responses instead')
    let sum = zeroBuckets()
    for (const r of responses) {
      const b = isObject(r) ? bucketsOf(r['usage'], diag) : undefined
      if (b !== undefined) sum = addBuckets(sum, b)
    }
    usage = sum
  }
  const items = responses.length > 0 ? responses.length : isZero(usage) ? 0 : 1
  if (items > 0) {
    const models = [{ model: ctx.model, usage }]
    for (let i = 1; i < items; i++) models.push({ model: ctx.model, usage: { ...zeroBuckets() } })
    events.push(nativeEvent('usage/set', { models }, origin))
  }
  // nested agent-tool runs are children; tool calls of the run and of its nested runs, each id once
  const nested = nestedStates(s)
  for (const child of nested) events.push(nativeEvent('subagent/started', { childSessionId: child.key }, origin))
  const ids = new Set<string>()
  const rootCalls: Array<Call> = []
  collectToolCalls({ generatedItems: s['generatedItems'] }, ids, rootCalls, MAX_NESTING)
  const counted: Array<string> = []
  const call = (c: Call, sessionId: string | null): void => {
    if (ctx.counted(c.id)) return
    counted.push(c.id)
    events.push(nativeEvent('tool/call', { callId: c.id, name: c.name }, { sessionId, recordType: RECORD }))
  }
  for (const c of rootCalls) call(c, null)
  for (const child of nested) {
    const calls: Array<Call> = []
    collectToolCalls(child.state, ids, calls, 1)
    for (const c of calls) call(c, child.key)
  }
  for (const d of denialsOf(s, (id) => ids.has(id) || ctx.counted(id))) events.push(nativeEvent('permission/denied', d, origin))
  for (const child of nested) {
    const e = endingOfState(child.state)
    events.push(nativeEvent('turn/end', { reason: e.reason, finishReason: e.finishReason }, { sessionId: child.key, recordType: RECORD }))
  }
  const own = endingOfState(s, diag)
  const ending = decide === undefined ? own : decide(own)
  events.push(...endingEvents(ending, ctx.active, RECORD))
  return { events, callIds: counted, ending }
}

/**
 * The root `turn/end` of an ending, and the same ending for the handoff child that holds the run (the agent
 * the run was handed to ends as the run does).
 * @internal
 */
export const endingEvents = (e: Ending, active: string | null, recordType: string, between = false): Array<SessionEvent> => {
  const data = {
    reason: e.reason,
    finishReason: e.finishReason,
    ...(between ? { inferred: true } : {}),
    ...(e.text !== undefined ? { text: e.text } : {}),
    ...(e.structuredOutput !== undefined ? { structuredOutput: e.structuredOutput } : {}),
  }
  const out = [nativeEvent('turn/end', data, between ? { between: true } : { recordType })]
  if (active !== null) {
    const child = { reason: e.reason, finishReason: e.finishReason }
    out.push(nativeEvent('turn/end', child, between ? { sessionId: active, between: true } : { sessionId: active, recordType }))
  }
  return out
}
