/**
 * io-ts codecs of `RunEnding` and of the fold's checkpointable state (`FoldState`), so a stream processor can
 * save the state as JSON after any event and resume the fold later (one worker per session, state in a
 * key-value store). `JSON.stringify(state)` is the encoding; {@link decodeFoldState} validates it back.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import * as t from 'io-ts'
import { boundedJson } from './boundedJson.js'
import type { FoldState } from './fold.js'
import { firstError } from './firstError.js'
import { ioTsExpected, ioTsPath, ProtocolError } from './ProtocolError.js'
import type { RunEnding } from './RunEnding.js'

const opt = <P extends t.Props>(required: P, optional: t.Props) => t.intersection([t.type(required), t.partial(optional)])

/** Codec of a pending item. @since 0.1.0 */
export const PendingItemC = opt({ id: t.string, kind: t.string }, { toolName: t.string, arguments: t.unknown, reason: t.string })

/**
 * io-ts codec of `RunEnding` (SPEC §2): a union tagged by `kind`.
 * @since 0.1.0
 * @category Fold
 */
export const RunEndingCodec: t.Type<RunEnding, unknown> = t.union([
  t.type({ kind: t.literal('answered') }),
  t.type({ kind: t.literal('cut_off'), finishReason: t.string }),
  opt({ kind: t.literal('limit'), reason: t.string }, { field: t.string, actual: t.union([t.number, t.null]), limit: t.number }),
  opt({ kind: t.literal('stopped'), by: t.string }, { reason: t.string }),
  t.type({ kind: t.literal('suspended'), pending: t.array(PendingItemC) }),
  opt({ kind: t.literal('blocked') }, { guardrail: t.string, phase: t.keyof({ input: null, output: null }), reason: t.string }),
  opt(
    { kind: t.literal('failed'), reason: t.string },
    { phase: t.string, error: opt({ message: t.string }, { code: t.union([t.string, t.number]), name: t.string }), raw: t.unknown },
  ),
  opt({ kind: t.literal('unfinished') }, { lastEventType: t.string }),
]) as unknown as t.Type<RunEnding, unknown>

const Buckets = t.type({
  inputTokens: t.number,
  cacheReadTokens: t.number,
  cacheWriteTokens: t.number,
  outputTokens: t.number,
  reasoningTokens: t.number,
})
const ModelDraftC = t.intersection([Buckets, t.type({ costUsd: t.number, costMissing: t.number, items: t.number })])
const TimeC = t.union([t.number, t.string, t.null])
const LineC = t.union([t.number, t.null])

/** Codec of the per-run accumulator (`RunDraft`). @since 0.1.0 */
export const RunDraftCodec = t.type({
  firstLine: LineC,
  lastLine: LineC,
  firstTime: TimeC,
  lastTime: TimeC,
  hasContent: t.boolean,
  turns: t.number,
  toolCalls: t.number,
  permissionDenials: t.array(t.type({ toolName: t.string, toolCallId: t.string })),
  usage: Buckets,
  byModel: t.record(t.string, ModelDraftC),
  costUsd: t.number,
  costItems: t.number,
  costMissing: t.number,
  costEstimated: t.boolean,
  children: t.array(t.type({ sessionId: t.string, ending: RunEndingCodec, finishReason: t.union([t.string, t.null]) })),
  childIndex: t.record(t.string, t.number),
  diagnostics: t.array(opt({ message: t.string }, { line: t.number })),
  diagnosticsDropped: t.number,
})

/** A finished `RunResult` inside the state: checked for its main fields, the rest kept as is. */
const StoredResult = t.intersection([t.type({ format: t.string, ending: RunEndingCodec, schemaVersion: t.literal(1) }), t.UnknownRecord])

const BookC = t.type({
  usage: Buckets,
  byModel: t.record(t.string, ModelDraftC),
  costUsd: t.number,
  costItems: t.number,
  costMissing: t.number,
  costEstimated: t.boolean,
})
const NullableNumber = t.union([t.number, t.null])
const ErrorC = opt({ message: t.string }, { code: t.union([t.string, t.number]), name: t.string })

/** Codec of the run being read (`NativeRunState`). @internal */
export const NativeRunStateCodec = t.type({
  draft: RunDraftCodec,
  finishReason: t.union([t.string, t.null]),
  ending: t.union([RunEndingCodec, t.null]),
  sticky: t.union([t.type({ turn: t.union([t.number, t.null]) }), t.null]),
  response: t.union([t.string, t.null]),
  lastEventType: t.union([t.string, t.null]),
  messageId: t.union([t.string, t.null]),
  ledger: t.type({
    ids: t.array(t.string),
    entries: t.array(t.type({ model: t.string, usage: Buckets, costUsd: NullableNumber })),
    pos: t.number,
  }),
  totals: t.union([BookC, t.null]),
  set: t.union([BookC, t.null]),
  runCost: NullableNumber,
  runTurns: NullableNumber,
  fatal: t.union([t.type({ error: ErrorC, reason: t.string, phase: t.string }), t.null]),
  cancel: t.union([t.type({ by: t.string, reason: t.union([t.string, t.null]) }), t.null]),
  structuredOutput: t.unknown,
  durationMs: NullableNumber,
  inferred: t.boolean,
})

/**
 * io-ts codec of `FoldState`: decode a checkpoint (the parsed JSON of `JSON.stringify(state)`) before resuming.
 * @since 0.1.0
 * @category Fold
 */
export const FoldStateCodec: t.Type<FoldState, unknown> = t.type({
  version: t.literal(2),
  format: t.string,
  hold: t.boolean,
  events: t.number,
  root: t.union([t.string, t.null]),
  children: t.record(t.string, t.literal(true)),
  sessions: t.record(t.string, t.type({ max: t.number, recent: t.array(t.number), pos: t.number })),
  run: NativeRunStateCodec,
  held: t.union([NativeRunStateCodec, t.null]),
  heldRoot: t.union([t.string, t.null]),
  afterClose: t.boolean,
  baselines: t.record(t.string, t.type({ usage: t.union([Buckets, t.null]), costUsd: NullableNumber, turns: NullableNumber })),
  counters: t.array(t.string),
  runs: t.number,
  closed: t.union([StoredResult, t.null]),
  lastClosed: t.union([StoredResult, t.null]),
  notes: t.array(opt({ message: t.string }, { line: t.number })),
  messageId: t.union([t.string, t.null]),
  open: t.boolean,
  done: t.boolean,
  file: t.union([t.string, t.null]),
}) as unknown as t.Type<FoldState, unknown>

/**
 * The JSON text of a state, for a checkpoint. Input payloads the state keeps as given (a pending tool call's
 * `arguments`) that are nested deeper than `MAX_JSON_DEPTH` (512) levels are written as `null` there, instead of
 * making `JSON.stringify` throw ({@link boundedJson}).
 *
 * **Throws** `TypeError` on a state that refers to itself (a cycle: only a state built by hand, never one the
 * fold built), `RangeError` past the string length limit or `MAX_JSON_NODES` objects; never runs unbounded.
 * @since 0.1.0
 * @category Fold
 */
export const encodeFoldState = (state: FoldState): string => boundedJson(state)

/**
 * Parses and validates a checkpoint written by {@link encodeFoldState}. A key such as `__proto__` stays an
 * ordinary key (JSON.parse defines own properties; state keys are `#`-prefixed).
 *
 * **Fails with** `ProtocolError` kind `event` (path into the state) when the text is not JSON or not a state.
 * @since 0.1.0
 * @category Fold
 */
export const decodeFoldState = (json: string): E.Either<ProtocolError, FoldState> => decodeJsonWith(FoldStateCodec, json, 'a fold state')

/**
 * Parses JSON text and validates it with `codec`: the value, or a `ProtocolError` of kind `json` (not JSON)
 * or `event` (the data path and expected type of the first mismatch), never echoing the text. Used for
 * checkpoints (fold states here, session checkpoints in the JetStream worker).
 * @internal
 */
export const decodeJsonWith = <A>(codec: t.Type<A, unknown, unknown>, text: string, what: string): E.Either<ProtocolError, A> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return E.left(new ProtocolError({ kind: 'json', index: 0, path: '', expected: `a JSON ${what.replace(/^an? /, '')}` }))
  }
  if (codec.is(value)) return E.right(value)
  // the first mismatch only (a checkpoint can be big; io-ts's decode would build an error per bad element)
  const first = firstError(codec, value)
  return E.left(
    new ProtocolError({
      kind: 'event',
      index: 0,
      path: first ? ioTsPath(first.context) : '',
      expected: first ? ioTsExpected(first.context) : what,
      ...(first ? { errors: [first] } : {}),
    }),
  )
}
