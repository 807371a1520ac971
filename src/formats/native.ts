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
import { NativeFolder, currentResult, endFold, hasOpenRun } from '../core/fold.js'
import { ProtocolError } from '../core/ProtocolError.js'
import { addDiagnostic } from '../core/RunResult.js'
import { NOT_JSON, parseJson, type Obj } from './json.js'
import { shareScore } from './sniff.js'
import type { FormatModule, LineReader, ReaderFactory } from './types.js'

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

/**
 * Reads native JSONL. Replaying, a run is handed out when the next run begins or the input ends (late records
 * of it still join it); live, at its root idle. @since 0.1.0
 */
export const nativeReader: ReaderFactory = (emit, options): LineReader => {
  const folder = new NativeFolder({
    ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
    file: options.file ?? null,
    hold: options.live !== true,
  })
  const flushNotes = (): void => {
    if (folder.state.notes.length === 0) return
    for (const n of folder.takeNotes()) options.note?.(n.line, n.message)
  }
  return {
    line(text, lineNo, unterminated) {
      const value = parseJson(text)
      if (value === NOT_JSON) {
        if (unterminated) {
          addDiagnostic(folder.state.run.draft, lineNo, 'skipped the last line: it was cut off (no newline) and is not valid JSON')
          return undefined
        }
        return new ProtocolError({
          kind: 'json',
          index: folder.state.events,
          path: '',
          expected: 'JSON',
          line: lineNo,
          ...(options.file ? { file: options.file } : {}),
        })
      }
      const err = folder.push(value, lineNo)
      if (err !== undefined) return options.file ? err.at(lineNo, options.file) : err
      const closed = folder.state.closed
      if (closed !== null) emit(closed)
      flushNotes()
      return undefined
    },
    snapshot() {
      return hasOpenRun(folder.state) ? currentResult(folder.state) : undefined
    },
    end() {
      for (const r of endFold(folder.state)) emit(r)
      flushNotes()
    },
  }
}

/** The native format module. @since 0.1.0 */
export const nativeFormat: FormatModule = {
  name: 'native',
  description: 'run-outcome native protocol: one JSON event per line (SPEC §4), bare or as session.event notifications',
  sniffLines: (values) => shareScore(values, isNativeEvent),
  reader: nativeReader,
}
