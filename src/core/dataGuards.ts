/**
 * Hand-written guards of the `data` of the most frequent native event types, each accepting exactly what its
 * codec's `.is()` in `events.ts` accepts (the codec stays the definition, and explains a failure with its path).
 *
 * Why: a codec's `.is()` is a generic loop over its fields (`o[key]` with the key from an array), which V8 runs
 * as a megamorphic keyed load per field; these read each field by name, so every load is monomorphic, and they
 * allocate nothing. On a replay of a million native events the data check went from ~0.25 µs to a few tens of
 * ns per event. `test/core/dataGuards.test.ts` checks each guard against its codec on generated values.
 *
 * @module
 * @internal
 */

import { isObject as isObj, isTokenCount } from './values.js'

/** `Finite` (events.ts), or absent. */
const optFinite = (v: unknown): boolean => v === undefined || (typeof v === 'number' && Number.isFinite(v))

/** `NonNegative` (events.ts): a finite number in [0, MAX_SAFE_INTEGER]. */
const nonNegative = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER

const optNonNegative = (v: unknown): boolean => v === undefined || nonNegative(v)
const optString = (v: unknown): boolean => v === undefined || typeof v === 'string'

/** `TurnStep`: `turn/start`, `step/start`, `step/end`. */
const turnStep = (d: unknown): boolean => isObj(d) && optFinite(d['turn']) && optFinite(d['step'])

/** `AssistantChunkData`: `chunk` is `t.unknown` (anything, absent too). */
const assistantChunk = (d: unknown): boolean => isObj(d) && optFinite(d['turn']) && optFinite(d['step'])

/** `TokenCount` (events.ts), or absent. */
const optTokens = (v: unknown): boolean => v === undefined || isTokenCount(v)

/** `NativeUsage`. */
const nativeUsage = (u: unknown): boolean =>
  isObj(u) &&
  isTokenCount(u['inputTokens']) &&
  isTokenCount(u['outputTokens']) &&
  optTokens(u['cacheReadTokens']) &&
  optTokens(u['cacheWriteTokens']) &&
  optTokens(u['reasoningTokens'])

/** `arrayOf(ContentBlock)`: an array of plain objects. */
const contentBlocks = (c: unknown): boolean => {
  if (!Array.isArray(c)) return false
  for (let i = 0; i < c.length; i++) if (!isObj(c[i])) return false
  return true
}

/** `AssistantMessageData`. */
const assistantMessage = (d: unknown): boolean => {
  if (!isObj(d)) return false
  const m = d['message']
  if (!isObj(m) || !contentBlocks(m['content'])) return false
  if (!optFinite(d['turn']) || !optFinite(d['step'])) return false
  const usage = d['usage']
  if (usage !== undefined && !nativeUsage(usage)) return false
  const interrupted = d['interrupted']
  return (
    optString(d['model']) &&
    optNonNegative(d['costUsd']) &&
    (interrupted === undefined || typeof interrupted === 'boolean') &&
    optString(d['messageId']) &&
    optString(d['stopReason'])
  )
}

/** `ToolCallData`: `arguments` is `t.unknown`. */
const toolCall = (d: unknown): boolean =>
  isObj(d) && typeof d['callId'] === 'string' && typeof d['name'] === 'string' && optFinite(d['turn']) && optFinite(d['step'])

/** `ToolResultData`: `message` is `t.unknown`; `error` a struct of optional name, code (string or number), message. */
const toolResult = (d: unknown): boolean => {
  if (!isObj(d) || typeof d['callId'] !== 'string' || !optFinite(d['turn']) || !optFinite(d['step'])) return false
  const e = d['error']
  if (e === undefined) return true
  if (!isObj(e)) return false
  const code = e['code']
  return optString(e['name']) && (code === undefined || typeof code === 'string' || typeof code === 'number') && optString(e['message'])
}

/** `SessionStatusData`: `status` is `idle` or `running`. */
const sessionStatus = (d: unknown): boolean => {
  if (!isObj(d)) return false
  const s = d['status']
  return s === 'idle' || s === 'running'
}

/** `InboxSplicedData`: `inserted` is an array of objects with a string `id`. */
const inboxSpliced = (d: unknown): boolean => {
  if (!isObj(d)) return false
  const ins = d['inserted']
  if (!Array.isArray(ins)) return false
  for (let i = 0; i < ins.length; i++) {
    const m = ins[i] as unknown
    if (!isObj(m) || typeof m['id'] !== 'string') return false
  }
  return true
}

/**
 * `TurnEndData`: `reason` is `ReasonShape` (an object with a string `kind`; the decoder checks the fields of the
 * reason kinds that carry some before this); optional `turn`, `step` (finite), `finishReason` (string or `null`),
 * `inferred` (boolean), `text` (string), `durationMs` (non-negative); `structuredOutput` is `t.unknown`.
 */
const turnEnd = (d: unknown): boolean => {
  if (!isObj(d)) return false
  const r = d['reason']
  if (!isObj(r) || typeof r['kind'] !== 'string') return false
  if (!optFinite(d['turn']) || !optFinite(d['step'])) return false
  const fr = d['finishReason']
  const inferred = d['inferred']
  return (
    (fr === undefined || fr === null || typeof fr === 'string') &&
    (inferred === undefined || typeof inferred === 'boolean') &&
    optString(d['text']) &&
    optNonNegative(d['durationMs'])
  )
}

/** `SubagentData` (`subagent/started`, `subagent/finished`): a string `childSessionId`; optional string ids and stop reason. */
const subagent = (d: unknown): boolean =>
  isObj(d) && typeof d['childSessionId'] === 'string' && optString(d['parentSessionId']) && optString(d['stopReason']) && optString(d['previousSessionId'])

/**
 * The guard of a frequent event type's `data`, equal to `dataCodecs[type].is`, or `undefined` for the other
 * types (whose codec is then asked). A `switch` ordered by how often each type occurs.
 * @internal
 */
export const dataGuardOf = (type: string): ((data: unknown) => boolean) | undefined => {
  switch (type) {
    case 'assistant/chunk':
      return assistantChunk
    case 'assistant/message':
      return assistantMessage
    case 'tool/call':
      return toolCall
    case 'tool/result':
      return toolResult
    case 'step/start':
    case 'step/end':
    case 'turn/start':
      return turnStep
    case 'turn/end':
      return turnEnd
    case 'session/status':
      return sessionStatus
    case 'agent/inbox/spliced':
      return inboxSpliced
    case 'subagent/started':
    case 'subagent/finished':
      return subagent
    default:
      return undefined
  }
}

/** `isSeq` of decodeEvent.ts: a non-negative integer. */
const isSeq = (u: unknown): boolean => typeof u === 'number' && Number.isInteger(u) && u >= 0

/** `isTime` of decodeEvent.ts: finite epoch milliseconds, or a string. */
const isTime = (u: unknown): boolean => (typeof u === 'number' && Number.isFinite(u)) || typeof u === 'string'

/**
 * `true` only when `o` is a bare native event that `decodeEventRaw` hands on unchanged, by identity: an object
 * with a string `type` (one with a data guard here, other than `turn/end`, whose reason the decoder checks with its
 * table), a string `sessionId`, a `data` its guard accepts, a valid `seq` and `time` when present, and no `line`
 * or `recordType`. `false` means nothing: the caller asks the decoder (which explains any problem). One pass over
 * the envelope, each field read once — the native translator's per-event check. Never throws on a JSON value.
 * `test/core/dataGuards.prop.test.ts` checks that the decoder returns every value this accepts as it is.
 * @internal
 */
export const isPlainEvent = (o: unknown): boolean => {
  if (!isObj(o)) return false
  const type = o['type']
  if (typeof type !== 'string' || typeof o['sessionId'] !== 'string') return false
  const data = o['data']
  if (data === undefined) return false
  const seq = o['seq']
  if (seq !== undefined && !isSeq(seq)) return false
  const time = o['time']
  if (time !== undefined && !isTime(time)) return false
  if (o['line'] !== undefined || o['recordType'] !== undefined) return false
  switch (type) {
    case 'assistant/chunk':
      return assistantChunk(data)
    case 'turn/end':
      return false
    default:
      return dataGuardOf(type)?.(data) === true
  }
}
