/**
 * `--format native`: the run-outcome native protocol (SPEC §4), one JSON event per line.
 *
 * Ending rules: the last root `turn/end` of a run decides (SPEC §4 table; max-tokens is sticky within its
 * turn); no `turn/end` → `unfinished`. Runs are delimited by the root `idle` (or seed 002's owned interval with
 * `messageId`). Usage is per step (`assistant/message.usage`, disjoint buckets), summed over root and children;
 * cost is `costUsd` per message, missing when absent. Strict: a non-JSON line (other than an unterminated last
 * line, a diagnostic), an event without a string `type` or a malformed `turn/end` is a `ProtocolError`.
 *
 * @module
 */
import * as t from 'io-ts'
import { isPlainEvent } from '../core/dataGuards.js'
import { decodeEventRaw } from '../core/decodeEvent.js'
import type { SessionEvent } from '../core/events.js'
import { ProtocolError } from '../core/ProtocolError.js'
import type { Translator } from '../core/translator.js'
import { readerFrom } from './fromTranslator.js'
import type { Obj } from './json.js'
import { shareScore } from './sniff.js'
import type { FormatModule, ReaderFactory } from './types.js'

const NATIVE_TYPES = new Set([
  'agent/inbox/spliced',
  'session/status',
  'turn/start',
  'turn/end',
  'step/start',
  'step/end',
  'user/message',
  'assistant/chunk',
  'assistant/message',
  'tool/call',
  'tool/result',
  'subagent/started',
  'subagent/finished',
])
const NATIVE_METHODS = new Set(['session.event', 'session.status', 'subagent.started', 'subagent.finished'])

/** A native event, bare (a known `type` with `data`) or as a notification (a known `method`), for detection. */
const isNativeEvent = (v: Obj): boolean => {
  const type = v['type']
  const method = v['method']
  return (typeof type === 'string' && NATIVE_TYPES.has(type) && 'data' in v) || (typeof method === 'string' && NATIVE_METHODS.has(method))
}

/** The native translator's state: how many records it has decoded (the next event's index). @since 0.2.0 */
export interface NativeTranslatorState {
  events: number
}

/**
 * The native format's translator: each line is decoded and validated (SPEC §4) into the event it already is.
 * Strict: a malformed event, or a line that is not JSON (except an unterminated last one, a diagnostic), is a
 * `ProtocolError`. @since 0.2.0
 */
export const nativeTranslator: Translator<NativeTranslatorState> = {
  format: 'native',
  stateCodec: t.type({ events: t.number }),
  init: () => ({ events: 0 }),
  record(state, value, line, emit) {
    // the common event passes one check of its envelope and data and is already its decoded self
    const decoded = isPlainEvent(value) ? (value as SessionEvent) : decodeEventRaw(value, state.events)
    if (decoded instanceof ProtocolError) return line === undefined ? decoded : decoded.at(line)
    state.events++
    emit(decoded)
    return undefined
  },
  text(state, _text, line, unterminated, emit) {
    if (unterminated) {
      emit({ type: 'source/diagnostic', sessionId: null, data: { message: 'skipped the last line: it was cut off (no newline) and is not valid JSON' } })
      return undefined
    }
    return new ProtocolError({ kind: 'json', index: state.events, path: '', expected: 'JSON', ...(line !== undefined ? { line } : {}) })
  },
  end() {},
}

/** Reads native JSONL through the pipeline (see {@link nativeTranslator}). @since 0.1.0 */
export const nativeReader: ReaderFactory = readerFrom(nativeTranslator)

/** The native format module. @since 0.1.0 */
export const nativeFormat: FormatModule = {
  name: 'native',
  description: 'run-outcome native protocol: one JSON event per line (SPEC §4), bare or as session.event notifications',
  sniffLines: (values) => shareScore(values, isNativeEvent),
  reader: nativeReader,
  translator: nativeTranslator,
}
