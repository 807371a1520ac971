/**
 * The Claude Code on-disk transcript translator (`~/.claude/projects/<project>/<session>.jsonl` and
 * `<session>/subagents/*.jsonl`). See `../claudeCode.ts` for the rules.
 *
 * Translation (protocol 2): each real prompt starts a run: the open run's inferred ending is stated as a
 * `turn/end` with `inferred: true` and the root idle, both between records (the prompt belongs to the next
 * run), and at the end of the input the last run's ending the same way. A prompt → `user/message`; a root
 * tool_result record → `tool/result`s; a root assistant message → `turn/start` (a new `message.id`), its
 * `tool/call`s and `subagent/started` for Task/Agent calls, then `assistant/message` (`messageId` =
 * `message.id`); a synthetic or API-error message → an `assistant/chunk` (run content that is not the
 * answer). Sidechain records are stated in a session that is neither the root nor a child (their usage and
 * tool calls count, they never end or answer the run). A Task's tool_result → that child's `turn/end`, and the
 * `agentId` it names → `subagent/started { childSessionId: agentId, previousSessionId: callId }`. The
 * session (a record's `sessionId`) → `session/started` when it changes. A provider error object in place of a
 * message (K25) → an `assistant/chunk` (content, not the answer, no usage); a re-written earlier message (K26) →
 * its tool calls once and its usage in the sidechain session (the fold replaces the copy's). An ending with no
 * answer of its own (a turn closed by a `turn_duration` / `stop_hook_summary` marker on a tool result, an
 * `api_refusal`) is stated as an empty `assistant/message` before the `turn/end`, so the run keeps no earlier text
 * as its response. With a shared {@link SeenRecords}, a record another file of the input holds is stated as
 * nothing (K15). Other records carry no fact.
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import type { PendingItem } from '../../core/RunEnding.js'
import type { Emit } from '../../core/translator.js'
import { BETWEEN, emitDiagnostic, emitIdle, emitRecord, nativeEvent, type Origin, type ReasonIn } from '../events.js'
import { isObject, str, wholeCount, type Obj } from '../json.js'
import type { SeenRecords } from './seen.js'
import {
  ABORTED_BY_USER,
  COMPLETED,
  INTERACTIVE_TOOLS,
  IdSetCodec,
  LastUsageCodec,
  NO_DATA,
  PendingItemsCodec,
  SYNTHETIC_MODEL,
  USER_MESSAGE,
  addId,
  apiErrorMessage,
  assistantBlocks,
  badRecord,
  classifyUserText,
  cutOffReason,
  dropId,
  endingError,
  failedToolResult,
  hasId,
  joinText,
  jsonCopy,
  lastBlockEvents,
  messageContent,
  messageData,
  messageUsage,
  newIdSet,
  originOf,
  providerErrorOf,
  repeatsText,
  repeatsUsage,
  timeOf,
  unknownType,
  type IdSet,
  type LastUsage,
  type UserTextKind,
} from './shared.js'
import { NO_MODEL } from '../../core/RunResult.js'

/** Transcript record types that carry nothing for the ending (read and ignored without a diagnostic). */
export const TRANSCRIPT_TYPES: ReadonlySet<string> = new Set([
  'user',
  'assistant',
  'system',
  'summary',
  'file-history-snapshot',
  'attachment',
  'progress',
  'queue-operation',
  'permission-mode',
  'custom-title',
  'ai-title',
  'last-prompt',
  'mode',
  'agent-name',
  'frame-link',
  'pr-link',
  'relocated',
  'worktree-state',
  'bridge-session',
  'atis-latch',
  'tag',
])

/** The last root fact of a run, from which its ending is inferred. */
type FactKind =
  | 'none'
  | 'prompt'
  | 'text'
  | 'tool_use'
  | 'thinking'
  | 'assistant'
  | 'tool_result'
  | 'interrupt'
  | 'hook'
  | 'api_error'
  | 'limit'
  | 'provider_error'
  | 'refusal'
  | 'hook_stop'

/** How to treat sidechain records: `auto` decides from the first user/assistant record. @internal */
export type SubagentMode = boolean | 'auto'

/** The transcript translator's state (plain JSON). @internal */
export interface TranscriptState {
  file: string | null
  /** `sub`: a subagent file, read as one run; `main`: sidechains are subagents of the root; `null`: not decided yet. */
  mode: 'main' | 'sub' | null
  /** The session the fold was last told is the root. */
  told: string | null
  /** The first `sessionId` of the input. */
  fileSession: string | null
  /** The root session of the open run (its root records'), else `null`. */
  runSid: string | null
  /** The open run has root content (a prompt, a root tool_result or assistant message). */
  hasContent: boolean
  /** Runs ended so far. */
  emitted: number
  /** The last root fact and its details (the inferred ending). */
  fact: FactKind
  factStop: string | null
  factMessage: string | null
  factCode: string | null
  factLimit: number | null
  factActual: number | null
  /** The error type of a `provider_error` fact (K25). */
  factName: string | null
  /**
   * A `system` `turn_duration` / `stop_hook_summary` record (Claude Code ≥ 2.1) came after the last root fact: the
   * turn closed on its own (K11 markers).
   */
  turnClosed: boolean
  lastRootId: string | null
  /** The text of the last root message so far (its records' texts joined by blank lines), `null` when none. */
  lastRootText: string | null
  /** The `stop_reason` of the last root message (its copies). */
  rootStop: string | null
  /** Calls of tools that ask the person, in the last root message, still without a result. */
  pending: Array<PendingItem>
  /** Root message ids of the open run (its turns). */
  rootIds: IdSet
  tools: IdSet
  taskIds: IdSet
  /** The usage last stated for a message of the open run (its copies repeat it). */
  lastUsage: LastUsage | null
  /** This file's number in the input's {@link SeenRecords} (K15), or `null` when no set is shared. */
  seenInput: number | null
  /** Records skipped as copies of another file of the input. */
  copies: number
}

const NullableString = t.union([t.string, t.null])
const NullableNumber = t.union([t.number, t.null])

/** io-ts codec of {@link TranscriptState}. @internal */
export const TranscriptStateCodec: t.Type<TranscriptState, unknown> = t.type({
  file: NullableString,
  mode: t.union([t.literal('main'), t.literal('sub'), t.null]),
  told: NullableString,
  fileSession: NullableString,
  runSid: NullableString,
  hasContent: t.boolean,
  emitted: t.number,
  fact: t.keyof({
    none: null,
    prompt: null,
    text: null,
    tool_use: null,
    thinking: null,
    assistant: null,
    tool_result: null,
    interrupt: null,
    hook: null,
    api_error: null,
    limit: null,
    provider_error: null,
    refusal: null,
    hook_stop: null,
  }),
  factStop: NullableString,
  factMessage: NullableString,
  factCode: NullableString,
  factLimit: NullableNumber,
  factActual: NullableNumber,
  factName: NullableString,
  turnClosed: t.boolean,
  lastRootId: NullableString,
  lastRootText: NullableString,
  rootStop: NullableString,
  pending: PendingItemsCodec,
  rootIds: IdSetCodec,
  tools: IdSetCodec,
  taskIds: IdSetCodec,
  lastUsage: LastUsageCodec,
  seenInput: NullableNumber,
  copies: t.number,
}) as unknown as t.Type<TranscriptState, unknown>

/** A fresh transcript state (`seenInput`: the file's number in a shared {@link SeenRecords}, K15). @internal */
export const newTranscriptState = (file: string | null, subagent: SubagentMode, seenInput: number | null = null): TranscriptState => ({
  file,
  mode: subagent === true ? 'sub' : subagent === false ? 'main' : null,
  told: null,
  fileSession: null,
  runSid: null,
  hasContent: false,
  emitted: 0,
  fact: 'none',
  factStop: null,
  factMessage: null,
  factCode: null,
  factLimit: null,
  factActual: null,
  factName: null,
  turnClosed: false,
  lastRootId: null,
  lastRootText: null,
  rootStop: null,
  pending: [],
  rootIds: newIdSet(),
  tools: newIdSet(),
  taskIds: newIdSet(),
  lastUsage: null,
  seenInput,
  copies: 0,
})

/** Pending questions kept for one message at most (a message asks one or two). */
const MAX_PENDING = 64

/** The sessions sidechain facts are stated in: neither the root nor a child (the second when the root is named like the first). */
const SIDECHAIN = '<sidechain>'
const SIDECHAIN_2 = '<sidechain>#2'

const userKind = (v: Obj, msg: Obj): UserTextKind | 'tool_result' => {
  if (v['isMeta'] === true || v['isCompactSummary'] === true || v['isVisibleInTranscriptOnly'] === true) return 'meta'
  const content = msg['content']
  if (typeof content === 'string') return classifyUserText(content)
  if (!Array.isArray(content)) return 'meta'
  let text: string | undefined
  let any = false
  for (let i = 0; i < content.length; i++) {
    const b = content[i]
    if (!isObject(b)) continue
    any = true
    const bt = b['type']
    if (bt === 'tool_result') return 'tool_result'
    if (bt === 'text' && text === undefined && typeof b['text'] === 'string') text = b['text']
  }
  if (text !== undefined) return classifyUserText(text)
  return any ? 'prompt' : 'meta'
}

/** The last block that is an object (the one that tells what the message ended with), or `undefined`. */
const lastObject = (blocks: ReadonlyArray<unknown>): Obj | undefined => {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]
    if (isObject(b)) return b
  }
  return undefined
}

/** Tells the fold the root session (`session/started`, between records) when it changed. */
const tellRoot = (s: TranscriptState, emit: Emit): void => {
  const id = s.runSid ?? s.fileSession
  if (id === null || id === s.told) return
  s.told = id
  emit(nativeEvent('session/started', NO_DATA, { sessionId: id, between: true }))
}

/**
 * The inferred ending of the open run, from its last root fact. `noAnswer`: the ending keeps no text of the run's
 * messages as its response (a turn closed on a tool result, K11; a refusal whose message the API retracted).
 */
const endingReason = (s: TranscriptState): { reason: ReasonIn; finishReason: string | null; noAnswer?: true } => {
  switch (s.fact) {
    case 'text': {
      const cut = cutOffReason(s.factStop)
      return { reason: cut !== undefined ? { kind: 'cut-off', finishReason: cut } : COMPLETED, finishReason: s.factStop }
    }
    case 'tool_use':
      return {
        reason: s.pending.length > 0 ? { kind: 'suspended', pending: s.pending.slice() } : { kind: 'unfinished', lastEventType: 'tool_use' },
        finishReason: s.factStop,
      }
    case 'tool_result':
      // Claude Code ≥ 2.1 closes a finished turn with `turn_duration` / `stop_hook_summary`: a turn that closed on
      // a tool result finished on its own, without a final text (K11)
      return s.turnClosed
        ? { reason: COMPLETED, finishReason: null, noAnswer: true }
        : { reason: { kind: 'unfinished', lastEventType: 'tool_result' }, finishReason: null }
    case 'provider_error':
      return {
        reason: {
          kind: 'failed',
          reason: 'provider_error',
          phase: 'provider',
          error: {
            message: s.factMessage ?? 'provider error',
            ...(s.factName !== null ? { name: s.factName } : {}),
            ...(s.factCode !== null ? { code: s.factCode } : {}),
          },
        },
        finishReason: null,
      }
    case 'refusal':
      return { reason: { kind: 'cut-off', finishReason: 'refusal' }, finishReason: 'refusal', noAnswer: true }
    case 'hook_stop':
      return { reason: { kind: 'aborted', reason: { kind: 'hook', ...(s.factMessage !== null ? { reason: s.factMessage } : {}) } }, finishReason: null }
    case 'interrupt':
      return { reason: ABORTED_BY_USER, finishReason: null }
    case 'api_error':
      return { reason: { kind: 'failed', reason: 'provider_error', error: endingError(s.factMessage ?? 'API error', s.factCode) }, finishReason: null }
    case 'limit':
      return {
        reason: { kind: 'limit', reason: 'max_turns', field: 'turns', actual: s.factActual, ...(s.factLimit !== null ? { limit: s.factLimit } : {}) },
        finishReason: null,
      }
    case 'thinking':
      return { reason: { kind: 'unfinished', lastEventType: 'thinking' }, finishReason: null }
    case 'assistant':
      return { reason: { kind: 'unfinished', lastEventType: 'assistant' }, finishReason: null }
    case 'prompt':
    case 'hook':
      return { reason: { kind: 'unfinished', lastEventType: 'user' }, finishReason: null }
    case 'none':
      return { reason: { kind: 'unfinished' }, finishReason: null }
  }
}

/** A message with no text, which makes the run's response `null` (the fold answers with the last message's text). */
const NO_ANSWER = Object.freeze({ message: Object.freeze({ content: Object.freeze([]) }), messageId: '<no-answer>' })

/** States the open run's inferred ending (between records). */
const emitEnding = (s: TranscriptState, emit: Emit): void => {
  const { reason, finishReason, noAnswer } = endingReason(s)
  if (noAnswer === true) emit(nativeEvent('assistant/message', NO_ANSWER as never, BETWEEN))
  emit(nativeEvent('turn/end', { reason, finishReason, inferred: true }, BETWEEN))
}

/** The run's last root fact is now `fact` (a new fact reopens a turn that a marker had closed). */
const setFact = (s: TranscriptState, fact: FactKind): void => {
  s.fact = fact
  s.turnClosed = false
}

const newRun = (s: TranscriptState, emit: Emit): void => {
  s.hasContent = false
  s.fact = 'none'
  s.runSid = null
  s.lastRootId = null
  s.lastRootText = null
  s.turnClosed = false
  s.rootStop = null
  s.pending = []
  s.rootIds = newIdSet()
  s.tools = newIdSet()
  s.taskIds = newIdSet()
  s.lastUsage = null
  tellRoot(s, emit)
}

/** A real prompt: the open run, when it has content, is over (its ending, then the root idle). */
const boundary = (s: TranscriptState, emit: Emit): void => {
  if (!s.hasContent) return
  emitEnding(s, emit)
  emitIdle(emit)
  s.emitted++
  newRun(s, emit)
}

const decideMode = (s: TranscriptState, v: Obj): 'main' | 'sub' => {
  if (s.mode !== null) return s.mode
  const side = v['isSidechain'] === true
  const subFile = s.file !== null && /[\\/]subagents[\\/][^\\/]+$/.test(s.file)
  s.mode = side && (typeof v['agentId'] === 'string' || subFile) ? 'sub' : 'main'
  return s.mode
}

/** The session sidechain facts are stated in, or `null` while no session is known (a fact there would name the root). */
const sideSession = (s: TranscriptState): string | null => (s.told === null ? null : s.told === SIDECHAIN ? SIDECHAIN_2 : SIDECHAIN)

/**
 * The tool_result blocks of a user record: root ones are `tool/result`s and settle pending questions; a Task's
 * result ends its child (and renames it to the `agentId` the result names). Returns the root results stated.
 */
const toolResults = (s: TranscriptState, v: Obj, msg: Obj, side: boolean, origin: Origin, time: string | number | undefined, emit: Emit): number => {
  const content = msg['content']
  if (!Array.isArray(content)) return 0
  let n = 0
  for (let i = 0; i < content.length; i++) {
    const b = content[i]
    if (!isObject(b) || b['type'] !== 'tool_result') continue
    const id = str(b['tool_use_id'])
    if (id === undefined) continue
    const isError = b['is_error'] === true
    if (!side) {
      emit(nativeEvent('tool/result', isError ? { callId: id, error: {} } : { callId: id }, origin))
      n++
      if (s.pending.length > 0) s.pending = s.pending.filter((p) => p.id !== id)
    }
    if (!hasId(s.taskIds, id)) continue
    const tur = v['toolUseResult']
    const status = isObject(tur) ? str(tur['status']) : undefined
    const child: Origin = { sessionId: id, recordType: 'user', time }
    if (isError) emit(nativeEvent('turn/end', { reason: failedToolResult(b['content']), finishReason: null }, child))
    else if (status !== 'async_launched') emit(nativeEvent('turn/end', { reason: COMPLETED, finishReason: status ?? null }, child))
    const agentId = isObject(tur) ? str(tur['agentId']) : undefined
    if (agentId !== undefined) emit(nativeEvent('subagent/started', { childSessionId: agentId, previousSessionId: id }, origin))
    dropId(s.taskIds, id)
  }
  return n
}

const user = (s: TranscriptState, v: Obj, time: string | number | undefined, emit: Emit): void => {
  const msg = v['message']
  if (!isObject(msg)) {
    badRecord(emit, 'user', 'its message is not an object', time)
    return
  }
  const mode = decideMode(s, v)
  const side = mode === 'main' && v['isSidechain'] === true
  let kind = userKind(v, msg)
  // a background task reporting back starts a turn of its own, unless it comes while the model waits for its tool
  // results (then the running turn takes it in)
  if (kind === 'notification') kind = s.hasContent && s.fact === 'tool_use' ? 'meta' : 'prompt'
  if (!side && (kind === 'prompt' || kind === 'command') && !(mode === 'sub' && s.hasContent)) boundary(s, emit)
  const origin = originOf('user', time)
  // a record that states no run fact still counts in the run's lines and times
  if (side || (kind !== 'prompt' && kind !== 'tool_result')) emitRecord(emit, 'user', time)
  if (kind === 'tool_result') {
    const n = toolResults(s, v, msg, side, origin, time, emit)
    if (!side && n === 0) emit(nativeEvent('tool/result', { callId: '' }, origin))
  }
  if (side) return
  const sid = str(v['sessionId'])
  switch (kind) {
    case 'prompt':
      s.hasContent = true
      setFact(s, 'prompt')
      if (sid !== undefined) {
        s.runSid = sid
        tellRoot(s, emit)
      }
      emit(nativeEvent('user/message', USER_MESSAGE, origin))
      return
    case 'interrupt':
      setFact(s, 'interrupt')
      return
    case 'hook':
      if (s.hasContent) setFact(s, 'hook')
      return
    case 'tool_result':
      s.hasContent = true
      setFact(s, 'tool_result')
      if (sid !== undefined) {
        s.runSid = sid
        tellRoot(s, emit)
      }
      return
    default:
      return
  }
}

const assistant = (s: TranscriptState, v: Obj, time: string | number | undefined, emit: Emit): void => {
  const msg = v['message']
  if (!isObject(msg)) {
    badRecord(emit, 'assistant', 'its message is not an object', time)
    return
  }
  const mode = decideMode(s, v)
  const side = mode === 'main' && v['isSidechain'] === true
  const origin = originOf('assistant', time)
  const model = str(msg['model']) ?? NO_MODEL
  const id = str(msg['id'])
  const synthetic = model === SYNTHETIC_MODEL
  const stated = synthetic ? undefined : messageUsage(emit, msg['usage'], time)
  // a copy that repeats the message's usage exactly changes nothing in the fold: it is not stated again
  const usage = stated !== undefined && repeatsUsage(s, id, model, stated) ? undefined : stated
  const content = msg['content']
  const blocks: ReadonlyArray<unknown> = Array.isArray(content) ? content : []
  if (side) {
    // a subagent's record in the session file: its usage and tool calls count, it never ends or answers the run
    emitRecord(emit, 'assistant', time)
    const sc = sideSession(s)
    // while no session is known, a sidechain's facts can only be root ones: stated where they change nothing else
    // (a run with root content, or the first run, which is printed anyway)
    const rootOk = sc !== null || s.hasContent || s.emitted === 0
    const o: Origin = sc === null ? origin : { sessionId: sc, recordType: 'assistant', time }
    // a transcript opens subagent children for client-side calls only
    assistantBlocks(blocks, s.tools, s.taskIds, false, o, emit, rootOk)
    if (usage !== undefined && rootOk) usageOnly(sc, o, id, model, usage, emit)
    else if (!rootOk) s.lastUsage = null
    return
  }
  s.hasContent = true
  const sid = str(v['sessionId'])
  if (sid !== undefined) {
    s.runSid = sid
    tellRoot(s, emit)
  }
  const providerError = providerErrorOf(msg)
  if (providerError !== undefined) {
    // a provider error object in place of the model's response (K25): run content, never the answer; not a model
    // response, so no priced item
    emit(nativeEvent('assistant/chunk', { chunk: { type: 'provider_error' } }, origin))
    setFact(s, 'provider_error')
    s.factMessage = providerError.message
    s.factName = providerError.name
    s.factCode = providerError.code
    return
  }
  const apiError = v['isApiErrorMessage'] === true
  if (synthetic || apiError) {
    // a message Claude Code wrote itself (an API error, an interruption): run content, never the answer
    emit(nativeEvent('assistant/chunk', { chunk: { type: synthetic ? 'synthetic' : 'api_error' } }, origin))
    const text = assistantBlocks(blocks, s.tools, s.taskIds, false, origin, emit)
    if (usage !== undefined) {
      const sc = sideSession(s)
      usageOnly(sc, sc === null ? origin : { sessionId: sc, recordType: 'assistant', time }, id, model, usage, emit)
    }
    if (apiError || text?.startsWith('API Error') === true) {
      setFact(s, 'api_error')
      s.factMessage = apiErrorMessage(text)
      s.factCode = str(v['error']) ?? null
      s.factName = null
    }
    return
  }
  const copy = id !== undefined && id === s.lastRootId
  if (!copy && id !== undefined && hasId(s.rootIds, id)) {
    // an earlier message of the run written again (K26): its tool calls count once, its usage replaces the
    // earlier copy's; it is not the run's last message, so it neither answers nor ends the run
    emitRecord(emit, 'assistant', time)
    const sc = sideSession(s)
    assistantBlocks(blocks, s.tools, s.taskIds, false, sc === null ? origin : { sessionId: sc, recordType: 'assistant', time }, emit)
    if (usage !== undefined && sc !== null) usageOnly(sc, { sessionId: sc, recordType: 'assistant', time }, id, model, usage, emit)
    return
  }
  if (!copy) {
    if (id === undefined || addId(s.rootIds, id)) emit(nativeEvent('turn/start', NO_DATA, origin))
    s.lastRootId = id ?? null
    s.lastRootText = null
    s.rootStop = null
    if (s.pending.length > 0) s.pending = []
  }
  const found = assistantBlocks(blocks, s.tools, s.taskIds, false, origin, emit)
  const newCalls = lastBlockEvents()
  // the same record written twice (same message id and content, a new record uuid, K26): its text is already
  // the message's, its tool calls are counted; it adds nothing and changes no fact
  const repeated = copy && newCalls === 0 && (found !== null ? repeatsText(s.lastRootText, found) : onlyKnownCalls(blocks))
  const text = repeated ? null : found
  if (text !== null) s.lastRootText = joinText(s.lastRootText, text)
  if (copy && usage === undefined && text === null) {
    // a further copy with nothing new (no text, no new usage) would change nothing in the fold: not stated
    if (newCalls === 0) emitRecord(emit, 'assistant', time)
  } else {
    emit(nativeEvent('assistant/message', messageData(messageContent(text, blocks), usage, model, id), origin))
  }
  if (repeated) return
  const stop = str(msg['stop_reason'])
  if (stop !== undefined) s.rootStop = stop
  const last = lastObject(blocks)
  if (last === undefined) return
  const lt = last['type']
  if (lt === 'text') {
    setFact(s, 'text')
    s.factStop = s.rootStop
  } else if (lt === 'tool_use') {
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]
      if (!isObject(b) || b['type'] !== 'tool_use') continue
      const name = str(b['name'])
      const kind = name !== undefined ? INTERACTIVE_TOOLS.get(name) : undefined
      const tid = str(b['id'])
      if (kind === undefined || tid === undefined || name === undefined || s.pending.length >= MAX_PENDING || s.pending.some((p) => p.id === tid)) continue
      const input = b['input']
      s.pending.push({ id: tid, kind, toolName: name, ...(input !== undefined ? { arguments: jsonCopy(input) } : {}) })
    }
    setFact(s, 'tool_use')
    s.factStop = s.rootStop
  } else if (lt === 'thinking' || lt === 'redacted_thinking') setFact(s, 'thinking')
  else setFact(s, 'assistant')
}

/** `true` when the blocks hold tool calls and every one of them was already counted in the run (a repeated record). */
const onlyKnownCalls = (blocks: ReadonlyArray<unknown>): boolean => {
  let calls = 0
  for (let i = 0; i < blocks.length; i++) {
    const b = blocks[i]
    if (!isObject(b)) continue
    if (b['type'] !== 'tool_use' && b['type'] !== 'server_tool_use') return false
    calls++
  }
  return calls > 0
}

/**
 * Usage of a message that must not answer the run (a sidechain's, an API error's): an `assistant/message` in
 * the sidechain session (copies with one id replace each other), or, while no session is known, a `usage/add`.
 */
const usageOnly = (
  sc: string | null,
  origin: Origin,
  id: string | undefined,
  model: string,
  usage: NonNullable<ReturnType<typeof messageUsage>>,
  emit: Emit,
): void => {
  if (sc === null) emit(nativeEvent('usage/add', { usage, model }, origin))
  else emit(nativeEvent('assistant/message', messageData(messageContent(null), usage, model, id), origin))
}

const attachment = (s: TranscriptState, v: Obj, time: string | number | undefined, emit: Emit): void => {
  emitRecord(emit, 'attachment', time)
  const a = v['attachment']
  if (!isObject(a) || a['type'] !== 'max_turns_reached') return
  if (v['isSidechain'] === true && s.mode !== 'sub') return
  setFact(s, 'limit')
  // turns are whole numbers: a figure that is not one is unknown, and said
  const rawLimit = a['maxTurns'] ?? a['max_turns']
  const rawActual = a['turnCount'] ?? a['turn_count']
  s.factLimit = wholeCount(rawLimit) ?? null
  s.factActual = wholeCount(rawActual) ?? null
  if ((s.factLimit === null && rawLimit !== undefined && rawLimit !== null) || (s.factActual === null && rawActual !== undefined && rawActual !== null))
    emitDiagnostic(emit, 'ignored a turn figure of a max_turns_reached attachment: it is not a non-negative integer')
}

/** Claude Code ≥ 2.1 `system` records: the turn markers (K11), an API refusal, a stop hook's summary. */
const system = (s: TranscriptState, v: Obj, time: string | number | undefined, emit: Emit): void => {
  emitRecord(emit, undefined, time)
  if (!s.hasContent || (v['isSidechain'] === true && s.mode !== 'sub')) return
  switch (v['subtype']) {
    case 'turn_duration':
      s.turnClosed = true
      return
    case 'stop_hook_summary':
      if (v['preventedContinuation'] === true) {
        // a Stop hook ended the session's turn: stopped by the hook (its stop reason kept)
        const why = str(v['stopReason'])
        setFact(s, 'hook_stop')
        s.factMessage = why !== undefined && why.trim() !== '' ? clipped(why) : null
      } else s.turnClosed = true
      return
    case 'api_refusal':
      // the API refused the turn and retracted the message it had begun: cut off (refusal), that text no answer
      setFact(s, 'refusal')
      return
    default:
      return
  }
}

const clipped = (x: string): string => (x.length > 2000 ? `${x.slice(0, 2000)}…` : x)

const COPIED =
  'skipped records that another file of this input holds too (the same record uuid, or message id and request id: a resumed or forked session copies them); they count in the file read first'

/**
 * K15: a user or assistant record another file of the input claimed first (its `uuid`, or its `message.id` with
 * its `requestId`) is a copy: `true` (the caller skips it). Otherwise the record's identities are claimed for this
 * file.
 */
const isCopy = (s: TranscriptState, v: Obj, type: string, seen: SeenRecords): boolean => {
  if (type !== 'user' && type !== 'assistant') return false
  const input = s.seenInput as number
  const uuid = str(v['uuid'])
  const msg = v['message']
  const mid = type === 'assistant' && isObject(msg) ? str(msg['id']) : undefined
  const rid = mid !== undefined ? str(v['requestId']) : undefined
  // a uuid is its own key (no copy of it is made); a message's key starts with U+0000 and `m`, which no uuid key
  // does (a uuid starting with U+0000 gets a `u` after it), then the message id's length, so that no two pairs of
  // ids spell one key (`a\u0000b` + `c` and `a` + `b\u0000c` would, joined by a separator the ids may hold)
  const uk = uuid === undefined || uuid === '' ? undefined : uuid.charCodeAt(0) === 0 ? `\u0000u${uuid}` : uuid
  const mk = mid !== undefined && rid !== undefined && mid !== '' && rid !== '' ? `\u0000m${mid.length}\u0000${mid}${rid}` : undefined
  return seen.claimRecord(uk, mk, input)
}

/**
 * Translates one transcript record (an object). With `seen` (the records of the other files of the same input,
 * K15), a record another file holds too is skipped.
 * @internal
 */
export const transcriptRecord = (s: TranscriptState, v: Obj, emit: Emit, seen?: SeenRecords): void => {
  const type = v['type']
  if (typeof type !== 'string') {
    emitDiagnostic(emit, 'skipped a record without a string "type"')
    return
  }
  if (seen !== undefined && s.seenInput !== null && isCopy(s, v, type, seen)) {
    seen.countCopy()
    if (s.copies++ === 0) emitDiagnostic(emit, COPIED)
    return
  }
  const sid = v['sessionId']
  if (typeof sid === 'string' && s.fileSession === null) {
    s.fileSession = sid
    tellRoot(s, emit)
  }
  const time = timeOf(v['timestamp'])
  switch (type) {
    case 'user':
      user(s, v, time, emit)
      return
    case 'assistant':
      assistant(s, v, time, emit)
      return
    case 'attachment':
      attachment(s, v, time, emit)
      return
    case 'system':
      system(s, v, time, emit)
      return
    default:
      if (TRANSCRIPT_TYPES.has(type)) emitRecord(emit, undefined, time)
      else unknownType(emit, type, time)
  }
}

/** The input ended: the open run's inferred ending (or that of the one run an input without content makes). @internal */
export const transcriptEnd = (s: TranscriptState, emit: Emit): void => {
  if (!s.hasContent && s.emitted > 0) return
  emitEnding(s, emit)
  s.emitted++
}
