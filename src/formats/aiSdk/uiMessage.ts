/**
 * The chunks only the AI SDK's UI message stream writes (`UIMessageChunk`, SSE `data:` lines ending in
 * `data: [DONE]`, or a JSON array): tool input and output chunks under their UI names, URL and document
 * sources, message metadata and `data-*` parts. The chunks it shares with `fullStream` (start, steps, finish,
 * abort, error, text, reasoning, tool input streaming, approvals) are read by `./fullStream.ts`.
 *
 * What each chunk states (protocol 2): `tool-input-available` → `tool/call` (first sight of the id);
 * `tool-input-error` → `tool/call` and `tool/result`; `tool-output-available` / `tool-output-error` →
 * `tool/result`; `source-url` / `source-document` → `assistant/chunk`; `message-metadata` and `data-*` →
 * `source/record` (they never make a run alone). The UI stream carries no usage.
 *
 * @module
 * @internal
 */
import type { Emit } from '../../core/translator.js'
import { emitRecord, nativeEvent } from '../events.js'
import { str, type Obj } from '../json.js'
import { toolCallPart, toolOutputPart } from './fullStream.js'
import { at, chunk, diagType, get, mark, noteCall, resolveCall, type AiSdkState } from './run.js'

/** Chunk types only the UI message stream writes (besides `data-*`). @internal */
export const UI_CHUNKS: ReadonlySet<string> = new Set([
  'tool-input-available',
  'tool-input-error',
  'tool-output-available',
  'tool-output-error',
  'source-url',
  'source-document',
  'message-metadata',
])

/** Translates one UI-only chunk (a type of {@link UI_CHUNKS}, or `data-*`). @internal */
export const uiChunk = (s: AiSdkState, v: Obj, t: string, emit: Emit): void => {
  switch (t) {
    case 'tool-input-available':
      toolCallPart(s, v, t, emit)
      return
    case 'tool-output-available':
    case 'tool-output-error':
      toolOutputPart(s, v, t, emit)
      return
    case 'tool-input-error': {
      const r = s.run
      mark(r, t)
      const id = str(get(v, 'toolCallId'))
      if (id === undefined) {
        chunk(emit, t)
        diagType(emit, 'skipped a tool part without a string toolCallId:', t)
        return
      }
      noteCall(r, emit, t, id, str(get(v, 'toolName')), undefined, false)
      resolveCall(r, id)
      emit(nativeEvent('tool/result', { callId: id }, at(t)))
      return
    }
    case 'source-url':
    case 'source-document':
      mark(s.run, t)
      chunk(emit, t)
      return
    default:
      // message-metadata, data-*: no run fact
      emitRecord(emit)
  }
}
