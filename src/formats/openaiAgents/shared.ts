/**
 * Reading helpers shared by the OpenAI Agents JS translators (serialized `RunState`s and streamed runs): safe
 * field access on values a live SDK hands over (class instances, getters), the SDK's `Usage` as disjoint
 * buckets, tool call ids and names, and pending approvals (`RunToolApprovalItem`).
 *
 * Field names are those of `@openai/agents-core` (`items.ts`, `types/protocol.ts`, `usage.ts`): a run item is
 * `{ type, rawItem, agent }`; a tool call's raw item has `callId` (function, computer, shell, apply_patch and
 * program calls) or only an `id` (hosted tools); `UsageData` is `{ inputTokens, outputTokens, totalTokens,
 * inputTokensDetails?, outputTokensDetails? }`, the details one record or a list of records
 * (`cached_tokens`, `reasoning_tokens`).
 *
 * @module
 * @internal
 */
import { isTokenCount } from '../../core/values.js'
import { NOT_JSON, isObject, parseJson, str, type Obj } from '../json.js'

/** The format name. @internal */
export const FORMAT = 'openai-agents'

/**
 * `o[k]`, or `undefined` when `o` is not an object or reading the field throws (a getter of a live SDK object).
 * @internal
 */
export const get = (o: unknown, k: string): unknown => {
  if (typeof o !== 'object' || o === null) return undefined
  try {
    return (o as Obj)[k]
  } catch {
    return undefined
  }
}

/** Disjoint token buckets (plain numbers the translator has checked). @internal */
export interface Buckets {
  inputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
}

/** A token count the fold can add exactly ({@link isTokenCount}: whole, 0 … 2^53−1), else `undefined`. */
const tokens = (u: unknown): number | undefined => (isTokenCount(u) ? u : undefined)

/** `a + b`, capped at `Number.MAX_SAFE_INTEGER` (sums stay exact and within the protocol's range). */
const add = (a: number, b: number): number => Math.min(a + b, Number.MAX_SAFE_INTEGER)

/** JSON text parsed, or the text as given when it does not parse. @internal */
export const parseJsonText = (s: string): unknown => {
  const v = parseJson(s)
  return v === NOT_JSON ? s : v
}

const sumDetail = (details: unknown, key: string): number => {
  let n = 0
  const one = (o: unknown): void => {
    if (!isObject(o)) return
    const v = tokens(o[key])
    if (v !== undefined) n = add(n, v)
  }
  if (Array.isArray(details)) for (const x of details) one(x)
  else one(details)
  return n
}

/**
 * Disjoint buckets from one SDK `Usage` / `UsageData` object, or `undefined` when its token counts are not
 * numbers: `inputTokens` minus the summed `cached_tokens` (→ `cacheReadTokens`), `outputTokens` (reasoning
 * included; the summed `reasoning_tokens` → `reasoningTokens`). `diag` receives the one diagnostic it can give.
 * @internal
 */
export const bucketsOf = (u: unknown, diag: (message: string) => void): Buckets | undefined => {
  if (!isObject(u)) return undefined
  const input = tokens(u['inputTokens'])
  const output = tokens(u['outputTokens'])
  if (input === undefined || output === undefined) return undefined
  let cached = sumDetail(u['inputTokensDetails'], 'cached_tokens')
  if (cached > input) {
    diag('cached input tokens exceed input tokens; capped at the input count')
    cached = input
  }
  let reasoning = sumDetail(u['outputTokensDetails'], 'reasoning_tokens')
  if (reasoning > output) reasoning = output
  return { inputTokens: input - cached, cacheReadTokens: cached, cacheWriteTokens: 0, outputTokens: output, reasoningTokens: reasoning }
}

/** Buckets summed (each capped at `Number.MAX_SAFE_INTEGER`). @internal */
export const addBuckets = (a: Buckets, b: Buckets): Buckets => ({
  inputTokens: add(a.inputTokens, b.inputTokens),
  cacheReadTokens: add(a.cacheReadTokens, b.cacheReadTokens),
  cacheWriteTokens: add(a.cacheWriteTokens, b.cacheWriteTokens),
  outputTokens: add(a.outputTokens, b.outputTokens),
  reasoningTokens: add(a.reasoningTokens, b.reasoningTokens),
})

/** Zero buckets. @internal */
export const zeroBuckets = (): Buckets => ({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })

/** `true` when no token is in any bucket. @internal */
export const isZero = (u: Buckets): boolean => u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens === 0

/** The call id of a raw tool call item: `callId` (or `call_id`), else its `id`, else `providerData.id`. @internal */
export const callIdOf = (raw: unknown): string | undefined => {
  const c = str(get(raw, 'callId')) ?? str(get(raw, 'call_id'))
  if (c !== undefined) return c
  const id = str(get(raw, 'id'))
  if (id !== undefined) return id
  return str(get(get(raw, 'providerData'), 'id'))
}

/** The tool name of a raw call item type that has no `name` (built-in tools). @internal */
export const toolNameOfType = (type: unknown): string | undefined => {
  switch (type) {
    case 'computer_call':
      return 'computer'
    case 'shell_call':
      return 'shell'
    case 'apply_patch_call':
      return 'apply_patch'
    case 'program':
      return 'programmatic_tool_calling'
    default:
      return undefined
  }
}

/** A tool call's arguments as the item holds them: JSON text parsed when it parses, else as written. @internal */
export const argumentsOf = (raw: unknown): unknown => {
  const a = get(raw, 'arguments')
  if (typeof a === 'string') return parseJsonText(a)
  if (a !== undefined) return a
  const action = get(raw, 'action')
  if (action !== undefined) return action
  const op = get(raw, 'operation')
  if (op !== undefined) return op
  return undefined
}

/** One pending approval (the `suspended` reason's item shape). @internal */
export interface Pending {
  id: string
  kind: string
  toolName?: string
  arguments?: unknown
}

/**
 * One pending approval from a `tool_approval_item` (`{ rawItem, toolName? }`), or `undefined` when it has no
 * object `rawItem`: `id` is `rawItem.callId` (else its `id`; else `approval-<index>`), `toolName` the item's
 * `toolName` (else `rawItem.name`, else the built-in tool of its type), `arguments` as the call holds them.
 * @internal
 */
export const pendingOf = (item: unknown, index: number): Pending | undefined => {
  const raw = get(item, 'rawItem')
  if (!isObject(raw)) return undefined
  const id = callIdOf(raw) ?? `approval-${index}`
  const toolName = str(get(item, 'toolName')) ?? str(get(raw, 'name')) ?? toolNameOfType(get(raw, 'type'))
  const args = argumentsOf(raw)
  return {
    id,
    kind: 'approval',
    ...(toolName !== undefined ? { toolName } : {}),
    ...(args !== undefined ? { arguments: args } : {}),
  }
}

/**
 * The distinct pending approvals of a list of run items (`tool_approval_item`s; items of another `type` are
 * passed over), in order, each call once (K5). `bad` receives the number of items without an object `rawItem`.
 * @internal
 */
export const pendingFromList = (list: ReadonlyArray<unknown>, bad?: (n: number) => void): Array<Pending> => {
  const out: Array<Pending> = []
  const seen = new Set<string>()
  let skipped = 0
  for (let i = 0; i < list.length; i++) {
    const item = list[i]
    if (!isObject(item)) {
      skipped++
      continue
    }
    const type = get(item, 'type')
    if (type !== undefined && type !== 'tool_approval_item') continue
    const p = pendingOf(item, i)
    if (p === undefined) {
      skipped++
      continue
    }
    if (seen.has(p.id)) continue
    seen.add(p.id)
    out.push(p)
  }
  if (skipped > 0) bad?.(skipped)
  return out
}

/** The name of an agent (`Agent` instance or its JSON `{ name }`), or `undefined`. @internal */
export const agentName = (agent: unknown): string | undefined => str(get(agent, 'name'))

/**
 * A plain JSON copy of `v` (for the translator's state), or `undefined` when it cannot be written as JSON
 * (a cycle, a `BigInt`, nesting too deep for `JSON.stringify`).
 * @internal
 */
export const jsonCopy = (v: unknown): unknown => {
  if (v === undefined) return undefined
  try {
    const text = JSON.stringify(v)
    return text === undefined ? undefined : (JSON.parse(text) as unknown)
  } catch {
    return undefined
  }
}
