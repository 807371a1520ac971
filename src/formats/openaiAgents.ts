/**
 * `--format openai-agents`: a serialized OpenAI Agents JS `RunState` (`state.toString()` /
 * `JSON.stringify(state)` from `@openai/agents-core`). One JSON document is one run. It is read whole as a
 * document (`readDocument`), or as one JSON object per line (`reader`), each line a run.
 *
 * **Schema versions.** `$schemaVersion` `1.0` … `1.20` (the versions `@openai/agents-core` writes and reads as
 * of its 1.20 schema); the fields read below are present, with the same meaning, in all of them (1.11 allows
 * `maxTurns: null`). Tested on writer output of 1.2 and 1.18. A version that is not `1.<n>`, or newer than
 * 1.20, is read the same way with a diagnostic.
 *
 * **Ending rules** (first match wins; formats.md §C6 and the SDK's `RunState` / `RunResult`):
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
 * @module
 */
import type { PendingItem, RunEnding } from '../core/RunEnding.js'
import {
  addDiagnostic,
  addUsage,
  finishRun,
  newDraft,
  setChildEnding,
  touch,
  type RunDraft,
  type RunResult,
  type UsageInput,
} from '../core/RunResult.js'
import { NOT_JSON, count, isObject, parseJson, short, str, type Obj } from './json.js'
import type { FormatModule, LineReader, ReaderFactory, ReaderOptions } from './types.js'

/** Nested `pendingAgentToolRuns` are followed this deep (each level is a JSON string inside its parent). */
const MAX_NESTING = 8

/** The format name. */
const FORMAT = 'openai-agents'

/**
 * `true` when a parsed JSON value looks like a serialized `RunState`: an object with a string
 * `$schemaVersion` and at least one of `currentTurn`, `currentAgent`, `modelResponses`, `generatedItems`.
 * @since 0.1.0
 */
export const isRunStateLike = (u: unknown): u is Obj => {
  if (!isObject(u) || typeof u['$schemaVersion'] !== 'string') return false
  return 'currentTurn' in u || 'currentAgent' in u || 'modelResponses' in u || 'generatedItems' in u
}

const sniffScore = (u: unknown): number => {
  if (!isRunStateLike(u)) return 0
  let hits = 0
  if (typeof u['currentTurn'] === 'number') hits++
  if (isObject(u['currentAgent'])) hits++
  if (Array.isArray(u['modelResponses'])) hits++
  if (Array.isArray(u['generatedItems'])) hits++
  if (isObject(u['context'])) hits++
  return hits >= 2 ? 0.95 : 0.6
}

/** JSON text parsed, or the text as given when it does not parse. */
const parseJsonText = (s: string): unknown => {
  const v = parseJson(s)
  return v === NOT_JSON ? s : v
}

/** A tool call's arguments as the state holds them: JSON text parsed when it parses, else as written. */
const argumentsOf = (raw: Obj): unknown => {
  const a = raw['arguments']
  if (typeof a === 'string') return parseJsonText(a)
  if (a !== undefined) return a
  if (raw['action'] !== undefined) return raw['action']
  if (raw['operation'] !== undefined) return raw['operation']
  return undefined
}

const toolNameOfType = (type: unknown): string | undefined => {
  switch (type) {
    case 'computer_call':
      return 'computer'
    case 'shell_call':
      return 'shell'
    case 'apply_patch_call':
      return 'apply_patch'
    default:
      return undefined
  }
}

const callIdOf = (raw: Obj): string | undefined => {
  const c = str(raw['callId']) ?? str(raw['call_id'])
  if (c !== undefined) return c
  const id = str(raw['id'])
  if (id !== undefined) return id
  const pd = raw['providerData']
  return isObject(pd) ? str(pd['id']) : undefined
}

/** One pending approval from a serialized `tool_approval_item`, or `undefined` when it has no `rawItem`. */
const pendingOf = (item: Obj, index: number): PendingItem | undefined => {
  const raw = item['rawItem']
  if (!isObject(raw)) return undefined
  const id = callIdOf(raw) ?? `approval-${index}`
  const toolName = str(item['toolName']) ?? str(raw['name']) ?? toolNameOfType(raw['type'])
  const args = argumentsOf(raw)
  return {
    id,
    kind: 'approval',
    ...(toolName !== undefined ? { toolName } : {}),
    ...(args !== undefined ? { arguments: args } : {}),
  }
}

const pendingFromList = (list: ReadonlyArray<unknown>, d: RunDraft | undefined): Array<PendingItem> => {
  const out: Array<PendingItem> = []
  const seen = new Set<string>()
  let bad = 0
  for (let i = 0; i < list.length; i++) {
    const item = list[i]
    if (!isObject(item)) {
      bad++
      continue
    }
    const type = item['type']
    if (type !== undefined && type !== 'tool_approval_item') continue
    const p = pendingOf(item, i)
    if (p === undefined) {
      bad++
      continue
    }
    if (seen.has(p.id)) continue
    seen.add(p.id)
    out.push(p)
  }
  if (bad > 0 && d !== undefined) addDiagnostic(d, undefined, `skipped ${bad} interruption item(s) without an object rawItem`)
  return out
}

/** Fallback for an interruption step without `data.interruptions`: approval items with no tool output after them. */
const pendingFromGeneratedItems = (items: unknown): Array<PendingItem> => {
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
  return pendingFromList(approvals, undefined).filter((p) => !answered.has(p.id))
}

const guardrailName = (r: Obj): string | undefined => {
  const g = r['guardrail']
  return isObject(g) ? str(g['name']) : undefined
}

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

const blockedEnding = (guardrail: string | null, phase: 'input' | 'output' | undefined, reason?: string): RunEnding => ({
  kind: 'blocked',
  ...(guardrail !== null ? { guardrail } : {}),
  ...(phase !== undefined ? { phase } : {}),
  ...(reason !== undefined ? { reason } : {}),
})

/** How one serialized state ended, with its raw step type and answer. */
interface StateEnding {
  readonly ending: RunEnding
  readonly finishReason: string | null
  readonly response: string | null
  readonly structuredOutput: unknown
}

const KNOWN_STEPS = new Set(['next_step_interruption', 'next_step_final_output', 'next_step_run_again', 'next_step_handoff'])

const MAX_TURNS_TEXT = /max(imum)?[ _-]?turns/i

/** Reads the ending of one serialized state (SPEC §2 via the rules in the module doc). Never throws. */
const endingOfState = (s: Obj, d: RunDraft | undefined): StateEnding => {
  const step = s['currentStep']
  const stepObj = isObject(step) ? step : undefined
  const stepType = stepObj !== undefined ? str(stepObj['type']) : undefined
  const finishReason = stepType ?? null
  const none = { response: null, structuredOutput: null }
  if (step !== undefined && step !== null && stepType === undefined && d !== undefined) {
    addDiagnostic(d, undefined, 'ignored a currentStep without a string type')
  }
  // 1. max turns
  const currentTurn = count(s['currentTurn'])
  const maxTurns = count(s['maxTurns'])
  const span = s['currentAgentSpan']
  const spanError = isObject(span) && isObject(span['error']) ? str(span['error']['message']) : undefined
  if ((currentTurn !== undefined && maxTurns !== undefined && currentTurn > maxTurns) || (spanError !== undefined && MAX_TURNS_TEXT.test(spanError))) {
    return { ending: { kind: 'limit', reason: 'max_turns', ...(maxTurns !== undefined ? { limit: maxTurns } : {}) }, finishReason, ...none }
  }
  // 2. waiting for approval
  if (stepType === 'next_step_interruption') {
    const data = stepObj?.['data']
    const list = isObject(data) ? data['interruptions'] : undefined
    const pending = Array.isArray(list) ? pendingFromList(list, d) : pendingFromGeneratedItems(s['generatedItems'])
    if (pending.length > 0) return { ending: { kind: 'suspended', pending }, finishReason, ...none }
    if (d !== undefined) addDiagnostic(d, undefined, 'an interruption step without tool approval items')
  }
  // 3. guardrails
  const input = tripped(s['inputGuardrailResults'])
  if (input !== undefined) return { ending: blockedEnding(input, 'input'), finishReason, ...none }
  const output = tripped(s['outputGuardrailResults'])
  if (output !== undefined) return { ending: blockedEnding(output, 'output'), finishReason, ...none }
  const toolIn = toolGuardrailThrew(s['toolInputGuardrailResults'])
  if (toolIn !== undefined) return { ending: blockedEnding(toolIn, undefined, 'tool_input_guardrail'), finishReason, ...none }
  const toolOut = toolGuardrailThrew(s['toolOutputGuardrailResults'])
  if (toolOut !== undefined) return { ending: blockedEnding(toolOut, undefined, 'tool_output_guardrail'), finishReason, ...none }
  // 4. final output
  const hasFinalField = 'finalOutput' in s && s['finalOutput'] !== undefined && s['finalOutput'] !== null
  if (stepType === 'next_step_final_output' || hasFinalField) {
    const out = stepType === 'next_step_final_output' ? stepObj?.['output'] : s['finalOutput']
    if (typeof out === 'string') return { ending: { kind: 'answered' }, finishReason, response: out, structuredOutput: null }
    return { ending: { kind: 'answered' }, finishReason, response: null, structuredOutput: out ?? null }
  }
  // 5. not finished
  if (stepType !== undefined && !KNOWN_STEPS.has(stepType) && d !== undefined) {
    addDiagnostic(d, undefined, `unknown currentStep type "${short(stepType)}"`)
  }
  return { ending: stepType !== undefined ? { kind: 'unfinished', lastEventType: short(stepType) } : { kind: 'unfinished' }, finishReason, ...none }
}

const sumDetail = (details: unknown, key: string): number => {
  let n = 0
  const add = (o: unknown): void => {
    if (!isObject(o)) return
    const v = count(o[key])
    if (v !== undefined) n += v
  }
  if (Array.isArray(details)) for (const x of details) add(x)
  else add(details)
  return n
}

/** Disjoint buckets from one SDK `Usage` object, or `undefined` when its token counts are not numbers. */
const bucketsOf = (u: unknown, d: RunDraft): UsageInput | undefined => {
  if (!isObject(u)) return undefined
  const input = count(u['inputTokens'])
  const output = count(u['outputTokens'])
  if (input === undefined || output === undefined) return undefined
  let cached = sumDetail(u['inputTokensDetails'], 'cached_tokens')
  if (cached > input) {
    addDiagnostic(d, undefined, 'cached input tokens exceed input tokens; capped at the input count')
    cached = input
  }
  let reasoning = sumDetail(u['outputTokensDetails'], 'reasoning_tokens')
  if (reasoning > output) reasoning = output
  return { inputTokens: input - cached, cacheReadTokens: cached, cacheWriteTokens: 0, outputTokens: output, reasoningTokens: reasoning }
}

/** Mutable token buckets (all present). */
type Buckets = { -readonly [K in keyof Required<UsageInput>]: number }

const addBuckets = (a: Buckets, b: UsageInput): void => {
  a.inputTokens += b.inputTokens ?? 0
  a.cacheReadTokens += b.cacheReadTokens ?? 0
  a.cacheWriteTokens += b.cacheWriteTokens ?? 0
  a.outputTokens += b.outputTokens ?? 0
  a.reasoningTokens += b.reasoningTokens ?? 0
}

const isZero = (u: UsageInput): boolean =>
  (u.inputTokens ?? 0) + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) + (u.outputTokens ?? 0) === 0

/** Fills the draft's usage and priced items (one per model response, cost missing). */
const readUsage = (s: Obj, d: RunDraft): void => {
  const responses = Array.isArray(s['modelResponses']) ? s['modelResponses'] : []
  const ctx = s['context']
  let usage = isObject(ctx) ? bucketsOf(ctx['usage'], d) : undefined
  if (usage === undefined) {
    if (isObject(ctx) && ctx['usage'] !== undefined) addDiagnostic(d, undefined, 'context.usage has no numeric token counts; summed the model responses instead')
    const sum: Buckets = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 }
    for (const r of responses) {
      const b = isObject(r) ? bucketsOf(r['usage'], d) : undefined
      if (b !== undefined) addBuckets(sum, b)
    }
    usage = sum
  }
  const items = responses.length > 0 ? responses.length : isZero(usage) ? 0 : 1
  if (items === 0) return
  addUsage(d, null, usage, undefined)
  for (let i = 1; i < items; i++) addUsage(d, null, {}, undefined)
}

/** Adds the distinct call ids of a state's `tool_call_item`s (and of its nested states) to `ids`. */
const collectToolCalls = (s: Obj, ids: Set<string>, depth: number): void => {
  const items = s['generatedItems']
  if (Array.isArray(items)) {
    for (const it of items) {
      if (!isObject(it) || it['type'] !== 'tool_call_item') continue
      const raw = it['rawItem']
      if (!isObject(raw)) continue
      const id = callIdOf(raw)
      if (id !== undefined) ids.add(id)
    }
  }
  if (depth >= MAX_NESTING) return
  for (const child of nestedStates(s)) collectToolCalls(child.state, ids, depth + 1)
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

/** Rejected calls of this run, from the approval records of the run context. */
const readDenials = (s: Obj, d: RunDraft, callIds: ReadonlySet<string>): void => {
  const ctx = s['context']
  if (!isObject(ctx)) return
  const seen = new Set<string>()
  const fromRecords = (records: unknown): void => {
    if (!isObject(records)) return
    for (const key of Object.keys(records)) {
      const rec = records[key]
      if (!isObject(rec)) continue
      const rejected = rec['rejected']
      if (!Array.isArray(rejected)) continue
      for (const id of rejected) {
        if (typeof id !== 'string' || !callIds.has(id) || seen.has(id)) continue
        seen.add(id)
        d.permissionDenials.push({ toolName: toolNameOfApprovalKey(key), toolCallId: id })
      }
    }
  }
  fromRecords(ctx['approvals'])
  const fa = ctx['functionApprovals']
  if (Array.isArray(fa)) for (const entry of fa) if (isObject(entry)) fromRecords(entry['approvals'])
}

const SCHEMA_VERSION = /^1\.(\d+)$/
const NEWEST_MINOR = 20

const checkVersion = (s: Obj, d: RunDraft): void => {
  const v = s['$schemaVersion']
  const m = typeof v === 'string' ? SCHEMA_VERSION.exec(v) : null
  if (m === null) {
    addDiagnostic(d, undefined, 'RunState $schemaVersion is not 1.x; read with the 1.x rules')
  } else if (Number(m[1]) > NEWEST_MINOR) {
    addDiagnostic(d, undefined, `RunState schema 1.${short(m[1] ?? '')} is newer than 1.${NEWEST_MINOR}; read with the 1.${NEWEST_MINOR} rules`)
  }
}

const sessionIdOf = (s: Obj): string | null => {
  const conv = str(s['conversationId'])
  if (conv !== undefined) return conv
  const trace = s['trace']
  if (isObject(trace)) {
    const g = str(trace['group_id'])
    if (g !== undefined) return g
  }
  return null
}

/**
 * Reads one serialized `RunState` (already parsed) into its `RunResult`, filling `d` (which may already hold
 * diagnostics and the line it came from). Never throws; unexpected field types are diagnostics.
 * @since 0.1.0
 */
export const readRunState = (s: Obj, d: RunDraft, options: ReaderOptions): RunResult => {
  checkVersion(s, d)
  const turn = count(s['currentTurn'])
  if (turn !== undefined) d.turns = turn
  else if (s['currentTurn'] !== undefined) addDiagnostic(d, undefined, 'currentTurn is not a non-negative number')
  readUsage(s, d)
  const ids = new Set<string>()
  collectToolCalls(s, ids, 0)
  d.toolCalls = ids.size
  readDenials(s, d, ids)
  for (const child of nestedStates(s)) {
    const e = endingOfState(child.state, undefined)
    setChildEnding(d, child.key, e.ending, e.finishReason)
  }
  const e = endingOfState(s, d)
  d.hasContent = true
  return finishRun(d, {
    format: FORMAT,
    sessionId: sessionIdOf(s),
    ending: e.ending,
    finishReason: e.finishReason,
    response: e.response,
    structuredOutput: e.structuredOutput,
    file: options.file ?? null,
  })
}

const notAState = (d: RunDraft, options: ReaderOptions): RunResult =>
  finishRun(d, { format: FORMAT, sessionId: null, ending: { kind: 'unfinished' }, finishReason: null, response: null, file: options.file ?? null })

/**
 * Reads a whole JSON document: a serialized `RunState` (one run), or a JSON array of them (one run each).
 * Anything else gives one `unfinished` run with a diagnostic. Never throws.
 * @since 0.1.0
 */
export const readOpenAiAgentsDocument = (doc: unknown, options: ReaderOptions): ReadonlyArray<RunResult> => {
  if (isRunStateLike(doc)) return [readRunState(doc, newDraft(), options)]
  if (Array.isArray(doc)) {
    const out: Array<RunResult> = []
    let skipped = 0
    for (const v of doc) {
      if (isRunStateLike(v)) out.push(readRunState(v, newDraft(), options))
      else skipped++
    }
    if (out.length > 0) return out
    const d = newDraft()
    addDiagnostic(d, undefined, `the array holds no serialized RunState (${skipped} element(s) skipped)`)
    return [notAState(d, options)]
  }
  const d = newDraft()
  addDiagnostic(d, undefined, 'the document is not a serialized OpenAI Agents RunState')
  return [notAState(d, options)]
}

/** A pretty-printed document handed to the line reader is gathered up to this many characters (64 Mi). */
const MAX_GATHERED_CHARS = 64 * 1024 * 1024

/**
 * Reads RunStates written one per line (a JSONL of `state.toString()` outputs). Each state line is a run,
 * emitted when the next state line arrives or the input ends (so diagnostics of the lines after it join it);
 * other lines are diagnostics. When the first line opens a JSON document spread over lines (it does not parse
 * on its own and starts with `{` or `[`), every line is gathered, up to 64 Mi characters, and read as one
 * document at the end ({@link readOpenAiAgentsDocument}). Never returns a `ProtocolError`.
 * @since 0.1.0
 */
export const openaiAgentsReader: ReaderFactory = (emit, options): LineReader => {
  let draft = newDraft()
  let held: Obj | undefined
  let emitted = 0
  let seen = 0
  /** Lines of a document spread over lines, or `null` when reading one state per line. */
  let gathered: Array<string> | null = null
  let gatheredChars = 0
  let gatherFirst = 0
  let gatherLast = 0
  const flush = (): void => {
    if (held === undefined) return
    const s = held
    held = undefined
    emitted++
    emit(readRunState(s, draft, options))
    draft = newDraft()
  }
  const readGathered = (lines: Array<string>): void => {
    const doc = parseJson(lines.join('\n'))
    if (doc === NOT_JSON) {
      addDiagnostic(draft, gatherFirst, 'the input starts a JSON document that is not valid JSON')
      emit(notAState(draft, options))
      return
    }
    const runs = isRunStateLike(doc) || Array.isArray(doc) ? readOpenAiAgentsDocument(doc, options) : []
    if (runs.length === 0) {
      addDiagnostic(draft, gatherFirst, 'the document is not a serialized OpenAI Agents RunState')
      emit(notAState(draft, options))
      return
    }
    const source = { file: options.file ?? null, firstLine: gatherFirst, lastLine: gatherLast }
    for (const r of runs) emit(runs.length === 1 ? { ...r, source } : r)
  }
  return {
    line(text, lineNo, unterminated) {
      seen++
      if (gathered !== null) {
        gatherLast = lineNo
        gatheredChars += text.length + 1
        if (gatheredChars > MAX_GATHERED_CHARS) {
          gathered = null
          gatheredChars = 0
          addDiagnostic(draft, lineNo, 'the JSON document spread over lines is over 64 Mi characters; not read')
          return undefined
        }
        gathered.push(text)
        return undefined
      }
      const v = parseJson(text)
      if (v === NOT_JSON) {
        const c = text.trimStart().charCodeAt(0)
        if (seen === 1 && gatheredChars === 0 && (c === 123 || c === 91)) {
          gathered = [text]
          gatheredChars = text.length + 1
          gatherFirst = lineNo
          gatherLast = lineNo
          return undefined
        }
        addDiagnostic(draft, lineNo, unterminated ? 'skipped the last line: it was cut off and is not valid JSON' : 'skipped a line that is not valid JSON')
        return undefined
      }
      if (!isRunStateLike(v)) {
        addDiagnostic(draft, lineNo, 'skipped a line that is not a serialized RunState')
        return undefined
      }
      flush()
      held = v
      touch(draft, lineNo)
      return undefined
    },
    end() {
      if (gathered !== null) {
        const lines = gathered
        gathered = null
        readGathered(lines)
        return
      }
      if (held !== undefined) flush()
      else if (emitted === 0) emit(notAState(draft, options))
    },
  }
}

/**
 * The `openai-agents` format module: serialized OpenAI Agents JS `RunState` documents.
 * @since 0.1.0
 */
export const openaiAgentsFormat: FormatModule = {
  name: FORMAT,
  description: 'OpenAI Agents JS serialized RunState (state.toString()): one JSON document per run, or one per line',
  sniffDocument(doc) {
    if (Array.isArray(doc)) return doc.length > 0 ? sniffScore(doc[0]) * 0.9 : 0
    return sniffScore(doc)
  },
  sniffLines(values) {
    for (const v of values) {
      if (v === undefined) continue
      return sniffScore(v)
    }
    return 0
  },
  reader: openaiAgentsReader,
  readDocument: readOpenAiAgentsDocument,
}
