/**
 * The JSON-RPC envelope of an ACP log line, and the pairing of responses with the requests they answer.
 *
 * **Line shapes.** A bare JSON-RPC message (`{jsonrpc, id?, method?, params?, result?, error?}`), or a capture
 * wrapper holding it under `message` or `msg`, with an optional direction (`direction` or `dir`) and time
 * (`timestamp`, `ts` or `time`: ISO-8601 text, or epoch milliseconds). Agent-side captures also write a session
 * update without its JSON-RPC envelope, as the bare `SessionNotification` `{sessionId, update: {sessionUpdate,
 * …}}` (bare or wrapped): it is read as the `session/update` notification it is.
 *
 * **Pairing.** A response is paired with an open request of the same `id` (numbers and strings never collide):
 * the other direction when both have one, preferred by the shape of the result (`stopReason` → a
 * `session/prompt`, `outcome` → a `session/request_permission`, anything else → neither), else the most recent.
 * At most {@link MAX_PENDING_REQUESTS} open requests are kept; past that, the oldest ones no response can still
 * use (they belong to no run, or to a run already closed or emitted) are dropped.
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import { isObject, str, type Obj } from '../json.js'

/** Open requests without a response kept for pairing; past this, the oldest ones the reader does not need are dropped. @internal */
export const MAX_PENDING_REQUESTS = 10_000

/** A message unwrapped from its capture line. @internal */
export interface Envelope {
  readonly msg: Obj
  readonly dir: string | null
  readonly time: string | number | undefined
}

const isJsonRpcShaped = (v: Obj): boolean => v['jsonrpc'] !== undefined || typeof v['method'] === 'string' || ('id' in v && ('result' in v || 'error' in v))

const timeOf = (v: Obj): string | number | undefined => {
  const t = v['timestamp'] ?? v['ts'] ?? v['time']
  if (typeof t === 'string') return t
  if (typeof t === 'number' && Number.isFinite(t) && t > 1e11) return t
  return undefined
}

const dirOf = (v: Obj): string | null => str(v['direction']) ?? str(v['dir']) ?? null

/** `true` for a bare `SessionNotification`: a string `sessionId` and an `update` with a string `sessionUpdate`. */
const isBareUpdate = (v: Obj): boolean => typeof v['sessionId'] === 'string' && isObject(v['update']) && typeof v['update']['sessionUpdate'] === 'string'

/** The `session/update` notification a bare `SessionNotification` is. */
const asNotification = (v: Obj): Obj => ({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: v['sessionId'], update: v['update'] } })

/** The JSON-RPC message of a line, bare or wrapped, or `undefined` when the line holds none. @internal */
export const unwrap = (v: unknown): Envelope | undefined => {
  if (!isObject(v)) return undefined
  const inner = isObject(v['message']) ? v['message'] : isObject(v['msg']) ? v['msg'] : undefined
  if (inner !== undefined && isJsonRpcShaped(inner)) return { msg: inner, dir: dirOf(v), time: timeOf(v) }
  if (isJsonRpcShaped(v)) return { msg: v, dir: dirOf(v), time: timeOf(v) }
  if (inner !== undefined && isBareUpdate(inner)) return { msg: asNotification(inner), dir: dirOf(v), time: timeOf(v) }
  if (isBareUpdate(v)) return { msg: asNotification(v), dir: dirOf(v), time: timeOf(v) }
  return undefined
}

/** The key of a JSON-RPC id (numbers and strings never collide), or `undefined` for an invalid id. @internal */
export const idKey = (id: unknown): string | undefined => {
  if (typeof id === 'number' && Number.isFinite(id)) return `n${id}`
  if (typeof id === 'string') return `s${id}`
  return undefined
}

/** `0.5 + 0.5 × share` of the sniffed objects that are ACP messages, 0 when none is. @internal */
export const sniffAcp = (values: ReadonlyArray<unknown>): number => {
  let objects = 0
  let hits = 0
  for (const v of values) {
    if (!isObject(v)) continue
    objects++
    const e = unwrap(v)
    if (e === undefined) continue
    const m = e.msg
    const method = m['method']
    if (typeof method === 'string') {
      if (method.startsWith('session/') || method.startsWith('fs/') || method.startsWith('terminal/')) hits++
      else if (method === 'initialize' && isObject(m['params']) && typeof m['params']['protocolVersion'] === 'number') hits++
      continue
    }
    const r = m['result']
    if (isObject(r) && (typeof r['stopReason'] === 'string' || isObject(r['agentCapabilities']) || typeof r['sessionId'] === 'string')) hits++
  }
  return objects === 0 || hits === 0 ? 0 : 0.5 + 0.5 * (hits / objects)
}

/**
 * An open request, awaiting its response: the method the translator cares about (`other` for the rest), its
 * direction, and what the response will need (the run it belongs to, by number; a permission's number; the
 * session a `session/load` / `resume` / `fork` names). Plain JSON.
 * @internal
 */
export interface PendingRequest {
  readonly method: string
  readonly dir: string | null
  readonly run?: number
  readonly permission?: number
  readonly sessionId?: string
}

/**
 * The open requests by `#`-prefixed id key (insertion order = order of first use), and their count; `scanAt`
 * is the count at which the next overflow scan runs (absent: past {@link MAX_PENDING_REQUESTS}).
 * @internal
 */
export interface Pairing {
  pending: Record<string, Array<PendingRequest>>
  count: number
  overflowNoted: boolean
  scanAt?: number
}

const PendingRequestCodec = t.intersection([
  t.type({ method: t.string, dir: t.union([t.string, t.null]) }),
  t.partial({ run: t.number, permission: t.number, sessionId: t.string }),
])

/** io-ts codec of {@link Pairing}. @internal */
export const PairingCodec: t.Type<Pairing, unknown> = t.intersection([
  t.type({
    pending: t.record(t.string, t.array(PendingRequestCodec)),
    count: t.number,
    overflowNoted: t.boolean,
  }),
  t.partial({ scanAt: t.number }),
]) as unknown as t.Type<Pairing, unknown>

/** No open request. @internal */
export const newPairing = (): Pairing => ({ pending: {}, count: 0, overflowNoted: false })

/**
 * Remembers an open request under `key`. Past {@link MAX_PENDING_REQUESTS}, drops the oldest requests that
 * `needed` says no response can still use (down to half the cap) and returns `true` the first time that happens
 * (the caller notes it). When the requests still needed keep the count above half the cap, the next scan waits
 * until the count has doubled, so each request costs O(1) amortised whatever the mix (a scan used to run on
 * every request once all of them belonged to runs: quadratic). Memory: at most the cap, or twice the requests
 * still needed.
 * @internal
 */
export const track = (p: Pairing, key: string, req: PendingRequest, needed: (r: PendingRequest) => boolean): boolean => {
  const k = `#${key}`
  const list = p.pending[k]
  if (list === undefined) p.pending[k] = [req]
  else list.push(req)
  p.count++
  if (p.count <= Math.max(MAX_PENDING_REQUESTS, p.scanAt ?? 0)) return false
  for (const kk of Object.keys(p.pending)) {
    const l = p.pending[kk] as Array<PendingRequest>
    const keep = l.filter(needed)
    p.count -= l.length - keep.length
    if (keep.length === 0) delete p.pending[kk]
    else if (keep.length < l.length) p.pending[kk] = keep
    if (p.count <= MAX_PENDING_REQUESTS / 2) break
  }
  if (p.count > MAX_PENDING_REQUESTS / 2) p.scanAt = 2 * p.count
  else delete p.scanAt
  if (p.overflowNoted) return false
  p.overflowNoted = true
  return true
}

/** Takes the open request a response answers: other direction, preferred by result shape, else the most recent. @internal */
export const take = (p: Pairing, key: string, dir: string | null, msg: Obj): PendingRequest | undefined => {
  const k = `#${key}`
  const list = p.pending[k]
  if (list === undefined) return undefined
  const result = msg['result']
  const want = !isObject(result)
    ? null
    : typeof result['stopReason'] === 'string'
      ? 'session/prompt'
      : isObject(result['outcome'])
        ? 'session/request_permission'
        : 'other'
  let chosen = -1
  for (let i = list.length - 1; i >= 0; i--) {
    const r = list[i] as PendingRequest
    if (dir !== null && r.dir !== null && r.dir === dir) continue
    if (chosen === -1) chosen = i
    if (want === null) break
    const isPrompt = r.method === 'session/prompt'
    const isPermission = r.method === 'session/request_permission'
    if (
      (want === 'session/prompt' && isPrompt) ||
      (want === 'session/request_permission' && isPermission) ||
      (want === 'other' && !isPrompt && !isPermission)
    ) {
      chosen = i
      break
    }
  }
  if (chosen === -1) return undefined
  const [req] = list.splice(chosen, 1)
  p.count--
  // the requests still needed were answered: the next scan is at the cap again, not at a past peak
  if (p.scanAt !== undefined && p.count <= p.scanAt / 4) delete p.scanAt
  if (list.length === 0) delete p.pending[k]
  return req
}
