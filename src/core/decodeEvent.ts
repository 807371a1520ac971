/**
 * The boundary of the native protocol: `unknown` → `Either<ProtocolError, SessionEvent>` (SPEC §4).
 *
 * Only four things are protocol errors: a value that is not an event object or has no string `type`, a
 * `turn/end` whose `reason` is missing or whose `kind` is not a string, and a known reason kind whose
 * fields have the wrong type (a non-JSON line is the JSONL layer's). Every other oddity — an unknown type,
 * a known event with fields of unexpected types, a bad envelope, a JSON-RPC request or response — decodes to
 * an `IgnoredEvent` that the fold turns into a diagnostic, so nothing is lost and the protocol can grow.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import type * as t from 'io-ts'
import { dataGuardOf } from './dataGuards.js'
import { dataCodecs, reasonCodecs, type IgnoredEvent, type SessionEvent } from './events.js'
import { firstError as firstErrorOf } from './firstError.js'
import { plainData } from './plainData.js'
import { ioTsExpected, ioTsPath, ProtocolError } from './ProtocolError.js'
import { isObject } from './values.js'

const ignored = (
  originalType: string,
  why: IgnoredEvent['data']['why'],
  sessionId: string | null,
  path?: string,
  expected?: string,
  seq?: number,
): SessionEvent =>
  ({
    type: 'run-outcome/ignored',
    sessionId,
    // a valid seq is kept, so a re-delivered unknown or malformed event is dropped like any other
    ...(seq !== undefined ? { seq } : {}),
    data: {
      originalType,
      why,
      ...(path !== undefined ? { path } : {}),
      ...(expected !== undefined ? { expected } : {}),
    },
  }) as SessionEvent

const firstPath = (errors: t.Errors): { path: string; expected: string } => {
  const e = errors[0]
  return e === undefined ? { path: '', expected: 'a valid value' } : { path: ioTsPath(e.context), expected: ioTsExpected(e.context) }
}

const joinPath = (prefix: string, rest: string): string => (rest === '' ? prefix : `${prefix}.${rest}`)

const turnEndError = (index: number, path: string, expected: string, errors?: t.Errors): ProtocolError =>
  new ProtocolError({ kind: 'turn-end', index, path, expected, eventType: 'turn/end', ...(errors ? { errors } : {}) })

/**
 * SPEC §4's check of a `turn/end` reason: an object with a string `kind`, and, for a kind of the table that
 * carries fields, fields of the right types. Paths are as inside the event's `data` (`reason.kind`,
 * `reason.error.message`). Returns the `ProtocolError` (kind `turn-end`, at `index`), or `undefined` when valid.
 * Shared by the native decoder and the `dsh` vocabulary.
 * @since 0.1.0
 */
export const validateTurnEndReason = (reason: unknown, index: number): ProtocolError | undefined => {
  if (!isObject(reason)) return turnEndError(index, 'reason', 'an object with a string kind')
  const kind = reason['kind']
  if (typeof kind !== 'string') return turnEndError(index, 'reason.kind', 'string')
  const codec = Object.hasOwn(reasonCodecs, kind) ? reasonCodecs[kind] : undefined
  if (codec !== undefined && !codec.is(reason)) {
    const e = firstErrorOf(codec, reason)
    const errors = e === undefined ? [] : [e]
    const { path, expected } = firstPath(errors)
    return turnEndError(index, joinPath('reason', path), expected, errors)
  }
  return undefined
}

const validateTurnEnd = (data: unknown, index: number): ProtocolError | undefined =>
  isObject(data) ? validateTurnEndReason(data['reason'], index) : turnEndError(index, 'data', 'an object with a reason')

const isSeq = (u: unknown): u is number => typeof u === 'number' && Number.isInteger(u) && u >= 0
// 0: a fact stated between two records (a translator's run boundary or inferred ending)
const isLine = (u: unknown): u is number => typeof u === 'number' && Number.isSafeInteger(u) && u >= 0
const isTime = (u: unknown): u is number | string => (typeof u === 'number' && Number.isFinite(u)) || typeof u === 'string'

/**
 * The codec of a known event type. A `switch` ordered by how often each type occurs (text deltas first):
 * comparing the type with a few literals is cheaper than hashing the freshly parsed string for a Map lookup.
 */
const codecOf = (type: string): t.Mixed | undefined => {
  switch (type) {
    case 'assistant/chunk':
      return dataCodecs['assistant/chunk']
    case 'assistant/message':
      return dataCodecs['assistant/message']
    case 'tool/call':
      return dataCodecs['tool/call']
    case 'tool/result':
      return dataCodecs['tool/result']
    case 'step/start':
      return dataCodecs['step/start']
    case 'step/end':
      return dataCodecs['step/end']
    case 'turn/start':
      return dataCodecs['turn/start']
    case 'turn/end':
      return dataCodecs['turn/end']
    case 'session/status':
      return dataCodecs['session/status']
    case 'agent/inbox/spliced':
      return dataCodecs['agent/inbox/spliced']
    case 'user/message':
      return dataCodecs['user/message']
    case 'subagent/started':
      return dataCodecs['subagent/started']
    case 'subagent/finished':
      return dataCodecs['subagent/finished']
    case 'source/record':
      return dataCodecs['source/record']
    case 'usage/total':
      return dataCodecs['usage/total']
    case 'usage/add':
      return dataCodecs['usage/add']
    case 'usage/set':
      return dataCodecs['usage/set']
    case 'source/diagnostic':
      return dataCodecs['source/diagnostic']
    case 'stream/error':
      return dataCodecs['stream/error']
    case 'permission/denied':
      return dataCodecs['permission/denied']
    case 'session/started':
      return dataCodecs['session/started']
    case 'turn/cancel':
      return dataCodecs['turn/cancel']
    default:
      return undefined
  }
}

/** Decodes a bare event `{ type, sessionId?, seq?, time?, data }`; `sessionOverride` comes from a wrapper. */
const decodeBare = (o: Record<string, unknown>, index: number, sessionOverride: string | null | undefined, typePath: string): SessionEvent | ProtocolError => {
  const type = o['type']
  if (typeof type !== 'string') {
    return new ProtocolError({ kind: 'event', index, path: typePath, expected: 'string' })
  }
  const data = o['data'] === undefined ? {} : o['data']
  if (type === 'run-outcome/ignored' && isObject(data) && typeof data['originalType'] === 'string') {
    // an event this decoder already produced: pass it through unchanged
    return o as unknown as SessionEvent
  }
  if (type === 'turn/end') {
    const bad = validateTurnEnd(o['data'], index)
    if (bad !== undefined) return bad
  }
  const sid = sessionOverride !== undefined ? sessionOverride : o['sessionId']
  if (sid !== undefined && sid !== null && typeof sid !== 'string') return ignored(type, 'envelope', null, 'sessionId', 'string')
  const sessionId = typeof sid === 'string' ? sid : null
  const seq = o['seq']
  if (seq !== undefined && !isSeq(seq)) return ignored(type, 'envelope', sessionId, 'seq', 'a non-negative integer')
  const time = o['time']
  if (time !== undefined && !isTime(time)) return ignored(type, 'envelope', sessionId, 'time', 'epoch milliseconds or an ISO-8601 string')
  const line = o['line']
  if (line !== undefined && !isLine(line)) return ignored(type, 'envelope', sessionId, 'line', 'a non-negative integer')
  const recordType = o['recordType']
  if (recordType !== undefined && typeof recordType !== 'string') return ignored(type, 'envelope', sessionId, 'recordType', 'string')
  // the frequent types have a guard that reads each field by name (dataGuards.ts); the codec explains a failure
  const guard = dataGuardOf(type)
  if (guard === undefined || !guard(data)) {
    const codec = codecOf(type)
    if (codec === undefined) return ignored(type, 'unknown-type', sessionId, undefined, undefined, seq as number | undefined)
    if (guard !== undefined || !codec.is(data)) {
      const e = firstErrorOf(codec, data)
      const { path, expected } = firstPath(e === undefined ? [] : [e])
      return ignored(type, 'malformed', sessionId, path, expected, seq as number | undefined)
    }
  }
  // The common case — a bare event that names its session and carries its data — is already a SessionEvent:
  // hand it on by identity (nothing downstream stores or changes it) instead of copying it per event.
  if (sessionOverride === undefined && typeof sid === 'string' && o['data'] !== undefined) return o as unknown as SessionEvent
  const ev: { type: string; sessionId: string | null; seq?: number; time?: number | string; line?: number; recordType?: string; data: unknown } = {
    type,
    sessionId,
    data,
  }
  if (seq !== undefined) ev.seq = seq
  if (time !== undefined) ev.time = time
  if (line !== undefined) ev.line = line
  if (recordType !== undefined) ev.recordType = recordType
  return ev as SessionEvent
}

/**
 * Decodes one native event (SPEC §4): a bare event, or a `session.event` / `session.status` /
 * `subagent.started` / `subagent.finished` JSON-RPC notification. `index` is the event's 0-based position,
 * reported in errors.
 *
 * **Fails with** `ProtocolError` kind `event` (not an object; no string `type`) or `turn-end` (missing
 * `reason`, non-string `reason.kind`, a known kind with fields of the wrong type; `path` such as `reason.kind`).
 * Never throws.
 * @since 0.1.0
 * @category Native protocol
 */
export const decodeEvent = (input: unknown, index: number): E.Either<ProtocolError, SessionEvent> => {
  const r = decodeUntrusted(input, index)
  return r instanceof ProtocolError ? E.left(r) : E.right(r)
}

/**
 * {@link decodeEventRaw} of a value handed in by a caller (not parsed from JSON here): decoded from its plain copy
 * ({@link plainData}), so each field is read once — a getter cannot pass validation and then read differently
 * in the fold — and a field whose read throws (a throwing getter, a `Proxy` trap, a revoked proxy), or an event
 * of more than `MAX_EVENT_VALUES` values (a sparse array of length 2³²−1), is a `ProtocolError` of kind
 * `event` naming its path. Never throws.
 * @internal
 */
export const decodeUntrusted = (input: unknown, index: number): SessionEvent | ProtocolError => {
  if (typeof input !== 'object' || input === null) return decodeEventRaw(input, index)
  const c = plainData(input)
  if ('problem' in c) return new ProtocolError({ kind: 'event', index, path: c.problem.path, expected: c.problem.expected })
  return decodeEventRaw(c.value, index)
}

/**
 * {@link decodeEvent} without the `Either` wrapper (no allocation per event): the event, or the `ProtocolError`.
 * The fold's hot path. Never throws.
 * @internal
 */
export const decodeEventRaw = (input: unknown, index: number): SessionEvent | ProtocolError => {
  if (!isObject(input)) return new ProtocolError({ kind: 'event', index, path: '', expected: 'an event object' })
  const method = input['method']
  if (typeof method === 'string' && input['type'] === undefined) {
    const params = input['params']
    if (method === 'session.event' && isObject(params)) {
      const event = params['event']
      if (!isObject(event)) return new ProtocolError({ kind: 'event', index, path: 'params.event', expected: 'an event object' })
      const sid = params['sessionId']
      return decodeBare(event, index, typeof sid === 'string' ? sid : null, 'params.event.type')
    }
    if (method === 'session.status' && isObject(params)) {
      const sid = params['sessionId']
      return decodeBare({ type: 'session/status', data: { status: params['status'] } }, index, typeof sid === 'string' ? sid : null, 'type')
    }
    if ((method === 'subagent.started' || method === 'subagent.finished') && isObject(params)) {
      const parent = params['parentSessionId']
      const type = method === 'subagent.started' ? 'subagent/started' : 'subagent/finished'
      return decodeBare({ type, data: params }, index, typeof parent === 'string' ? parent : null, 'type')
    }
    return ignored(method, 'jsonrpc', null)
  }
  if (
    input['type'] === undefined &&
    (input['jsonrpc'] !== undefined || (input['id'] !== undefined && (input['result'] !== undefined || input['error'] !== undefined)))
  ) {
    return ignored('jsonrpc', 'jsonrpc', null)
  }
  return decodeBare(input, index, undefined, 'type')
}
