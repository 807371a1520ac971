/**
 * The AI SDK's `streamText` `fullStream` parts (`TextStreamPart`, `ai@5` and `ai@6`, and the `ai@4` names):
 * run and step parts (`start`, `start-step`, `finish-step`, `finish`, `abort`, `error`), text and reasoning,
 * tool input streaming, tool calls and their outputs, approval requests, sources and files.
 *
 * The UI message stream is `fullStream` re-encoded (`toUIMessageStream`): its chunks of the same names are read
 * here too, with the UI spellings of their fields (`delta`, `inputTextDelta`, `errorText`, `messageId`, a
 * `toolCallId` on an approval request); the chunks only the UI stream writes are in `./uiMessage.ts`.
 *
 * What each part states (protocol 2): `start` → its `messageId` as `session/started`; a step → `turn/start`;
 * a tool call id seen first → `tool/call`; a tool output → `tool/result`; `finish-step.usage` → `usage/add`;
 * a `finish.totalUsage` that differs from the steps' sum → `usage/set`; `finish` and `abort` → `turn/end`
 * (the ending as it stands, with `finishReason` as written and the last step's text); `error` →
 * `stream/error`; other content parts → `assistant/chunk`; `raw` and metadata → `source/record`.
 *
 * @module
 * @internal
 */
import type { Emit } from '../../core/translator.js'
import { emitRecord, nativeEvent } from '../events.js'
import { isObject, str, type Obj } from '../json.js'
import {
  addInputText,
  addText,
  at,
  boundary,
  cap,
  chatReason,
  chunk,
  countUsage,
  diag,
  diagType,
  dropApproval,
  emitEnding,
  get,
  has,
  jsonCopy,
  mark,
  noteCall,
  openCall,
  parsedInput,
  putApproval,
  readError,
  resolveCall,
  rotate,
  session,
  stepModel,
  stepOrChunk,
  stepUsage,
  totalUsage,
  type AiSdkState,
} from './run.js'
import { readAiSdkUsage } from './usage.js'

/** A tool call part (`tool-call`, UI `tool-input-available`): counts the call and keeps its input. @internal */
export const toolCallPart = (s: AiSdkState, v: Obj, t: string, emit: Emit): void => {
  const r = s.run
  mark(r, t)
  const id = str(get(v, 'toolCallId'))
  if (id === undefined) {
    chunk(emit, t)
    diagType(emit, 'skipped a tool part without a string toolCallId:', t)
    return
  }
  const hasInput = has(v, 'input')
  const withInput = hasInput || has(v, 'args')
  if (!noteCall(r, emit, t, id, str(get(v, 'toolName')), hasInput ? get(v, 'input') : get(v, 'args'), withInput)) chunk(emit, t)
}

/** A tool output part (a result, an error, a denial): the call no longer waits. @internal */
export const toolOutputPart = (s: AiSdkState, v: Obj, t: string, emit: Emit): void => {
  const r = s.run
  mark(r, t)
  const id = str(get(v, 'toolCallId'))
  if (id === undefined) {
    chunk(emit, t)
    diagType(emit, 'skipped a tool part without a string toolCallId:', t)
    return
  }
  resolveCall(r, id)
  emit(nativeEvent('tool/result', { callId: id }, at(t)))
}

const approvalRequest = (s: AiSdkState, v: Obj, t: string, emit: Emit): void => {
  const r = s.run
  mark(r, t)
  const call = get(v, 'toolCall')
  const tc = isObject(call) ? call : undefined
  const approvalId = str(get(v, 'approvalId'))
  const callId = str(get(v, 'toolCallId')) ?? (tc !== undefined ? str(get(tc, 'toolCallId')) : undefined)
  const id = approvalId ?? callId
  if (id === undefined) {
    chunk(emit, t)
    diagType(emit, 'skipped a part without a string approvalId or toolCallId:', t)
    return
  }
  let stated = false
  if (callId !== undefined) {
    stated =
      tc !== undefined
        ? noteCall(r, emit, t, callId, str(get(tc, 'toolName')), get(tc, 'input'), has(tc, 'input'))
        : noteCall(r, emit, t, callId, undefined, undefined, false)
  }
  if (!stated) chunk(emit, t)
  const info = callId !== undefined ? openCall(r, callId) : undefined
  let args: unknown
  let hasArgs = false
  if (tc !== undefined && has(tc, 'input')) {
    args = jsonCopy(get(tc, 'input'))
    hasArgs = true
  } else if (info?.hasInput) {
    args = info.input
    hasArgs = true
  } else if (info !== undefined && info.inputText.length > 0) {
    hasArgs = true
    args = parsedInput(info.inputText)
  }
  const toolName = (tc !== undefined ? str(get(tc, 'toolName')) : undefined) ?? info?.toolName ?? null
  putApproval(r, { id, toolCallId: callId ?? null, toolName, hasArgs, ...(hasArgs && args !== undefined ? { args } : {}) })
}

const finishStep = (s: AiSdkState, v: Obj, t: string, emit: Emit): void => {
  const r = s.run
  if (r.finished) {
    diagType(emit, 'ignored a part after the run had finished:', t)
    return
  }
  mark(r, t)
  r.finishSteps++
  r.stepEnded = true
  const resp = get(v, 'response')
  const model = isObject(resp) ? str(get(resp, 'modelId')) : undefined
  if (model !== undefined) stepModel(r, model)
  stepOrChunk(r, emit, t)
  const u = get(v, 'usage')
  if (u === undefined || u === null) return
  if (!isObject(u)) {
    diag(emit, 'ignored a step usage that is not an object')
    return
  }
  const read = readAiSdkUsage(u)
  countUsage(emit, read)
  stepUsage(r, emit, t, model, read.usage)
}

const finishPart = (s: AiSdkState, v: Obj, t: string, emit: Emit): void => {
  const r = s.run
  if (r.finished) {
    diag(emit, 'ignored a second finish part for the same run')
    return
  }
  const first = !r.content
  mark(r, t)
  if (first) chunk(emit, t)
  r.finished = true
  if (r.aborted) diag(emit, 'a finish part after an abort: the run stays stopped by the caller')
  const fr = get(v, 'finishReason')
  const raw = get(v, 'rawFinishReason')
  if (typeof fr === 'string') r.reason = fr
  else if (fr !== undefined && fr !== null) {
    r.badReason = true
    diag(emit, 'the finish part has a finishReason that is not a string')
  }
  if (typeof raw === 'string') {
    r.rawReason = raw
    if (r.reason === null && !r.badReason) r.reason = chatReason(raw)
  } else if (typeof fr === 'string') r.rawReason = fr
  const total = get(v, 'totalUsage') ?? get(v, 'usage')
  if (total !== undefined && total !== null) {
    if (!isObject(total)) diag(emit, 'ignored a total usage that is not an object')
    else {
      const read = readAiSdkUsage(total)
      countUsage(emit, read)
      totalUsage(r, emit, t, read.usage)
    }
  }
  emitEnding(r, emit, t)
}

/**
 * Translates one `fullStream` part (or a UI chunk of a name both streams use). Unknown types are a diagnostic.
 * @internal
 */
export const fullStreamPart = (s: AiSdkState, v: Obj, t: string, emit: Emit): void => {
  const r = s.run
  switch (t) {
    // the hot parts first (a string switch compares case by case)
    case 'text-delta':
    case 'text': {
      mark(r, t)
      if (r.stepEnded) rotate(r)
      const piece = str(get(v, 'delta')) ?? str(get(v, 'text')) ?? str(get(v, 'textDelta'))
      chunk(emit, t, piece)
      if (piece === undefined) diagType(emit, 'skipped a text part without string text:', t)
      else addText(r, piece)
      return
    }
    case 'reasoning-delta':
      mark(r, t)
      chunk(emit, t)
      return
    case 'tool-input-delta':
    case 'tool-call-delta': {
      mark(r, t)
      chunk(emit, t)
      const id = str(get(v, 'id')) ?? str(get(v, 'toolCallId'))
      const piece = str(get(v, 'delta')) ?? str(get(v, 'inputTextDelta')) ?? str(get(v, 'argsTextDelta'))
      if (id !== undefined) addInputText(openCall(r, id), piece)
      return
    }
    case 'start': {
      mark(r, t)
      const id = str(get(v, 'messageId'))
      if (id !== undefined) session(s, id, t, emit)
      chunk(emit, t)
      return
    }
    case 'start-step':
    case 'step-start':
      mark(r, t)
      r.startSteps++
      rotate(r)
      stepOrChunk(r, emit, t)
      return
    case 'finish-step':
    case 'step-finish':
      finishStep(s, v, t, emit)
      return
    case 'finish':
      finishPart(s, v, t, emit)
      // live: the run is handed out at its finish (a later terminal part is a note)
      if (s.live && s.run.finished) {
        boundary(s, emit)
        s.liveEnded = true
      }
      return
    case 'abort': {
      if (r.finished) {
        diag(emit, 'ignored an abort part after the run had finished')
        return
      }
      const first = !r.content
      mark(r, t)
      if (first) chunk(emit, t)
      r.aborted = true
      const reason = str(get(v, 'reason'))
      if (reason !== undefined && r.abortReason === null) r.abortReason = cap(reason)
      emitEnding(r, emit, t)
      return
    }
    case 'error': {
      if (r.finished) {
        diag(emit, 'ignored an error part after the run had finished')
        return
      }
      mark(r, t)
      if (!r.errored) r.error = readError(v)
      r.errored = true
      emit(nativeEvent('stream/error', { error: r.error ?? readError(v), ...(r.mode !== 'sdk' ? { reason: 'provider_error' } : {}) }, at(t)))
      return
    }
    case 'text-start':
    case 'text-end':
      mark(r, t)
      if (r.stepEnded) rotate(r)
      chunk(emit, t)
      return
    case 'tool-input-start':
    case 'tool-call-streaming-start': {
      mark(r, t)
      const id = str(get(v, 'id')) ?? str(get(v, 'toolCallId'))
      if (id === undefined) {
        chunk(emit, t)
        diagType(emit, 'skipped a tool part without a string id:', t)
        return
      }
      if (!noteCall(r, emit, t, id, str(get(v, 'toolName')), undefined, false)) chunk(emit, t)
      return
    }
    case 'tool-call':
      toolCallPart(s, v, t, emit)
      return
    case 'tool-result':
    case 'tool-error':
    case 'tool-output-denied':
      toolOutputPart(s, v, t, emit)
      return
    case 'tool-approval-request':
      approvalRequest(s, v, t, emit)
      return
    case 'tool-approval-response': {
      mark(r, t)
      chunk(emit, t)
      const id = str(get(v, 'approvalId'))
      if (id !== undefined) dropApproval(r, id)
      return
    }
    case 'reasoning-start':
    case 'reasoning-end':
    case 'reasoning':
    case 'reasoning-part-finish':
    case 'redacted-reasoning':
    case 'tool-input-end':
    case 'source':
    case 'file':
      mark(r, t)
      chunk(emit, t)
      return
    case 'raw':
    case 'metadata':
      emitRecord(emit)
      return
    default:
      diagType(emit, 'skipped a part of unknown type', t)
  }
}
