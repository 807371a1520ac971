/**
 * swiftide (Rust, seed 004): `StopReason` in serde's externally tagged JSON, to and from `RunEnding`, and
 * the stop payload as a run's structured output.
 *
 * Unit variants are strings (`"NoNewMessages"`, `"Error"`); the others are one-key objects
 * (`{ "RequestedByTool": [toolCall, payload] }`, `{ "AgentFailed": payload }`, `{ "ToolCallsOverLimit": toolCall }`,
 * `{ "FeedbackRequired": { "tool_call", "payload" } }`, `{ "Other": "text" }`). Payloads changed across
 * releases: none in 0.27 (`RequestedByTool(ToolCall)`), a string in 0.30, any JSON value later, and
 * `AgentFailed` with a custom schema carries a JSON-encoded string. Every form is read.
 *
 * @module
 */
import type * as E from 'fp-ts/lib/Either.js'
import type { ProtocolError } from '../core/ProtocolError.js'
import type { PendingItem, RunEnding } from '../core/RunEnding.js'
import { Malformed, decodeWith, isRecord, join, optString, own, parseJsonText, reqString, toJsonText, unrecognized } from './shared.js'

/** A swiftide `ToolCall` as serde writes it: `args` is the JSON text of the arguments, or `null`. @since 0.1.0 @category Vocabularies */
export interface SwiftideToolCall {
  readonly id: string
  readonly name: string
  readonly args?: string | null
}

/** A unit variant this library does not know, kept as written (`StopReason` is `#[non_exhaustive]`). @since 0.1.0 @category Vocabularies */
export type SwiftideOtherVariant = string & { readonly __swiftideOther?: never }

/**
 * swiftide's `StopReason` in serde JSON (seed 004). Payloads are `unknown`: `null` (None), a string (0.30,
 * `StopWithArgs::default()`'s `output`), or any JSON value (a custom schema's arguments).
 * @since 0.1.0
 * @category Vocabularies
 */
export type SwiftideStopReason =
  | 'NoNewMessages'
  | 'Error'
  | { readonly RequestedByTool: readonly [SwiftideToolCall, unknown] | SwiftideToolCall }
  | { readonly AgentFailed: unknown }
  | { readonly ToolCallsOverLimit: SwiftideToolCall }
  | { readonly FeedbackRequired: { readonly tool_call: SwiftideToolCall; readonly payload?: unknown } }
  | { readonly Other: string }
  | SwiftideOtherVariant

const BASE = 'stopReason'
/** swiftide's default `StopReason`, `Other("No reason provided")`: written for a stop without a reason. */
const NO_REASON = 'No reason provided'
/** The `limit` a `ToolCallsOverLimit` gives: one call failed more than `tool_retry_limit` times. */
const RETRY_LIMIT = { kind: 'limit', reason: 'tool_retry_limit', field: 'tool_retry_limit' } as const

interface ToolCallFields {
  readonly id: string
  readonly name: string
  readonly args?: string
}

const readToolCall = (u: unknown, path: string): ToolCallFields => {
  if (!isRecord(u)) throw new Malformed(path, 'object')
  const id = reqString(u, 'id', path)
  const name = reqString(u, 'name', path)
  const args = optString(u, 'args', path)
  return args !== undefined ? { id, name, args } : { id, name }
}

/** The single variant key of an externally tagged object, or malformed. */
const variantOf = (value: object): { readonly tag: string; readonly inner: unknown } => {
  const keys = Object.keys(value)
  const tag = keys[0]
  if (keys.length !== 1 || tag === undefined) throw new Malformed(BASE, 'a string or an object with one variant key')
  return { tag, inner: own(value, tag) }
}

const unitOrNull = (inner: unknown, tag: string): void => {
  if (inner !== null && inner !== undefined) throw new Malformed(join(BASE, tag), 'null')
}

const read = (value: unknown): RunEnding => {
  if (typeof value === 'string') {
    if (value === 'NoNewMessages') return { kind: 'answered' }
    if (value === 'Error') return { kind: 'failed', reason: 'error' }
    return unrecognized(value)
  }
  if (!isRecord(value)) throw new Malformed(BASE, 'a string or an object with one variant key')
  const { tag, inner } = variantOf(value)
  const path = join(BASE, tag)
  switch (tag) {
    case 'NoNewMessages':
      unitOrNull(inner, tag)
      return { kind: 'answered' }
    case 'Error':
      unitOrNull(inner, tag)
      return { kind: 'failed', reason: 'error' }
    case 'RequestedByTool':
      if (Array.isArray(inner)) {
        if (inner.length !== 1 && inner.length !== 2) throw new Malformed(path, '[toolCall, payload]')
        readToolCall(inner[0], join(path, 0))
      } else {
        readToolCall(inner, path)
      }
      return { kind: 'answered' }
    case 'AgentFailed':
      return typeof inner === 'string' ? { kind: 'failed', reason: 'agent_failed', error: { message: inner } } : { kind: 'failed', reason: 'agent_failed' }
    case 'ToolCallsOverLimit':
      readToolCall(inner, path)
      return { ...RETRY_LIMIT }
    case 'FeedbackRequired': {
      if (!isRecord(inner)) throw new Malformed(path, 'object')
      const call = readToolCall(own(inner, 'tool_call'), join(path, 'tool_call'))
      const payload = own(inner, 'payload')
      const item: PendingItem = {
        id: call.id,
        kind: 'approval',
        toolName: call.name,
        ...(call.args !== undefined ? { arguments: parseJsonText(call.args) } : {}),
        ...(typeof payload === 'string' ? { reason: payload } : {}),
      }
      return { kind: 'suspended', pending: [item] }
    }
    case 'Other':
      if (typeof inner !== 'string') throw new Malformed(path, 'string')
      return { kind: 'stopped', by: 'hook', reason: inner }
    default:
      return unrecognized(value)
  }
}

/**
 * Reads a swiftide `StopReason` (seed 004).
 *
 * - `"NoNewMessages"` → `answered` (a text answer; also the completion `limit`, which swiftide does not
 *   tell apart); `{ RequestedByTool: [call, payload] }` (or 0.27's `{ RequestedByTool: call }`) → `answered`,
 *   the payload being the run's structured output ({@link swiftideStructuredOutput}).
 * - `{ AgentFailed: payload }` → `failed` `agent_failed`, a string payload (plain or JSON-encoded) as
 *   `error.message`; `"Error"` → `failed` `error`.
 * - `{ ToolCallsOverLimit: call }` → `limit` `tool_retry_limit` (field `tool_retry_limit`).
 * - `{ FeedbackRequired: { tool_call, payload } }` → `suspended` with one `approval` item: the call's `id`,
 *   `name` as `toolName`, `args` as `arguments` (parsed when JSON), a string payload as `reason`.
 * - `{ Other: text }` → `stopped` by `hook` with the text.
 * - An unknown unit variant (a string) or variant key → `failed` `unrecognized` with the value in `raw`.
 * Unit variants are also read in map form (`{ "Error": null }`).
 *
 * **Fails with** `ProtocolError` kind `event`: a value that is neither a string nor a one-key object
 * (`stopReason`), a tool call that is not `{ id: string, name: string, args?: string | null }`
 * (`stopReason.RequestedByTool.0`, `stopReason.FeedbackRequired.tool_call.id`, …), a `RequestedByTool`
 * array of another length, an `Other` that is not a string (`stopReason.Other`).
 * @since 0.1.0
 */
export const swiftideEndingFromEither: (value: unknown) => E.Either<ProtocolError, RunEnding> = decodeWith({ kind: 'vocabulary', root: BASE }, read)

/**
 * The structured output a swiftide `StopReason` carries, or `null`.
 *
 * `RequestedByTool`'s payload as given: `null` for the default `stop` tool, the `output` string of
 * `StopWithArgs::default()`, the argument object of a custom schema. `AgentFailed`'s payload: a
 * JSON-encoded string holding an object or an array (a custom failure schema) is parsed; another string is
 * the failure message, not structured output (`null`); a non-string value is returned as given. Every other
 * variant, and a malformed value, gives `null`. Never throws.
 * @since 0.1.0
 */
export const swiftideStructuredOutput = (value: unknown): unknown => {
  try {
    if (!isRecord(value)) return null
    const keys = Object.keys(value)
    const tag = keys[0]
    if (keys.length !== 1 || tag === undefined) return null
    const inner = own(value, tag)
    if (tag === 'RequestedByTool') {
      return Array.isArray(inner) && inner.length === 2 ? (inner[1] ?? null) : null
    }
    if (tag === 'AgentFailed') {
      if (typeof inner === 'string') {
        const parsed = parseJsonText(inner)
        return typeof parsed === 'object' && parsed !== null ? parsed : null
      }
      return inner ?? null
    }
    return null
  } catch {
    return null
  }
}

const writeToolCall = (p: PendingItem | undefined): SwiftideToolCall => {
  const args = p?.arguments !== undefined ? toJsonText(p.arguments) : undefined
  return { id: p?.id ?? '', name: p?.toolName ?? '', args: args ?? null }
}

const KNOWN_UNITS = new Set(['NoNewMessages', 'Error'])

/**
 * Writes a `RunEnding` as a swiftide `StopReason`, or `null` where swiftide's `stop_reason()` would be
 * `None` or has no term.
 *
 * - `answered` → `"NoNewMessages"` (a text answer: the ending holds no tool call or payload).
 * - `failed` `agent_failed` → `{ AgentFailed: error.message ?? null }`; `failed` `unrecognized` with a string
 *   `raw` that is not a known unit variant → that string; any other `failed` → `"Error"`.
 * - `limit` → `{ ToolCallsOverLimit: { id: '', name: '', args: null } }` (the ending holds no tool call;
 *   swiftide's completion `limit` ends as `NoNewMessages`, which would read as answered).
 * - `suspended` → `FeedbackRequired` for the first pending item (`id`, `toolName` as `name`, `arguments`
 *   as JSON text in `args`, `reason` as `payload`); swiftide carries one call.
 * - `stopped` → `{ Other: reason ?? 'No reason provided' }` (swiftide's default reason); `by` is not carried.
 * - `blocked` → `{ Other: reason ?? guardrail ?? 'blocked' }`: swiftide has no policy block, a hook stops
 *   the agent.
 * - `cut_off` → `null` (swiftide cannot observe truncation); `unfinished` → `null` (`None`).
 *
 * Never throws.
 * @since 0.1.0
 */
export const swiftideEndingTo = (ending: RunEnding): SwiftideStopReason | null => {
  switch (ending.kind) {
    case 'answered':
      return 'NoNewMessages'
    case 'failed':
      if (ending.reason === 'agent_failed') return { AgentFailed: ending.error?.message ?? null }
      if (ending.reason === 'unrecognized' && typeof ending.raw === 'string' && !KNOWN_UNITS.has(ending.raw)) {
        return ending.raw
      }
      return 'Error'
    case 'limit':
      return { ToolCallsOverLimit: writeToolCall(undefined) }
    case 'suspended': {
      const first = ending.pending[0]
      return { FeedbackRequired: { tool_call: writeToolCall(first), payload: first?.reason ?? null } }
    }
    case 'stopped':
      return { Other: ending.reason ?? NO_REASON }
    case 'blocked':
      return { Other: ending.reason ?? ending.guardrail ?? 'blocked' }
    case 'cut_off':
    case 'unfinished':
      return null
  }
}
