/**
 * Helpers shared by the Claude Code readers (stream-json and on-disk transcripts): the record and message
 * checks and content-block reading both make, Anthropic usage mapping, the per-message usage ledger (dedupe by
 * `message.id`, last copy wins) and the classification of user text (prompt, slash command, interrupt marker,
 * hook feedback).
 *
 * Nothing here stringifies input values or throws on odd input.
 *
 * @module
 * @internal
 */
import type { EndingError, Failed, PendingItem } from '../../core/RunEnding.js'
import { addDiagnostic, ensureChild, touch, type ModelDraft, type RunDraft } from '../../core/RunResult.js'
import { isObject, short, str, type Obj } from '../json.js'

/** The value when it is a finite number, negative ones included, else `undefined`. @internal */
export const num = (u: unknown): number | undefined => (typeof u === 'number' && Number.isFinite(u) ? u : undefined)

/** A type name safe to quote in a diagnostic: at most 60 characters. @internal */
export const quoteType = (t: string): string => `"${short(t)}"`

/** An event time worth keeping: an ISO-like string (starts with a digit) or epoch milliseconds. @internal */
export const timeOf = (u: unknown): string | number | undefined => {
  if (typeof u === 'string') {
    const c = u.charCodeAt(0)
    return u.length >= 10 && u.length <= 40 && c >= 48 && c <= 57 ? u : undefined
  }
  return typeof u === 'number' && Number.isFinite(u) && u > 0 ? u : undefined
}

/** Longest error message kept from the input (characters). @internal */
export const MAX_MESSAGE_CHARS = 10_000

/** Truncates a message taken from the input. @internal */
export const clip = (s: string, max = MAX_MESSAGE_CHARS): string => (s.length > max ? `${s.slice(0, max)}…` : s)

/** Token buckets of one Anthropic message, in our disjoint names (tokens). @internal */
export interface Buckets {
  inputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
}

const zero = (): Buckets => ({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })

const count = (u: unknown): number | null | undefined => {
  if (u === undefined || u === null) return undefined
  return typeof u === 'number' && Number.isFinite(u) && u >= 0 ? u : null
}

/**
 * Maps an Anthropic `usage` object (`input_tokens`, `cache_read_input_tokens`,
 * `cache_creation_input_tokens`, `output_tokens`, optional `output_tokens_details.thinking_tokens`) to
 * disjoint buckets. Anthropic reports the buckets apart and counts thinking inside `output_tokens`, so they
 * are copied; the thinking share is repeated in `reasoningTokens`. Returns `null` when a count has the wrong
 * type (the caller adds a diagnostic), `undefined` when the value is not a usage object at all.
 * @internal
 */
export const anthropicBuckets = (u: unknown): Buckets | null | undefined => {
  if (!isObject(u)) return undefined
  const b = zero()
  const i = count(u['input_tokens'])
  const r = count(u['cache_read_input_tokens'])
  const w = count(u['cache_creation_input_tokens'])
  const o = count(u['output_tokens'])
  if (i === null || r === null || w === null || o === null) return null
  b.inputTokens = i ?? 0
  b.cacheReadTokens = r ?? 0
  b.cacheWriteTokens = w ?? 0
  b.outputTokens = o ?? 0
  const details = u['output_tokens_details']
  if (isObject(details)) {
    const t = count(details['thinking_tokens'])
    if (typeof t === 'number') b.reasoningTokens = Math.min(t, b.outputTokens)
  }
  return b
}

/**
 * Maps one `modelUsage` entry of a Claude Code `result` (`inputTokens`, `cacheReadInputTokens`,
 * `cacheCreationInputTokens`, `outputTokens`, `costUSD`) to buckets plus its cost (USD, `undefined` when
 * absent). `null` when a count has the wrong type.
 * @internal
 */
export const modelUsageEntry = (u: unknown): { b: Buckets; cost: number | undefined } | null => {
  if (!isObject(u)) return null
  const i = count(u['inputTokens'])
  const r = count(u['cacheReadInputTokens'])
  const w = count(u['cacheCreationInputTokens'])
  const o = count(u['outputTokens'])
  if (i === null || r === null || w === null || o === null) return null
  const c = u['costUSD']
  return {
    b: { inputTokens: i ?? 0, cacheReadTokens: r ?? 0, cacheWriteTokens: w ?? 0, outputTokens: o ?? 0, reasoningTokens: 0 },
    cost: typeof c === 'number' && Number.isFinite(c) && c >= 0 ? c : undefined,
  }
}

/** How many recent message ids the ledger remembers to replace a repeated copy. @internal */
export const LEDGER_WINDOW = 512

/** One model's running sums inside a {@link UsageLedger}. */
class ModelAcc implements Buckets {
  inputTokens = 0
  cacheReadTokens = 0
  cacheWriteTokens = 0
  outputTokens = 0
  reasoningTokens = 0
  items = 0
}

interface LedgerEntry {
  acc: ModelAcc
  b: Buckets
}

/**
 * Usage of the assistant messages of one run, counted once per `message.id` with the **last** copy's
 * figures: streaming writes one record per content block, each repeating the message's usage (often
 * non-final until the last). A repeated id replaces the previous copy's contribution. Memory is bounded:
 * only the last {@link LEDGER_WINDOW} ids are remembered (copies of one message are written together).
 * @internal
 */
export class UsageLedger {
  private readonly recent = new Map<string, LedgerEntry>()
  readonly models = new Map<string, ModelAcc>()
  private lastModel: string | undefined = undefined
  private lastAcc: ModelAcc | undefined = undefined
  /** Distinct messages that carried usage (priced items). */
  items = 0

  private acc(model: string): ModelAcc {
    if (model === this.lastModel && this.lastAcc !== undefined) return this.lastAcc
    let m = this.models.get(model)
    if (m === undefined) {
      m = new ModelAcc()
      this.models.set(model, m)
    }
    this.lastModel = model
    this.lastAcc = m
    return m
  }

  /** Adds a message's usage; returns `true` when the id was not seen recently (a new message). */
  add(id: string | undefined, model: string, b: Buckets): boolean {
    const m = this.acc(model)
    if (id !== undefined) {
      const prev = this.recent.get(id)
      if (prev !== undefined) {
        const pm = prev.acc
        pm.inputTokens += b.inputTokens - prev.b.inputTokens
        pm.cacheReadTokens += b.cacheReadTokens - prev.b.cacheReadTokens
        pm.cacheWriteTokens += b.cacheWriteTokens - prev.b.cacheWriteTokens
        pm.outputTokens += b.outputTokens - prev.b.outputTokens
        pm.reasoningTokens += b.reasoningTokens - prev.b.reasoningTokens
        if (pm !== m) {
          // the copy names another model: move the item
          pm.inputTokens -= b.inputTokens
          pm.cacheReadTokens -= b.cacheReadTokens
          pm.cacheWriteTokens -= b.cacheWriteTokens
          pm.outputTokens -= b.outputTokens
          pm.reasoningTokens -= b.reasoningTokens
          pm.items--
          this.put(m, b)
          this.items--
          prev.acc = m
        }
        prev.b = b
        return false
      }
      this.recent.set(id, { acc: m, b })
      if (this.recent.size > LEDGER_WINDOW) {
        const oldest = this.recent.keys().next()
        if (oldest.done !== true) this.recent.delete(oldest.value)
      }
    }
    this.put(m, b)
    this.items++
    return true
  }

  private put(m: ModelAcc, b: Buckets): void {
    m.inputTokens += b.inputTokens
    m.cacheReadTokens += b.cacheReadTokens
    m.cacheWriteTokens += b.cacheWriteTokens
    m.outputTokens += b.outputTokens
    m.reasoningTokens += b.reasoningTokens
    m.items++
  }
}

/** One model's usage for a run, with its cost (USD) or `undefined` when unknown. @internal */
export interface ModelFigure {
  readonly model: string
  readonly b: Buckets
  readonly cost: number | undefined
  /** Priced items behind this figure (messages; 1 for a `modelUsage` delta). */
  readonly items: number
}

/**
 * Writes a run's usage and cost into the draft, replacing what was there: buckets summed over the models,
 * `byModel` per model, and the cost. `total` is the run's cost when the source states it for the whole run
 * (`null` when it is unknown); per-model costs that are unknown are counted missing on that model, and
 * on the run too unless `total` is known.
 * @internal
 */
export const writeUsage = (d: RunDraft, figures: ReadonlyArray<ModelFigure>, total: number | null | undefined): void => {
  const u = d.usage
  u.inputTokens = 0
  u.cacheReadTokens = 0
  u.cacheWriteTokens = 0
  u.outputTokens = 0
  u.reasoningTokens = 0
  d.byModel = {}
  let cost = 0
  let items = 0
  let missing = 0
  for (const f of figures) {
    const m: ModelDraft = {
      inputTokens: f.b.inputTokens,
      cacheReadTokens: f.b.cacheReadTokens,
      cacheWriteTokens: f.b.cacheWriteTokens,
      outputTokens: f.b.outputTokens,
      reasoningTokens: f.b.reasoningTokens,
      costUsd: f.cost ?? 0,
      costMissing: f.cost === undefined ? Math.max(1, f.items) : 0,
      items: Math.max(1, f.items),
    }
    d.byModel[`#${f.model}`] = m
    u.inputTokens += m.inputTokens
    u.cacheReadTokens += m.cacheReadTokens
    u.cacheWriteTokens += m.cacheWriteTokens
    u.outputTokens += m.outputTokens
    u.reasoningTokens += m.reasoningTokens
    items += Math.max(1, f.items)
    if (f.cost === undefined) missing += Math.max(1, f.items)
    else cost += f.cost
  }
  if (total === undefined) {
    d.costUsd = cost
    d.costItems = items
    d.costMissing = missing
  } else if (total === null) {
    d.costUsd = 0
    d.costItems = Math.max(items, 1)
    d.costMissing = Math.max(missing, 1)
  } else {
    d.costUsd = total
    d.costItems = Math.max(items, 1)
    d.costMissing = 0
  }
}

/** The ledger's models as figures with unknown cost (transcripts; stream-json without `modelUsage`). @internal */
export const ledgerFigures = (l: UsageLedger): Array<ModelFigure> => {
  const out: Array<ModelFigure> = []
  for (const [model, m] of l.models) {
    if (m.items <= 0) continue
    out.push({
      model,
      b: {
        inputTokens: m.inputTokens,
        cacheReadTokens: m.cacheReadTokens,
        cacheWriteTokens: m.cacheWriteTokens,
        outputTokens: m.outputTokens,
        reasoningTokens: m.reasoningTokens,
      },
      cost: undefined,
      items: m.items,
    })
  }
  return out
}

/** Rounds away float noise left by subtracting two running totals (USD). @internal */
export const roundUsd = (x: number): number => {
  const y = Math.round(x * 1e10) / 1e10
  return Number.isFinite(y) ? y : x
}

/** What a user record's text says. @internal */
export type UserTextKind =
  /** text typed by the person */
  | 'prompt'
  /** a slash command or local-command output: a run boundary, but not run content */
  | 'command'
  /** `[Request interrupted by user…]` */
  | 'interrupt'
  /** hook feedback injected into the conversation (the model continues) */
  | 'hook'
  /** injected context (system reminders, task notifications, compaction summaries) */
  | 'meta'

const COMMAND_PREFIXES = [
  '<command-name>',
  '<command-message>',
  '<command-args>',
  '<local-command-stdout>',
  '<local-command-stderr>',
  '<local-command-caveat>',
  '<bash-input>',
  '<bash-stdout>',
  '<bash-stderr>',
  '<user-memory-input>',
]
const META_PREFIXES = ['<system-reminder>', '<task-notification>', 'Caveat: The messages below were generated by the user while running local commands']

/** Classifies the text of a user message (only its start is read). @internal */
export const classifyUserText = (text: string): UserTextKind => {
  let s = 0
  while (s < text.length && s < 64) {
    const c = text.charCodeAt(s)
    if (c !== 32 && c !== 10 && c !== 13 && c !== 9) break
    s++
  }
  if (text.startsWith('[Request interrupted by user', s)) return 'interrupt'
  if (text.charCodeAt(s) === 60 /* < */) {
    for (const p of COMMAND_PREFIXES) if (text.startsWith(p, s)) return 'command'
    if (text.startsWith('<user-prompt-submit-hook>', s)) return 'hook'
  }
  for (const p of META_PREFIXES) if (text.startsWith(p, s)) return 'meta'
  if (text.lastIndexOf('hook feedback', s + 60) >= s) return 'hook'
  return 'prompt'
}

/** Tools that prompt the person and wait for an answer, and what the pending item is. @internal */
export const INTERACTIVE_TOOLS: ReadonlyMap<string, PendingItem['kind']> = new Map([
  ['AskUserQuestion', 'question'],
  ['ExitPlanMode', 'approval'],
])

/** Tools that start a subagent (Claude Code renamed `Task` to `Agent`). @internal */
export const SUBAGENT_TOOLS: ReadonlySet<string> = new Set(['Task', 'Agent'])

/** Maps an Anthropic `stop_reason` that cuts an answer short to our `cut_off.finishReason`. @internal */
export const cutOffReason = (stop: string | undefined | null): string | undefined => {
  switch (stop) {
    case 'max_tokens':
      return 'max_tokens'
    case 'refusal':
      return 'refusal'
    case 'model_context_window_exceeded':
      return 'context_window'
    case 'pause_turn':
      return 'pause_turn'
    default:
      return undefined
  }
}

/** Renames a child (keeps its ending), e.g. from a Task call id to the agent id its result names. @internal */
export const renameChild = (d: RunDraft, from: string, to: string): void => {
  if (from === to) return
  const i = d.childIndex[`#${from}`]
  if (i === undefined || d.childIndex[`#${to}`] !== undefined) return
  const c = d.children[i]
  if (c === undefined) return
  c.sessionId = to
  delete d.childIndex[`#${from}`]
  d.childIndex[`#${to}`] = i
}

/** Text of the first text block of a tool_result's content (string or blocks), for a child's error message. @internal */
export const toolResultText = (content: unknown): string | undefined => {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) {
    for (const b of content) if (isObject(b) && b['type'] === 'text' && typeof b['text'] === 'string') return b['text']
  }
  return undefined
}

/** Adds a diagnostic for a record whose fields have unexpected types (type name quoted, ≤ 60 chars). @internal */
export const badRecord = (d: RunDraft, line: number | undefined, type: string, what: string): void =>
  addDiagnostic(d, line, `skipped a ${quoteType(type)} record: ${what}`)

/**
 * The `type` of a record, or `undefined` when it has no string `type`: then the line is counted in `d` with a
 * diagnostic, and the caller skips the record.
 * @internal
 */
export const recordType = (d: RunDraft, v: Obj, line: number | undefined): string | undefined => {
  const type = v['type']
  if (typeof type === 'string') return type
  touch(d, line)
  addDiagnostic(d, line, 'skipped a record without a string "type"')
  return undefined
}

/**
 * A record of a type the reader does not fold: its line and time are counted in `d`; a type not in `known`
 * (the types the reader skips on purpose) is also a diagnostic naming it.
 * @internal
 */
export const otherRecord = (
  d: RunDraft,
  line: number | undefined,
  time: string | number | undefined,
  type: string,
  known: ReadonlySet<string>,
): void => {
  touch(d, line, time)
  if (!known.has(type)) addDiagnostic(d, line, `ignored a record of unknown type ${quoteType(type)}`)
}

/**
 * The `message` object of a `user` or `assistant` record, or `undefined` when it is not an object: then the
 * line is counted in `d` with a diagnostic, and the caller skips the record.
 * @internal
 */
export const messageOf = (
  d: RunDraft,
  v: Obj,
  line: number | undefined,
  time: string | number | undefined,
  type: 'user' | 'assistant',
): Obj | undefined => {
  const msg = v['message']
  if (isObject(msg)) return msg
  touch(d, line, time)
  badRecord(d, line, type, 'its message is not an object')
  return undefined
}

/** The model name Claude Code gives the assistant messages it writes itself (errors, interruptions): no usage. @internal */
export const SYNTHETIC_MODEL = '<synthetic>'

/**
 * Adds the `usage` of an assistant message (with its `message.id` and model) to the run's ledger. A usage with
 * a count of the wrong type is a diagnostic instead; a missing usage adds nothing.
 * @internal
 */
export const addMessageUsage = (
  d: RunDraft,
  ledger: UsageLedger,
  line: number | undefined,
  id: string | undefined,
  model: string,
  usage: unknown,
): void => {
  const b = anthropicBuckets(usage)
  if (b === null) addDiagnostic(d, line, 'ignored the usage of an assistant message: a token count is not a non-negative number')
  else if (b !== undefined) ledger.add(id, model, b)
}

/** `more` appended to the text so far (`null` when there is none yet), after a blank line. @internal */
export const joinText = (text: string | null, more: string): string => (text === null ? more : `${text}\n\n${more}`)

/**
 * Reads the content blocks of an assistant message into the run. Each tool call (`tool_use`,
 * `server_tool_use`) counts once per id (`tools` remembers the ids seen); a `tool_use` of a subagent tool
 * (also a `server_tool_use` one when `serverSubagents`) opens a child of the run keyed by its id, and the id
 * goes to `taskIds`, so that its tool_result can end the child. Returns the text blocks joined by blank lines,
 * or `null` when there are none (or `content` is not an array).
 * @internal
 */
export const readAssistantBlocks = (
  d: RunDraft,
  content: unknown,
  tools: RecentSet,
  taskIds: Set<string>,
  serverSubagents: boolean,
): string | null => {
  if (!Array.isArray(content)) return null
  let text: string | null = null
  for (const b of content) {
    if (!isObject(b)) continue
    const bt = b['type']
    if (bt === 'text') {
      const t = b['text']
      if (typeof t === 'string') text = joinText(text, t)
    } else if (bt === 'tool_use' || bt === 'server_tool_use') {
      const tid = str(b['id'])
      if (tid === undefined || tools.add(tid)) d.toolCalls++
      const name = str(b['name'])
      if (tid !== undefined && name !== undefined && SUBAGENT_TOOLS.has(name) && (serverSubagents || bt === 'tool_use')) {
        ensureChild(d, tid)
        taskIds.add(tid)
      }
    }
  }
  return text
}

/**
 * The ending of a subagent whose `tool_result` block says `is_error`: `failed` `error`, with the text of the
 * result's `content` (at most 2,000 characters) as the error message when it has one.
 * @internal
 */
export const failedToolResult = (content: unknown): Failed => {
  const t = toolResultText(content)
  return { kind: 'failed', reason: 'error', ...(t !== undefined ? { error: { message: clip(t, 2000) } } : {}) }
}

/** The message of an API error the source wrote as assistant text: that text (clipped), or `API error` when it has none. @internal */
export const apiErrorMessage = (text: string | null): string => (text !== null ? clip(text) : 'API error')

/** An `EndingError` of a message and an optional code (the `code` field left out when there is none). @internal */
export const endingError = (e: { readonly message: string; readonly code: string | undefined }): EndingError =>
  e.code !== undefined ? { message: e.message, code: e.code } : { message: e.message }

/**
 * A bounded set of recently seen ids (tool-call ids, message ids): remembers the last `cap` only, so memory
 * stays flat however long the log is.
 * @internal
 */
export class RecentSet {
  private readonly s = new Set<string>()
  constructor(private readonly cap = LEDGER_WINDOW) {}
  has(k: string): boolean {
    return this.s.has(k)
  }
  /** Adds `k`; `true` when it was not already remembered. */
  add(k: string): boolean {
    if (this.s.has(k)) return false
    this.s.add(k)
    if (this.s.size > this.cap) {
      const oldest = this.s.values().next()
      if (oldest.done !== true) this.s.delete(oldest.value)
    }
    return true
  }
  clear(): void {
    this.s.clear()
  }
}
