/**
 * Small builders of native events for the translators (protocol 2, SPEC §4): one place that knows the
 * envelope, so a translator states facts (`emitTurnEnd(emit, { kind: 'completed' }, …)`) instead of spelling
 * out objects.
 *
 * @module
 * @internal
 */
import type * as t from 'io-ts'
import type { KnownEventType, SessionEvent } from '../core/events.js'
import type { Emit } from '../core/translator.js'

/** Where an event comes from: its session (`null`: the root), the record's time and its type in the source. @internal */
export interface Origin {
  readonly sessionId?: string | null
  readonly time?: number | string | undefined
  readonly recordType?: string | undefined
  /**
   * Stated between records (`line` 0): a fact a format learns only when the next record (or the end) shows the
   * run is over, such as an inferred ending; it belongs to the run before, at no line of the log.
   */
  readonly between?: boolean
}

type DataOf<K extends KnownEventType> = Extract<SessionEvent, { type: K }>['data']

/** A codec's type without its brands (a translator writes plain numbers it has already checked). */
type Unbrand<T> =
  T extends t.Branded<infer N, unknown> ? N : T extends ReadonlyArray<infer I> ? Array<Unbrand<I>> : T extends object ? { [P in keyof T]: Unbrand<T[P]> } : T

/** A `turn/end` reason as a translator writes it: a `kind` and the fields SPEC §4's table gives that kind. */
export type ReasonIn = { readonly kind: string } & Readonly<Record<string, unknown>>

/** The data a translator passes for an event type (for `turn/end`, any reason of the table). @internal */
export type DataIn<K extends KnownEventType> = K extends 'turn/end' ? Omit<Unbrand<DataOf<K>>, 'reason'> & { readonly reason: ReasonIn } : Unbrand<DataOf<K>>

/**
 * A native event of `type` with `data`, from `origin`. The translator vouches for the data (counts finite and
 * non-negative, reasons of SPEC §4's table): the fold applies it without decoding.
 * @internal
 */
export const nativeEvent = <K extends KnownEventType>(type: K, data: DataIn<K>, origin?: Origin): SessionEvent =>
  // one object shape for every event (absent envelope fields are `undefined`), so the fold's property reads
  // stay monomorphic; JSON leaves the undefined fields out
  ({
    type,
    sessionId: origin?.sessionId ?? null,
    time: origin?.time,
    line: origin?.between === true ? 0 : undefined,
    recordType: origin?.recordType,
    data,
  }) as unknown as SessionEvent

/** A diagnostic about the source (never an echo of its values); `note` when it belongs to no run. @internal */
export const emitDiagnostic = (emit: Emit, message: string, note = false, time?: number | string): void =>
  emit(nativeEvent('source/diagnostic', note ? { message, note: true } : { message }, { time }))

/** A record that carries no run fact: its line and time count; with `recordType`, it is the run's last word. @internal */
export const emitRecord = (emit: Emit, recordType?: string, time?: number | string): void => emit(nativeEvent('source/record', {}, { time, recordType }))

/**
 * The root idle: the run so far is over (the fold closes it when it has content). It is stated between records
 * (`line` 0), so the record being read when a format learns that the run ended belongs to the next run.
 * @internal
 */
export const emitIdle = (emit: Emit): void => emit(nativeEvent('session/status', { status: 'idle' }, BETWEEN))

/** The origin of a fact stated between records. @internal */
export const BETWEEN: Origin = { between: true }
