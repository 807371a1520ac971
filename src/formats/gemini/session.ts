/**
 * The translator of Gemini CLI on-disk sessions (`~/.gemini/tmp/<project>/chats/session-*.json` and `.jsonl`). The
 * rules, and how they become native events, are documented on the format module (`src/formats/gemini.ts`).
 *
 * Both containers go through one state: the legacy `.json` `ConversationRecord` feeds its `messages[]`, the
 * `.jsonl` log feeds its lines (metadata, messages, `$set`, `$rewindTo`). The state keeps one small entry per
 * message (kind, time, line, token counts, tool-call state), never the message bodies; answer texts are kept for
 * the last run only, and for each earlier run only its final answer. A rewritten id or a `$rewindTo` can reach
 * back to any earlier message, so runs are held until the input ends and emitted then — up to a bound: past
 * {@link MAX_SESSION_ENTRIES} held entries or {@link MAX_SESSION_TEXT} characters of earlier runs' answers, the
 * oldest runs (never the last one) are emitted early, down to half of each ({@link sessionRelease}), so memory is
 * flat in the length of the session. A later `$rewindTo` or a rewritten id that reaches into a run already
 * emitted cannot take it back: the rewind drops every run still held (with a diagnostic saying runs were emitted
 * early), a rewritten message is read as a new one (its id is no longer known). One run's own entries are not
 * capped: a run is one prompt and what answered it.
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import type { SessionEvent } from '../../core/events.js'
import type { PendingItem } from '../../core/RunEnding.js'
import { MAX_DIAGNOSTICS, type Diagnostic } from '../../core/RunResult.js'
import type { Emit } from '../../core/translator.js'
import { BETWEEN, emitIdle, nativeEvent, type ReasonIn } from '../events.js'
import { isObject, type Obj } from '../json.js'
import { isTokenCount } from '../../core/values.js'
import { MSG, plainJson } from './shared.js'

type Kind = 'prompt' | 'toolresponse' | 'gemini' | 'error' | 'note'
/** A gemini message's tool calls, summed up: the most telling status wins (cancelled > awaiting > error > pending > done). */
type ToolState = 'none' | 'done' | 'pending' | 'error' | 'awaiting' | 'cancelled'
const TOOL_RANK: Record<ToolState, number> = { none: 0, done: 1, pending: 2, error: 3, awaiting: 4, cancelled: 5 }

/** A gemini message's usage as disjoint buckets (tokens). */
interface Usage4 {
  inputTokens: number
  cacheReadTokens: number
  outputTokens: number
  reasoningTokens: number
}

/** One message of the session (its last copy). @internal */
export interface SessionEntry {
  /** The message id (a legacy document's message without one: `\u0000` and its index). */
  key: string
  kind: Kind
  type: string
  line: number | null
  time: string | null
  /** gemini: the answer text (dropped for earlier runs except their final answer); error: the error text. */
  text: string | null
  hasText: boolean
  model: string | null
  usage: Usage4 | null
  toolCalls: number
  toolState: ToolState
  toolError: string | null
  pending: Array<PendingItem> | null
}

/** Diagnostics gathered for one run (at most {@link MAX_DIAGNOSTICS}, the rest counted). @internal */
export interface DiagList {
  list: Array<Diagnostic>
  dropped: number
}

/**
 * A run: its messages in order, and the diagnostics of the lines read while it was the last run; `kept` (set
 * once a later run started) is the length of the answer text it still holds, in characters.
 * @internal
 */
export interface SessionRun {
  entries: Array<SessionEntry>
  diags: DiagList
  kept?: number
}

/** Entries held before the oldest runs are emitted early (see the module doc). @internal */
export const MAX_SESSION_ENTRIES = 10_000

/** Characters of earlier runs' final answers held before the oldest runs are emitted early. @internal */
export const MAX_SESSION_TEXT = 16 * 1024 * 1024

/** The session translator's state (plain JSON). @internal */
export interface SessionState {
  sessionId: string | null
  runs: Array<SessionRun>
  /**
   * `#`-prefixed message id → [run number, entry index]: the run is `runs[number − released]` (a rewind only
   * ever removes a suffix, so these stay valid).
   */
  byId: Record<string, [number, number]>
  /** Diagnostics from before the first run; they go to the first run. */
  pre: DiagList
  /** Runs emitted early (the oldest ones, past the bounds), absent when none was. */
  released?: number
  /** Entries held in `runs`, and characters of answer text held by runs other than the last. */
  held?: number
  heldText?: number
  /** The session id stated when the first runs were emitted early. */
  stated?: string | null
}

const DiagnosticCodec = t.intersection([t.type({ message: t.string }), t.partial({ line: t.number })])
const DiagListCodec = t.type({ list: t.array(DiagnosticCodec), dropped: t.number })
const strOrNull = t.union([t.string, t.null])
const EntryCodec = t.type({
  key: t.string,
  kind: t.keyof({ prompt: null, toolresponse: null, gemini: null, error: null, note: null }),
  type: t.string,
  line: t.union([t.number, t.null]),
  time: strOrNull,
  text: strOrNull,
  hasText: t.boolean,
  model: strOrNull,
  usage: t.union([t.type({ inputTokens: t.number, cacheReadTokens: t.number, outputTokens: t.number, reasoningTokens: t.number }), t.null]),
  toolCalls: t.number,
  toolState: t.keyof({ none: null, done: null, pending: null, error: null, awaiting: null, cancelled: null }),
  toolError: strOrNull,
  pending: t.union([t.array(t.intersection([t.type({ id: t.string, kind: t.string }), t.partial({ toolName: t.string, arguments: t.unknown })])), t.null]),
})

/** io-ts codec of {@link SessionState}. @internal */
export const SessionStateCodec: t.Type<SessionState, unknown> = t.intersection([
  t.type({
    sessionId: strOrNull,
    runs: t.array(t.intersection([t.type({ entries: t.array(EntryCodec), diags: DiagListCodec }), t.partial({ kept: t.number })])),
    byId: t.record(t.string, t.tuple([t.number, t.number])),
    pre: DiagListCodec,
  }),
  t.partial({ released: t.number, held: t.number, heldText: t.number, stated: strOrNull }),
]) as unknown as t.Type<SessionState, unknown>

const newDiagList = (): DiagList => ({ list: [], dropped: 0 })

/** A fresh session state (diagnostics stated before the input was known to be a session stay where they were emitted: the first run). @internal */
export const newSessionState = (): SessionState => ({ sessionId: null, runs: [], byId: {}, pre: newDiagList() })

/** Prefixes of user messages the CLI injects (context, hook output): not prompts (gemini-cli `isIgnoredUserContent`). */
const SESSION_CONTEXT = '<session_context>'
const HOOK_CONTEXT = '<hook_context>'

/** The text of a `PartListUnion` (a string, a Part, or Part[]): text parts joined, thought parts left out. One level deep. */
const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content
  const parts = Array.isArray(content) ? content : isObject(content) ? [content] : []
  let out = ''
  for (const p of parts) {
    if (typeof p === 'string') out += p
    else if (isObject(p) && typeof p['text'] === 'string' && p['thought'] !== true) out += p['text']
  }
  return out
}

/** `true` when a user message's text starts with a context injection (looks at the first text part only). */
const isInjected = (content: unknown): boolean => {
  let first: unknown = content
  if (Array.isArray(content)) first = content[0]
  if (isObject(first)) first = first['text']
  if (typeof first !== 'string') return false
  const s = first.charCodeAt(0) === 60 ? first : first.trimStart()
  return s.startsWith(SESSION_CONTEXT) || s.startsWith(HOOK_CONTEXT)
}

/** `true` when a user message carries tool responses and no typed text (newer builds record tool results so). */
const isToolResponse = (content: unknown): boolean => {
  const parts = Array.isArray(content) ? content : isObject(content) ? [content] : []
  let response = false
  for (const p of parts) {
    if (!isObject(p)) continue
    if (isObject(p['functionResponse'])) response = true
    else if (typeof p['text'] === 'string' && p['text'].trim() !== '') return false
  }
  return response
}

/** A token count: absent → 0, a count → itself, anything else → null. */
const countOf = (v: unknown): number | null => (v === undefined || v === null ? 0 : isTokenCount(v) ? v : null)

/** The error message a failed tool call returned: `result[].functionResponse.response.error`, else `resultDisplay`. */
const toolErrorOf = (call: Obj): string | null => {
  const r = call['result']
  const parts = Array.isArray(r) ? r : isObject(r) ? [r] : []
  for (const p of parts) {
    if (!isObject(p)) continue
    const fr = p['functionResponse']
    if (!isObject(fr)) continue
    const resp = fr['response']
    if (isObject(resp) && typeof resp['error'] === 'string' && resp['error'] !== '') return resp['error']
  }
  const shown = call['resultDisplay']
  return typeof shown === 'string' && shown !== '' ? shown : null
}

const addTo = (to: DiagList, line: number | undefined, message: string): void => {
  if (to.list.length >= MAX_DIAGNOSTICS) {
    to.dropped++
    return
  }
  to.list.push(line === undefined ? { message } : { line, message })
}

/** Where a diagnostic read now belongs: the last run, or before the first run. */
const target = (s: SessionState): DiagList => {
  const last = s.runs[s.runs.length - 1]
  return last === undefined ? s.pre : last.diags
}

/** A diagnostic of the session (it is emitted with the run it belongs to, at the end). @internal */
export const sessionDiagnostic = (s: SessionState, line: number | undefined, message: string): void => addTo(target(s), line, message)

/** A `.jsonl` line that is not JSON. @internal */
export const sessionNoise = (s: SessionState, line: number | undefined, unterminated: boolean): void =>
  sessionDiagnostic(s, line, unterminated ? MSG.cutLine : MSG.notJson)

/** A `.jsonl` line that is JSON but not an object. @internal */
export const sessionNotObject = (s: SessionState, line: number | undefined): void => sessionDiagnostic(s, line, MSG.notObject)

/** A new prompt: the previous run keeps only its final answer text (its length counts in `heldText`). */
const startRun = (s: SessionState): void => {
  const prev = s.runs[s.runs.length - 1]
  if (prev !== undefined) {
    let last: SessionEntry | undefined
    for (const e of prev.entries) if (e.kind === 'gemini' && e.hasText) last = e
    for (const e of prev.entries) if (e.kind === 'gemini' && e !== last) e.text = null
    prev.kept = last?.text?.length ?? 0
    s.heldText = (s.heldText ?? 0) + prev.kept
  }
  s.runs.push({ entries: [], diags: newDiagList() })
}

/**
 * A gemini message's `tokens` (per API response, not cumulative) as disjoint buckets: `input` is the whole
 * prompt (cache reads included), so uncached input = `input − cached`, plus `tool` (tool-use prompt tokens,
 * counted apart from the prompt); output = `output + thoughts`; reasoning = `thoughts`.
 */
const tokens = (s: SessionState, tk: unknown, line: number | undefined): Usage4 | null => {
  if (tk === undefined || tk === null) return null
  if (!isObject(tk)) {
    sessionDiagnostic(s, line, 'ignored message tokens that are not an object')
    return null
  }
  const input = countOf(tk['input'])
  const output = countOf(tk['output'])
  const cached = countOf(tk['cached'])
  const thoughts = countOf(tk['thoughts'])
  const tool = countOf(tk['tool'])
  const inputTokens = input === null || cached === null || tool === null ? null : Math.max(0, input - cached) + tool
  const outputTokens = output === null || thoughts === null ? null : output + thoughts
  if (inputTokens === null || outputTokens === null || !isTokenCount(inputTokens) || !isTokenCount(outputTokens)) {
    sessionDiagnostic(s, line, 'ignored message tokens with a count that is not a whole, non-negative number')
    return null
  }
  return { inputTokens, cacheReadTokens: cached as number, outputTokens, reasoningTokens: thoughts as number }
}

/** Reads a message's text, model, tokens and tool calls into its entry. */
const fill = (s: SessionState, e: SessionEntry, m: Obj, content: unknown, line: number | undefined): void => {
  e.text = null
  e.hasText = false
  e.model = null
  e.usage = null
  e.toolCalls = 0
  e.toolState = 'none'
  e.toolError = null
  e.pending = null
  if (e.kind === 'error') {
    const x = textOf(content)
    if (x !== '') e.text = x
    return
  }
  if (e.kind !== 'gemini') return
  const x = textOf(content)
  if (x.trim() !== '') {
    e.text = x
    e.hasText = true
  }
  const model = m['model']
  if (typeof model === 'string') e.model = model
  e.usage = tokens(s, m['tokens'], line)
  const calls = m['toolCalls']
  if (calls === undefined || calls === null) return
  if (!Array.isArray(calls)) return sessionDiagnostic(s, line, 'ignored toolCalls that are not an array')
  let bad = false
  for (const c of calls) {
    if (!isObject(c)) {
      bad = true
      continue
    }
    e.toolCalls++
    const status = c['status']
    let state: ToolState
    switch (status) {
      case 'success':
        state = 'done'
        break
      case 'error':
        state = 'error'
        if (e.toolError === null) e.toolError = toolErrorOf(c)
        break
      case 'cancelled':
        state = 'cancelled'
        break
      case 'awaiting_approval': {
        state = 'awaiting'
        const id = c['id']
        const name = c['name']
        const args = plainJson(c['args'])
        const item: PendingItem = {
          id: typeof id === 'string' ? id : '',
          kind: 'approval',
          ...(typeof name === 'string' ? { toolName: name } : {}),
          ...(args !== undefined ? { arguments: args } : {}),
        }
        e.pending ??= []
        e.pending.push(item)
        break
      }
      default:
        // validating, scheduled, executing, or a status this reader does not know: not finished.
        if (typeof status !== 'string') bad = true
        state = 'pending'
    }
    if (TOOL_RANK[state] > TOOL_RANK[e.toolState]) e.toolState = state
  }
  if (bad) sessionDiagnostic(s, line, 'a tool call record had an unexpected shape or status type')
}

const message = (s: SessionState, m: unknown, line: number | undefined, key: string): void => {
  if (!isObject(m)) return sessionDiagnostic(s, line, 'skipped a message that is not an object')
  const type = m['type']
  if (typeof type !== 'string') return sessionDiagnostic(s, line, 'skipped a message without a string type')
  let kind: Kind
  const content = m['content']
  switch (type) {
    case 'user':
      if (isToolResponse(content)) kind = 'toolresponse'
      else kind = isInjected(content) ? 'note' : 'prompt'
      break
    case 'gemini':
      kind = 'gemini'
      break
    case 'error':
      kind = 'error'
      break
    case 'info':
    case 'warning':
      kind = 'note'
      break
    default:
      return sessionDiagnostic(s, line, 'skipped a message of an unknown type')
  }
  const ts = m['timestamp']
  const time = typeof ts === 'string' ? ts : null
  const pos = s.byId[`#${key}`]
  let e: SessionEntry
  if (pos === undefined) {
    if (kind === 'prompt') startRun(s)
    else if (s.runs.length === 0) {
      if (kind === 'note') return
      startRun(s)
    }
    const ri = s.runs.length - 1
    const run = s.runs[ri] as SessionRun
    e = {
      key,
      kind,
      type,
      line: line ?? null,
      time,
      text: null,
      hasText: false,
      model: null,
      usage: null,
      toolCalls: 0,
      toolState: 'none',
      toolError: null,
      pending: null,
    }
    run.entries.push(e)
    s.held = (s.held ?? 0) + 1
    s.byId[`#${key}`] = [(s.released ?? 0) + ri, run.entries.length - 1]
  } else {
    e = (s.runs[pos[0] - (s.released ?? 0)] as SessionRun).entries[pos[1]] as SessionEntry
    // The same id appended again: gemini-cli rewrites a message whenever it changes (tokens, tool calls).
    if ((e.kind === 'prompt') !== (kind === 'prompt')) sessionDiagnostic(s, line, 'a message was rewritten with a different role; its first role was kept')
    else e.kind = kind
    e.type = type
    if (line !== undefined) e.line = line
    if (time !== null) e.time = time
  }
  fill(s, e, m, content, line)
}

/** Moves a dropped run's diagnostics to where reading continues. */
const moveDiagnostics = (s: SessionState, from: DiagList): void => {
  const to = target(s)
  for (const d of from.list) addTo(to, d.line, d.message)
  to.dropped += from.dropped
}

/** `$rewindTo`: the named message and everything after it are dropped (gemini-cli `rewindTo`); an unknown id drops all. */
const rewind = (s: SessionState, id: string, line: number | undefined): void => {
  const pos = s.byId[`#${id}`]
  if (pos === undefined) {
    const dropped = s.runs
    s.runs = []
    s.byId = {}
    s.held = 0
    s.heldText = 0
    for (const r of dropped) moveDiagnostics(s, r.diags)
    sessionDiagnostic(
      s,
      line,
      (s.released ?? 0) === 0
        ? 'a $rewindTo names a message that is not in the log; every message was dropped, as gemini-cli does'
        : `a $rewindTo names a message that is not among the runs still held (the ${s.released} earliest runs were already emitted, past ${MAX_SESSION_ENTRIES} messages held); every run still held was dropped`,
    )
    return
  }
  const ri = pos[0] - (s.released ?? 0)
  const ei = pos[1]
  const r = s.runs[ri] as SessionRun
  const later = s.runs.splice(ri + 1)
  let removed = 0
  let text = r.kept ?? 0
  for (const x of later) {
    removed += x.entries.length
    text += x.kept ?? 0
    for (const y of x.entries) delete s.byId[`#${y.key}`]
  }
  const cut = r.entries.splice(ei)
  removed += cut.length
  for (const y of cut) delete s.byId[`#${y.key}`]
  // `r` is the last run again: its answer text no longer counts as an earlier run's
  delete r.kept
  s.held = (s.held ?? 0) - removed
  s.heldText = (s.heldText ?? 0) - text
  const empty = r.entries.length === 0
  if (empty) {
    s.runs.splice(ri, 1)
    const now = s.runs[s.runs.length - 1]
    if (now !== undefined) {
      s.heldText = (s.heldText ?? 0) - (now.kept ?? 0)
      delete now.kept
    }
  }
  for (const x of later) moveDiagnostics(s, x.diags)
  if (empty) moveDiagnostics(s, r.diags)
}

/** A whole `ConversationRecord` (legacy `.json`): its `sessionId` and every message in order. @internal */
export const sessionDocument = (s: SessionState, doc: Obj, line: number | undefined): void => {
  const sid = doc['sessionId']
  if (typeof sid === 'string') s.sessionId = sid
  else if (sid !== undefined) sessionDiagnostic(s, line, 'ignored a sessionId that is not a string')
  const messages = doc['messages']
  if (!Array.isArray(messages)) {
    sessionDiagnostic(s, line, 'the session record has no messages array')
    return
  }
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i]
    const id = isObject(m) && typeof m['id'] === 'string' ? m['id'] : `\u0000${i}`
    message(s, m, line, id)
  }
}

/**
 * One `.jsonl` record, classified as gemini-cli's loader does: `$rewindTo` (string) → rewind; `id` (string) →
 * message; `$set` (object) → metadata update; `sessionId` → metadata (a whole `ConversationRecord` on one line
 * is read as the legacy document).
 * @internal
 */
export const sessionRecord = (s: SessionState, v: Obj, line: number | undefined): void => {
  const target$ = v['$rewindTo']
  if (typeof target$ === 'string') return rewind(s, target$, line)
  if (target$ !== undefined) return sessionDiagnostic(s, line, 'skipped a $rewindTo record whose target is not a string')
  const id = v['id']
  if (typeof id === 'string') return message(s, v, line, id)
  const set = v['$set']
  if (set !== undefined) {
    if (!isObject(set)) return sessionDiagnostic(s, line, 'skipped a $set record whose value is not an object')
    const sid = set['sessionId']
    if (typeof sid === 'string') s.sessionId = sid
    // `$set.messages` is gemini-cli rewriting the model's context (compression, masking, a rolled-back turn):
    // it does not change what happened in the session, so the runs are left as they are.
    return
  }
  const sid = v['sessionId']
  if (typeof sid === 'string') {
    if (Array.isArray(v['messages'])) return sessionDocument(s, v, line)
    s.sessionId = sid
    return
  }
  sessionDiagnostic(s, line, 'ignored a record that is not a message, metadata, $set or $rewindTo')
}

// ---- emission ------------------------------------------------------------------------------------------

/** An event at a line of the log (a run's records are emitted at the end, each at its own line). */
const atLine = (ev: SessionEvent, line: number | null | undefined): SessionEvent =>
  line === null || line === undefined ? ev : ({ ...ev, line } as SessionEvent)

/** The events of one message, at its (last copy's) line and time. */
const entryEvents = (e: SessionEntry, emit: Emit): void => {
  const o = { ...(e.time !== null ? { time: e.time } : {}), recordType: e.type }
  const put = (ev: SessionEvent): void => emit(atLine(ev, e.line))
  switch (e.kind) {
    case 'prompt':
      put(nativeEvent('user/message', { message: null }, o))
      return
    case 'toolresponse':
      put(nativeEvent('tool/result', { callId: '' }, o))
      return
    case 'error':
      put(nativeEvent('stream/error', { error: { message: e.text ?? 'error' } }, o))
      return
    case 'note':
      // injected context and CLI notes: part of the run's records, never a prompt or an answer
      if (e.type === 'user') put(nativeEvent('user/message', { message: null }, o))
      else put(nativeEvent('assistant/chunk', { chunk: { type: e.type } }, o))
      return
    case 'gemini': {
      put(nativeEvent('turn/start', {}, o))
      // each message is its own copy (messageId = its id): a message whose text was not kept states none
      put(
        nativeEvent(
          'assistant/message',
          {
            message: { content: e.text !== null ? [{ type: 'text', text: e.text }] : [] },
            messageId: e.key,
            ...(e.usage !== null ? { usage: e.usage, ...(e.model !== null ? { model: e.model } : {}) } : {}),
          },
          o,
        ),
      )
      for (let i = 0; i < e.toolCalls; i++) put(nativeEvent('tool/call', { callId: '', name: '' }, o))
      return
    }
  }
}

/** The ending of a run, read from its last messages (the session format has no terminal record). */
const infer = (entries: ReadonlyArray<SessionEntry>): { reason: ReasonIn; answered: boolean; response: string | null } => {
  const none = (reason: ReasonIn): { reason: ReasonIn; answered: boolean; response: string | null } => ({ reason, answered: false, response: null })
  let i = entries.length - 1
  while (i >= 0 && (entries[i] as SessionEntry).kind === 'note') i--
  const L = entries[i]
  if (L === undefined || L.kind === 'prompt') return none({ kind: 'unfinished', lastEventType: 'user' })
  if (L.kind === 'error') return none({ kind: 'failed', reason: 'error', ...(L.text !== null ? { error: { message: L.text } } : {}) })
  // The gemini message the tail answers to: L itself, or the one before trailing tool responses.
  let j = i
  while (j >= 0 && ((entries[j] as SessionEntry).kind === 'toolresponse' || (entries[j] as SessionEntry).kind === 'note')) j--
  const G = entries[j]
  const unfinished = { kind: 'unfinished', lastEventType: L.type }
  if (G === undefined || G.kind !== 'gemini') return none(unfinished)
  switch (G.toolState) {
    case 'none':
      if (G === L && G.hasText) return { reason: { kind: 'completed' }, answered: true, response: G.text }
      return none(unfinished)
    case 'cancelled':
      return none({ kind: 'aborted', reason: { kind: 'user', reason: 'tool call cancelled' } })
    case 'awaiting':
      return none({ kind: 'suspended', pending: G.pending ?? [] })
    case 'error':
      return none({ kind: 'failed', reason: 'error', phase: 'tool', error: { message: G.toolError ?? 'a tool call failed' } })
    case 'pending':
    case 'done':
      return none(unfinished)
  }
}

/** A diagnostic at its line (or at none). */
const diagEvent = (d: Diagnostic): SessionEvent => atLine(nativeEvent('source/diagnostic', { message: d.message }, BETWEEN), d.line)

/** Diagnostics that were not kept (past the cap): they count in the run's `diagnosticsDropped`, at no line. */
const emitDropped = (n: number, emit: Emit): void => {
  for (let i = 0; i < n; i++) emit(nativeEvent('source/diagnostic', { message: 'a diagnostic past the limit' }, BETWEEN))
}

/**
 * One run's events: its diagnostics and messages merged in line order (each at its own line; when a rewritten
 * message moves the run's first or last line, a record at that line states it), the inferred ending (between
 * records), and the root idle.
 */
const emitRun = (run: SessionRun, pre: DiagList | null, emit: Emit): void => {
  const diags = pre !== null ? pre.list.concat(run.diags.list) : run.diags.list
  const entries = run.entries
  const order: Array<Diagnostic | SessionEntry> = []
  let i = 0
  let j = 0
  while (i < diags.length || j < entries.length) {
    const d = diags[i]
    const e = entries[j]
    if (d !== undefined && (e === undefined || (d.line ?? 0) <= (e.line ?? 0))) {
      order.push(d)
      i++
    } else if (e !== undefined) {
      order.push(e)
      j++
    }
  }
  let lo: number | null = null
  let hi: number | null = null
  let first: number | null = null
  let last: number | null = null
  for (const x of order) {
    const l = x.line ?? null
    if (l === null) continue
    if (first === null) first = l
    last = l
    if (lo === null || l < lo) lo = l
    if (hi === null || l > hi) hi = l
  }
  if (lo !== null && lo !== first) emit(atLine(nativeEvent('source/record', {}, BETWEEN), lo))
  for (const x of order) {
    if ('message' in x) emit(diagEvent(x))
    else entryEvents(x, emit)
  }
  if (hi !== null && hi !== last) emit(atLine(nativeEvent('source/record', {}, BETWEEN), hi))
  emitDropped((pre !== null ? pre.dropped : 0) + run.diags.dropped, emit)
  const { reason, answered, response } = infer(entries)
  emit(nativeEvent('turn/end', { reason, finishReason: null, inferred: true }, BETWEEN))
  if (answered && response === null) emit(nativeEvent('source/diagnostic', { message: 'the final answer text of this run was not kept' }, BETWEEN))
  emitIdle(emit)
}

/**
 * The input ended: every run's events, in order (no `$rewindTo` can take them back now), and the state is
 * released. A session without runs states only its id and its diagnostics (the fold makes it one `unfinished` run).
 * @internal
 */
export const sessionEnd = (s: SessionState, emit: Emit): void => {
  const runs = s.runs
  const pre = s.pre
  s.runs = []
  s.byId = {}
  s.pre = newDiagList()
  s.held = 0
  s.heldText = 0
  if (s.released !== undefined) {
    // the first runs were emitted early: the session was stated then (again only if `$set` renamed it since)
    if (s.sessionId !== null && s.sessionId !== s.stated) emit(nativeEvent('session/started', {}, { sessionId: s.sessionId, between: true }))
    for (let k = 0; k < runs.length; k++) emitRun(runs[k] as SessionRun, k === 0 ? pre : null, emit)
    if (runs.length === 0) {
      for (const d of pre.list) emit(diagEvent(d))
      emitDropped(pre.dropped, emit)
    }
    return
  }
  if (runs.length === 0) {
    // a record of the session with no fact: it names the run-less input's session (session/started would be its last word)
    if (s.sessionId !== null) emit(nativeEvent('source/record', {}, { sessionId: s.sessionId, between: true }))
    for (const d of pre.list) emit(diagEvent(d))
    emitDropped(pre.dropped, emit)
    return
  }
  if (s.sessionId !== null) emit(nativeEvent('session/started', {}, { sessionId: s.sessionId, between: true }))
  for (let k = 0; k < runs.length; k++) {
    emitRun(runs[k] as SessionRun, k === 0 ? pre : null, emit)
    runs[k] = { entries: [], diags: newDiagList() }
  }
}

/**
 * Emits the oldest runs early when the session holds more than {@link MAX_SESSION_ENTRIES} entries or
 * {@link MAX_SESSION_TEXT} characters of earlier answers: oldest first, never the last run, down to half of
 * each (so each entry is emitted once and the check is O(1) amortised). Called after each record; a run emitted
 * here is final (see the module doc).
 * @internal
 */
export const sessionRelease = (s: SessionState, emit: Emit): void => {
  if ((s.held ?? 0) <= MAX_SESSION_ENTRIES && (s.heldText ?? 0) <= MAX_SESSION_TEXT) return
  let k = 0
  while (k < s.runs.length - 1 && ((s.held ?? 0) > MAX_SESSION_ENTRIES / 2 || (s.heldText ?? 0) > MAX_SESSION_TEXT / 2)) {
    const run = s.runs[k] as SessionRun
    if (s.released === undefined) {
      // the session is stated once, before its first run
      s.stated = s.sessionId
      if (s.sessionId !== null) emit(nativeEvent('session/started', {}, { sessionId: s.sessionId, between: true }))
    }
    emitRun(run, s.released === undefined ? s.pre : null, emit)
    if (s.released === undefined) s.pre = newDiagList()
    s.released = (s.released ?? 0) + 1
    s.held = (s.held ?? 0) - run.entries.length
    s.heldText = (s.heldText ?? 0) - (run.kept ?? 0)
    for (const e of run.entries) delete s.byId[`#${e.key}`]
    k++
  }
  if (k > 0) s.runs.splice(0, k)
}
