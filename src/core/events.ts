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
 * A token count: a whole number of tokens, 0 … `Number.MAX_SAFE_INTEGER` (SPEC §4: counts are non-negative
 * integers; `1.5` is rejected as `-5` is).
 * @since 0.2.0
 */
export interface TokenCountBrand {
  readonly TokenCount: unique symbol
}
/** @since 0.2.0 */
export const TokenCount = t.brand(t.number, (n): n is t.Branded<number, TokenCountBrand> => Number.isSafeInteger(n) && n >= 0, 'TokenCount')

/**
 * A number of turns: a whole number, 0 … `Number.MAX_SAFE_INTEGER` (SPEC §3: `turns` counts the root
 * session's turns; a running total of `2.5` turns is rejected as `-1` is).
 * @since 0.2.0
 */
export interface TurnCountBrand {
  readonly TurnCount: unique symbol
}
/** @since 0.2.0 */
export const TurnCount = t.brand(t.number, (n): n is t.Branded<number, TurnCountBrand> => Number.isSafeInteger(n) && n >= 0, 'TurnCount')

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
  const codec = new t.Type(
    name ?? explain.name,
    is,
    (u, c) => explain.validate(u, c),
    (a) => explain.encode(a),
  )
  // the data path of an error skips intersection member indices (ProtocolError's ioTsPath reads `_tag`);
  // `explain` lets firstError walk to the first mismatch without io-ts's decode (core/firstError.ts)
  return Object.assign(codec, { _tag: (explain as unknown as { _tag: string })._tag, explain })
}

/** An array codec whose `.is()` is a plain loop (io-ts `t.array` for `validate`). @since 0.1.0 */
export const arrayOf = <C extends t.Mixed>(item: C): t.Type<Array<t.TypeOf<C>>, Array<t.OutputOf<C>>, unknown> => {
  const explain = t.array(item)
  const is = (u: unknown): u is Array<t.TypeOf<C>> => {
    if (!Array.isArray(u)) return false
    for (let i = 0; i < u.length; i++) if (!item.is(u[i])) return false
    return true
  }
  return Object.assign(
    new t.Type(
      explain.name,
      is,
      (u, c) => explain.validate(u, c),
      (a) => explain.encode(a),
    ),
    { _tag: explain._tag, explain },
  )
}

/** A plain JSON object (not an array, not null), for content blocks. @since 0.1.0 */
export const JsonObject = struct({}, {}, 'object')

/** Envelope time: epoch milliseconds or an ISO-8601 string. @since 0.1.0 */
export const EventTime = t.union([t.number, t.string])

/** `usage` on `assistant/message`: disjoint buckets in tokens. @since 0.1.0 @category Native protocol */
export const NativeUsage = struct(
  { inputTokens: TokenCount, outputTokens: TokenCount },
  { cacheReadTokens: TokenCount, cacheWriteTokens: TokenCount, reasoningTokens: TokenCount },
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
/**
 * `assistant/message`. With `messageId` (protocol 2), records of the same message are copies of one model
 * response (Claude Code writes one per content block): the last copy's `usage` replaces the earlier ones', and
 * their texts join into the message's text. `stopReason` is the provider's own stop reason for the response.
 * @since 0.1.0
 */
export const AssistantMessageData = struct(
  { message: struct({ content: arrayOf(ContentBlock) }) },
  { ...turnStep, usage: NativeUsage, model: t.string, costUsd: NonNegative, interrupted: t.boolean, messageId: t.string, stopReason: t.string },
)
/** `tool/call`: `arguments` is JSON text. @since 0.1.0 */
export const ToolCallData = struct({ callId: t.string, name: t.string }, { ...turnStep, arguments: t.unknown })
/** `tool/result`. @since 0.1.0 */
export const ToolResultData = struct(
  { callId: t.string },
  { ...turnStep, message: t.unknown, error: struct({}, { name: t.string, code: t.union([t.string, t.number]), message: t.string }) },
)
/**
 * `subagent/started`, `subagent/finished`. Protocol 2: `parentSessionId` may be left out (the parent is the
 * root); `previousSessionId` renames a child that was known by another id (a tool call id, before its result
 * named the agent), keeping its place in `children`.
 * @since 0.1.0
 */
export const SubagentData = struct({ childSessionId: t.string }, { parentSessionId: t.string, stopReason: t.string, previousSessionId: t.string })

/** An error as a source reports it: a message, and a code or class name when it has one. @since 0.2.0 */
export const ErrorData = struct({ message: t.string }, { code: t.union([t.string, Finite]), name: t.string })

/**
 * `session/started` (protocol 2): the event's session becomes the root of the runs that follow (`sessionId`
 * `null`: runs of no named session follow).
 * @since 0.2.0
 */
export const SessionStartedData = struct({})
/** `usage/add` (protocol 2): one model response's usage (disjoint buckets, tokens) without its content. @since 0.2.0 */
export const UsageAddData = struct({ usage: NativeUsage }, { model: t.string, costUsd: NonNegative })
/**
 * `usage/total` (protocol 2): a running total the source restates (Codex `total_token_usage`, Claude Code
 * `modelUsage` / `total_cost_usd` / `num_turns`). The fold keeps the last total per `counter` and adds the
 * change to the run: `usage` (with `costUsd` as its cost) as one priced item under `model`; `costUsd` alone as
 * the run's reported cost; `turns` as the run's turns. With `baseline`, the total only sets the starting point
 * (copied history that is not this log's own).
 * @since 0.2.0
 */
export const UsageTotalData = struct(
  {},
  { counter: t.string, model: t.string, usage: NativeUsage, costUsd: NonNegative, turns: TurnCount, baseline: t.boolean },
)
/** One model's usage in a `usage/set`. @since 0.2.0 */
export const ModelUsageData = struct({ model: t.string, usage: NativeUsage }, { costUsd: NonNegative })
/**
 * `usage/set` (protocol 2): the source states the run's whole usage by model (Gemini `stats`, an AI SDK
 * `totalUsage` that differs from its steps), which replaces what the run's messages and items added, and/or
 * the run's number of turns (an OpenAI Agents `currentTurn`).
 * @since 0.2.0
 */
export const UsageSetData = struct({}, { models: arrayOf(ModelUsageData), turns: TurnCount })
/** `permission/denied` (protocol 2): a tool call the permission layer refused (it does not end the run). @since 0.2.0 */
export const PermissionDeniedData = struct({ toolName: t.string, callId: t.string })
/**
 * `stream/error` (protocol 2): a fatal error record. While it is the run's last word, a run without a
 * `turn/end` is `failed` (`reason` default `error`, `phase` default `stream`) instead of `unfinished`
 * (SPEC §2 rule 2); later run content clears it.
 * @since 0.2.0
 */
export const StreamErrorData = struct({ error: ErrorData }, { reason: t.string, phase: t.string })
/**
 * `turn/cancel` (protocol 2): someone asked the running turn to stop (an ACP `session/cancel`, an SDK abort).
 * A normal finish that follows for that turn is still a stop (K23); a run that ends with the request unanswered
 * is stopped too (inferred). `by` names who asked (default `caller`).
 * @since 0.2.0
 */
export const TurnCancelData = struct({}, { by: t.string, reason: t.string })
/** `source/record` (protocol 2): a source record that carries no run fact (its line, time and `recordType` count). @since 0.2.0 */
export const SourceRecordData = struct({})
/**
 * `source/diagnostic` (protocol 2): a note about the source (a skipped line, an ignored field), never an echo
 * of its values. With `note`, it belongs to no run (a live stream's late record) and goes to the caller's notes.
 * @since 0.2.0
 */
export const SourceDiagnosticData = struct({ message: t.string }, { note: t.boolean })

// ---- turn/end reasons (SPEC §4 table) ----

/** The shape every `turn/end` reason must have: an object with a string `kind`. @since 0.1.0 */
export const ReasonShape = t.type({ kind: t.string })

/** `aborted`: `reason: { kind: 'user' | 'parent' | 'hook' | 'disposed' | 'legacy', reason? }`. @since 0.1.0 */
export const AbortedReason = t.intersection([
  t.type({ kind: t.literal('aborted') }),
  t.partial({ reason: t.intersection([t.type({ kind: t.string }), t.partial({ reason: t.string })]) }),
])
/** `blocked`: `guardrail?`, `phase?`, `message?`. @since 0.1.0 */
export const BlockedReason = t.intersection([t.type({ kind: t.literal('blocked') }), t.partial({ guardrail: t.string, phase: t.string, message: t.string })])
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

/** `cut-off` (protocol 2): the provider cut the answer short for `finishReason` (its own word). @since 0.2.0 */
export const CutOffReason = t.type({ kind: t.literal('cut-off'), finishReason: t.string })
/**
 * `failed` (protocol 2): an error ended the turn, with the failure's `reason` (`error`, `provider_error`,
 * `unrecognized`, …), `phase?`, `error?` and `raw?` (an unrecognised value kept as written).
 * @since 0.2.0
 */
export const FailedReason = t.intersection([
  t.type({ kind: t.literal('failed'), reason: t.string }),
  t.partial({
    phase: t.string,
    error: t.intersection([t.type({ message: t.string }), t.partial({ code: t.union([t.string, Finite]), name: t.string })]),
    raw: t.unknown,
  }),
])
/**
 * `unfinished` (protocol 2): the turn ended without finishing — a format without terminal records whose last
 * records show the work was cut off (`inferred` on the `turn/end`); `lastEventType` names what it ended on.
 * @since 0.2.0
 */
export const UnfinishedReason = t.intersection([t.type({ kind: t.literal('unfinished') }), t.partial({ lastEventType: t.string })])

/** Codecs of reason kinds that carry fields; kinds not listed carry none (or are unknown). @since 0.1.0 @category Native protocol */
export const reasonCodecs: Readonly<Record<string, t.Mixed>> = {
  aborted: AbortedReason,
  blocked: BlockedReason,
  limit: LimitReason,
  suspended: SuspendedReason,
  error: ErrorReason,
  'cut-off': CutOffReason,
  failed: FailedReason,
  unfinished: UnfinishedReason,
}

/**
 * `turn/end` data: `reason` is required; `turn` optional. Validated by the decoder in two steps. Protocol 2
 * adds what a source states at its terminal record: `finishReason` (its raw terminal word, `null` for none;
 * default `reason.kind`), `inferred` (the source has no terminal record; the ending was read from its last
 * records), `text` (the final answer as the terminal record gives it), `structuredOutput` and `durationMs`
 * (the source's own measure of the run, milliseconds).
 * @since 0.1.0
 */
export const TurnEndData = struct(
  { reason: ReasonShape },
  {
    ...turnStep,
    finishReason: t.union([t.string, t.null]),
    inferred: t.boolean,
    text: t.string,
    structuredOutput: t.unknown,
    durationMs: NonNegative,
  },
)

/** Data codecs by event type (SPEC §4). `turn/end` is validated separately, with its reason table. @since 0.1.0 @category Native protocol */
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
  'session/started': SessionStartedData,
  'usage/add': UsageAddData,
  'usage/total': UsageTotalData,
  'usage/set': UsageSetData,
  'permission/denied': PermissionDeniedData,
  'stream/error': StreamErrorData,
  'turn/cancel': TurnCancelData,
  'source/record': SourceRecordData,
  'source/diagnostic': SourceDiagnosticData,
} as const

/** The native protocol's version: 2 adds the events and fields vendor formats lower into (SPEC §4). @since 0.2.0 @category Native protocol */
export const PROTOCOL_VERSION = 2

/** A known native event type. @since 0.1.0 @category Native protocol */
export type KnownEventType = keyof typeof dataCodecs

/**
 * The envelope every decoded event has: the session it belongs to (`null` when the line named none). Protocol 2
 * adds where a translated event came from: `line`, the 1-based line of its record in the original log (used for
 * diagnostics and `source` instead of the line it is read from), and `recordType`, the source's own word for the
 * record (an `unfinished` run's `lastEventType`).
 * @since 0.1.0
 * @category Native protocol
 */
export interface EventEnvelope {
  readonly sessionId: string | null
  readonly seq?: number
  readonly time?: number | string
  readonly line?: number
  readonly recordType?: string
}

type EventOf<K extends KnownEventType> = EventEnvelope & {
  readonly type: K
  readonly data: t.TypeOf<(typeof dataCodecs)[K]>
}

/**
 * An event the fold keeps but does not apply: an unknown `type` (the protocol grows), a known type whose
 * fields have unexpected types, or a JSON-RPC message other than the wrappers. It becomes a diagnostic.
 * @since 0.1.0
 * @category Native protocol
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
 * @category Native protocol
 */
export type SessionEvent = { [K in KnownEventType]: EventOf<K> }[KnownEventType] | IgnoredEvent

const knownTypes: ReadonlySet<string> = new Set(Object.keys(dataCodecs))

/** `true` for the known event type names. @since 0.1.0 @category Native protocol */
export const isKnownEventType = (s: string): s is KnownEventType => knownTypes.has(s)
