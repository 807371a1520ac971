/**
 * io-ts codecs of the native protocol (SPEC §4), modelled on the harness of seed 002.
 *
 * One codec per event type, looked up by `type` (never a union decode on the hot path: `.is()` first,
 * `.decode()` only to explain a failure). Codecs are plain `t.type`/`t.partial` so a decoded value is the
 * input object; the fold copies what it keeps and never stores caller objects.
 *
 * @module
 */
import * as t from 'io-ts'

/**
 * A token count or a price: a finite, non-negative number no larger than `Number.MAX_SAFE_INTEGER` (`1e999`,
 * `1e308`, `-5` and `"NaN"` are rejected, so sums stay finite and exact).
 * @since 0.1.0
 */
export interface NonNegativeBrand {
  readonly NonNegative: unique symbol
}
/** @since 0.1.0 */
export const NonNegative = t.brand(
  t.number,
  (n): n is t.Branded<number, NonNegativeBrand> => Number.isFinite(n) && n >= 0 && n <= Number.MAX_SAFE_INTEGER,
  'NonNegative',
)

/**
 * A finite number: JSON's `1e999` parses to `Infinity`, which JSON cannot write back (it would print as `null`
 * in a result and break a checkpoint), so it is rejected wherever the fold keeps a number. The brand is named
 * `number` so error messages read `expected number`, as for any other non-number.
 * @since 0.1.0
 */
export interface FiniteBrand {
  readonly number: unique symbol
}
/** @since 0.1.0 */
export const Finite = t.brand(t.number, (n): n is t.Branded<number, FiniteBrand> => Number.isFinite(n), 'number')

/**
 * An io-ts codec for an object with `required` and `optional` fields whose `.is()` is one plain loop over the
 * fields. Its `validate` (and so `decode`, paths and error messages) is io-ts's own `t.type` / `t.partial` /
 * `t.intersection` of the same fields. Why not those directly: their guards check every level with
 * `Object.prototype.toString` and `Array.prototype.every`, which made validation the largest cost of a replay
 * after `JSON.parse`; this guard accepts exactly the same JSON values at a fraction of the cost.
 * @since 0.1.0
 */
export const struct = <R extends t.Props, O extends t.Props = Record<never, never>>(
  required: R,
  optional?: O,
  name?: string,
): t.Type<t.TypeOf<t.TypeC<R>> & t.TypeOf<t.PartialC<O>>, t.OutputOf<t.TypeC<R>> & t.OutputOf<t.PartialC<O>>, unknown> => {
  const rk = Object.keys(required)
  const rt = rk.map((k) => required[k] as t.Mixed)
  const ok = optional === undefined ? [] : Object.keys(optional)
  const ot = ok.map((k) => (optional as O)[k] as t.Mixed)
  const explain: t.Mixed =
    ok.length === 0 ? t.type(required) : rk.length === 0 ? t.partial(optional as O) : t.intersection([t.type(required), t.partial(optional as O)])
  const is = (u: unknown): u is t.TypeOf<t.TypeC<R>> & t.TypeOf<t.PartialC<O>> => {
    if (typeof u !== 'object' || u === null || Array.isArray(u)) return false
    const o = u as Record<string, unknown>
    for (let i = 0; i < rk.length; i++) if (!(rt[i] as t.Mixed).is(o[rk[i] as string])) return false
    for (let i = 0; i < ok.length; i++) {
      const v = o[ok[i] as string]
      if (v !== undefined && !(ot[i] as t.Mixed).is(v)) return false
    }
    return true
  }
  const codec = new t.Type(name ?? explain.name, is, (u, c) => explain.validate(u, c), (a) => explain.encode(a))
  // the data path of an error skips intersection member indices (ProtocolError's ioTsPath reads `_tag`)
  return Object.assign(codec, { _tag: (explain as unknown as { _tag: string })._tag })
}

/** An array codec whose `.is()` is a plain loop (io-ts `t.array` for `validate`). @since 0.1.0 */
export const arrayOf = <C extends t.Mixed>(item: C): t.Type<Array<t.TypeOf<C>>, Array<t.OutputOf<C>>, unknown> => {
  const explain = t.array(item)
  const is = (u: unknown): u is Array<t.TypeOf<C>> => {
    if (!Array.isArray(u)) return false
    for (let i = 0; i < u.length; i++) if (!item.is(u[i])) return false
    return true
  }
  return Object.assign(new t.Type(explain.name, is, (u, c) => explain.validate(u, c), (a) => explain.encode(a)), { _tag: explain._tag })
}

/** A plain JSON object (not an array, not null), for content blocks. @since 0.1.0 */
export const JsonObject = struct({}, {}, 'object')

/** Envelope time: epoch milliseconds or an ISO-8601 string. @since 0.1.0 */
export const EventTime = t.union([t.number, t.string])

/** `usage` on `assistant/message`: disjoint buckets in tokens. @since 0.1.0 */
export const NativeUsage = struct(
  { inputTokens: NonNegative, outputTokens: NonNegative },
  { cacheReadTokens: NonNegative, cacheWriteTokens: NonNegative, reasoningTokens: NonNegative },
)
/** @since 0.1.0 */
export type NativeUsage = t.TypeOf<typeof NativeUsage>

/** Optional turn/step numbers shared by several events. */
const turnStep = { turn: Finite, step: Finite }
const TurnStep = struct({}, turnStep)

/** `agent/inbox/spliced`: durable receipt of submitted messages. @since 0.1.0 */
export const InboxSplicedData = struct({ inserted: arrayOf(struct({ id: t.string })) })
/** `session/status` (the bare form of the `session.status` wrapper). @since 0.1.0 */
export const SessionStatusData = struct({ status: t.keyof({ idle: null, running: null }) })
/** `turn/start`. @since 0.1.0 */
export const TurnStartData = TurnStep
/** `step/start`, `step/end`. @since 0.1.0 */
export const StepData = TurnStep
/** `user/message`. @since 0.1.0 */
export const UserMessageData = struct({ message: t.unknown })
/** `assistant/chunk`. @since 0.1.0 */
export const AssistantChunkData = struct({ chunk: t.unknown }, turnStep)
/** A content block of an assistant message; only `{ type: 'text', text }` blocks make the response. @since 0.1.0 */
export const ContentBlock = JsonObject
/** `assistant/message`. @since 0.1.0 */
export const AssistantMessageData = struct(
  { message: struct({ content: arrayOf(ContentBlock) }) },
  { ...turnStep, usage: NativeUsage, model: t.string, costUsd: NonNegative, interrupted: t.boolean },
)
/** `tool/call`: `arguments` is JSON text. @since 0.1.0 */
export const ToolCallData = struct({ callId: t.string, name: t.string }, { ...turnStep, arguments: t.unknown })
/** `tool/result`. @since 0.1.0 */
export const ToolResultData = struct(
  { callId: t.string },
  { ...turnStep, message: t.unknown, error: struct({}, { name: t.string, code: t.union([t.string, t.number]), message: t.string }) },
)
/** `subagent/started`, `subagent/finished`. @since 0.1.0 */
export const SubagentData = struct({ parentSessionId: t.string, childSessionId: t.string }, { stopReason: t.string })

// ---- turn/end reasons (SPEC §4 table) ----

/** The shape every `turn/end` reason must have: an object with a string `kind`. @since 0.1.0 */
export const ReasonShape = t.type({ kind: t.string })

/** `aborted`: `reason: { kind: 'user' | 'parent' | 'hook' | 'disposed' | 'legacy', reason? }`. @since 0.1.0 */
export const AbortedReason = t.intersection([
  t.type({ kind: t.literal('aborted') }),
  t.partial({ reason: t.intersection([t.type({ kind: t.string }), t.partial({ reason: t.string })]) }),
])
/** `blocked`: `guardrail?`, `phase?`, `message?`. @since 0.1.0 */
export const BlockedReason = t.intersection([
  t.type({ kind: t.literal('blocked') }),
  t.partial({ guardrail: t.string, phase: t.string, message: t.string }),
])
/** `limit`: `reason`, `field?`, `actual?` (number or null), `limit?`. @since 0.1.0 */
export const LimitReason = t.intersection([
  t.type({ kind: t.literal('limit'), reason: t.string }),
  t.partial({ field: t.string, actual: t.union([Finite, t.null]), limit: Finite }),
])
/** A pending item of a `suspended` reason. @since 0.1.0 */
export const PendingItemCodec = t.intersection([
  t.type({ id: t.string, kind: t.string }),
  t.partial({ toolName: t.string, arguments: t.unknown, reason: t.string }),
])
/** `suspended`: `pending: [{ id, kind, toolName?, arguments?, reason? }]`. @since 0.1.0 */
export const SuspendedReason = t.type({ kind: t.literal('suspended'), pending: t.array(PendingItemCodec) })
/** `error`: `error: { message, code? }`. @since 0.1.0 */
export const ErrorReason = t.type({
  kind: t.literal('error'),
  error: t.intersection([t.type({ message: t.string }), t.partial({ code: t.union([t.string, Finite]), name: t.string })]),
})

/** Codecs of reason kinds that carry fields; kinds not listed carry none (or are unknown). @since 0.1.0 */
export const reasonCodecs: Readonly<Record<string, t.Mixed>> = {
  aborted: AbortedReason,
  blocked: BlockedReason,
  limit: LimitReason,
  suspended: SuspendedReason,
  error: ErrorReason,
}

/** `turn/end` data: `reason` is required; `turn` optional. Validated by the decoder in two steps. @since 0.1.0 */
export const TurnEndData = struct({ reason: ReasonShape }, turnStep)

/** Data codecs by event type (SPEC §4). `turn/end` is validated separately, with its reason table. @since 0.1.0 */
export const dataCodecs = {
  'agent/inbox/spliced': InboxSplicedData,
  'session/status': SessionStatusData,
  'turn/start': TurnStartData,
  'turn/end': TurnEndData,
  'step/start': StepData,
  'step/end': StepData,
  'user/message': UserMessageData,
  'assistant/chunk': AssistantChunkData,
  'assistant/message': AssistantMessageData,
  'tool/call': ToolCallData,
  'tool/result': ToolResultData,
  'subagent/started': SubagentData,
  'subagent/finished': SubagentData,
} as const

/** A known native event type. @since 0.1.0 */
export type KnownEventType = keyof typeof dataCodecs

/** The envelope every decoded event has: the session it belongs to (`null` when the line named none). @since 0.1.0 */
export interface EventEnvelope {
  readonly sessionId: string | null
  readonly seq?: number
  readonly time?: number | string
}

type EventOf<K extends KnownEventType> = EventEnvelope & {
  readonly type: K
  readonly data: t.TypeOf<(typeof dataCodecs)[K]>
}

/**
 * An event the fold keeps but does not apply: an unknown `type` (the protocol grows), a known type whose
 * fields have unexpected types, or a JSON-RPC message other than the wrappers. It becomes a diagnostic.
 * @since 0.1.0
 */
export type IgnoredEvent = EventEnvelope & {
  readonly type: 'run-outcome/ignored'
  readonly data: {
    readonly originalType: string
    readonly why: 'unknown-type' | 'malformed' | 'jsonrpc' | 'envelope'
    readonly path?: string
    readonly expected?: string
  }
}

/**
 * A decoded native event: one of the SPEC §4 types, or an {@link IgnoredEvent}. Discriminated by `type`.
 * @since 0.1.0
 */
export type SessionEvent = { [K in KnownEventType]: EventOf<K> }[KnownEventType] | IgnoredEvent

const knownTypes: ReadonlySet<string> = new Set(Object.keys(dataCodecs))

/** `true` for the known event type names. @since 0.1.0 */
export const isKnownEventType = (s: string): s is KnownEventType => knownTypes.has(s)
