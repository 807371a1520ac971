/**
 * The native fold (SPEC §4): `FoldState`, the pure `step`, and `foldEvents` / `foldRuns`.
 *
 * `FoldState` is a plain JSON value (no classes, no Maps; id-keyed records use `#`-prefixed keys so an id
 * such as `__proto__` is an ordinary key), so a consumer can checkpoint it and resume ({@link FoldStateCodec}).
 * `step` is pure: it copies the state, then applies the event with the same `applyEvent` the fast paths use on
 * one private, mutable state per fold — one source of semantics, property-tested equal.
 *
 * Runs: without a `messageId`, the root `idle` delimits runs (everything after the previous root idle up to and
 * including the next); with one, the run opens at the `agent/inbox/spliced` that inserted it and closes at the
 * root idle (seed 002's owned interval). The ending is the last root `turn/end`'s (max-tokens sticky within its
 * turn); the response is the last root `assistant/message` text; usage covers root and children.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { decodeEventRaw } from './decodeEvent.js'
import type { SessionEvent } from './events.js'
import { ProtocolError } from './ProtocolError.js'
import type { RunEnding } from './RunEnding.js'
import {
  addDiagnostic,
  addUsage,
  cloneDraft,
  ensureChild,
  finishRun,
  newDraft,
  setChildEnding,
  touch,
  type RunDraft,
  type RunResult,
} from './RunResult.js'
import { endingFromTurnEndReason } from './turnEnd.js'

/** How many recent `seq` values per session are remembered to drop replayed deliveries (SPEC §4). @since 0.1.0 */
export const SEQ_WINDOW = 1024

/** Per-session `seq` memory: the highest applied, and a ring of the last {@link SEQ_WINDOW} applied. @since 0.1.0 */
export interface SeqMemory {
  max: number
  recent: Array<number>
  pos: number
}

/** The run being read. @since 0.1.0 */
export interface NativeRunState {
  draft: RunDraft
  /** Raw kind of the last root `turn/end`. */
  finishReason: string | null
  ending: RunEnding | null
  /** Set by a root `max-tokens` turn end; a later `completed` end of the same turn stays cut off. */
  sticky: { turn: number | null } | null
  response: string | null
  lastEventType: string | null
}

/**
 * The fold's state: a plain, JSON-serializable value. Treat it as opaque; checkpoint it with
 * {@link FoldStateCodec} and resume with {@link step} / {@link resumeFold}.
 * @since 0.1.0
 */
export interface FoldState {
  readonly version: 1
  /** Events seen so far (the index of the next one). */
  events: number
  root: string | null
  /** `#`-prefixed ids of sessions named as children (descendants) by `subagent/started`. */
  children: Record<string, true>
  sessions: Record<string, SeqMemory>
  run: NativeRunState
  /** Runs closed so far. */
  runs: number
  /** The run closed by the last event applied, else `null`. */
  closed: RunResult | null
  /** The most recently closed run (what `foldEvents` answers when nothing followed it). */
  lastClosed: RunResult | null
  /** Owned-interval mode (seed 002): the `messageId` whose receipt opens the run. */
  messageId: string | null
  /** In owned-interval mode: the receipt was seen. */
  open: boolean
  /** In owned-interval mode: the interval closed; later events are ignored. */
  done: boolean
  file: string | null
}

/** Options of the native fold. @since 0.1.0 */
export interface FoldOptions {
  /** Seed 002's owned interval: open at the receipt that inserted this message id, close at the root idle. */
  readonly messageId?: string
  /** The file the events come from, for `RunResult.source`. */
  readonly file?: string | null
}

const newRun = (): NativeRunState => ({
  draft: newDraft(),
  finishReason: null,
  ending: null,
  sticky: null,
  response: null,
  lastEventType: null,
})

/** The state before any event. @since 0.1.0 */
export const initialState = (options: FoldOptions = {}): FoldState => ({
  version: 1,
  events: 0,
  root: null,
  children: {},
  sessions: {},
  run: newRun(),
  runs: 0,
  closed: null,
  lastClosed: null,
  messageId: options.messageId ?? null,
  open: options.messageId === undefined,
  done: false,
  file: options.file ?? null,
})

/** A deep copy (the parts `applyEvent` mutates). @internal */
export const cloneState = (s: FoldState): FoldState => {
  const sessions: Record<string, SeqMemory> = {}
  for (const k of Object.keys(s.sessions)) {
    const m = s.sessions[k] as SeqMemory
    sessions[k] = { max: m.max, recent: m.recent.slice(), pos: m.pos }
  }
  return {
    ...s,
    children: { ...s.children },
    sessions,
    run: { ...s.run, draft: cloneDraft(s.run.draft), sticky: s.run.sticky === null ? null : { ...s.run.sticky } },
  }
}

const safeName = (s: string): string => {
  const cut = s.length > 60 ? `${s.slice(0, 60)}…` : s
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strip control characters from names echoed in diagnostics
  return cut.replace(/[\u0000-\u001f\u007f]/g, '?')
}

const textOf = (content: ReadonlyArray<Record<string, unknown>>): string => {
  let out = ''
  for (const block of content) {
    if (block['type'] === 'text' && typeof block['text'] === 'string') out += block['text']
  }
  return out
}

/** The last session's seq memory, so the hot path avoids building its key on every event. @internal */
export interface SeqCache {
  id: string | null
  mem: SeqMemory | undefined
}

/** Whether this seq was already applied in the session (and must be dropped); records it otherwise. */
const seenSeq = (s: FoldState, session: string, seq: number, cache?: SeqCache): 'new' | 'repeat' | 'late' => {
  let m: SeqMemory | undefined
  if (cache !== undefined && cache.id === session && cache.mem !== undefined) m = cache.mem
  else {
    const key = `#${session}`
    m = s.sessions[key]
    if (m === undefined) {
      m = { max: -1, recent: [], pos: 0 }
      s.sessions[key] = m
    }
    if (cache !== undefined) {
      cache.id = session
      cache.mem = m
    }
  }
  let verdict: 'new' | 'late' = 'new'
  if (seq <= m.max) {
    if (m.recent.includes(seq)) return 'repeat'
    verdict = 'late'
  } else {
    m.max = seq
  }
  if (m.recent.length < SEQ_WINDOW) m.recent.push(seq)
  else {
    m.recent[m.pos] = seq
    m.pos = (m.pos + 1) % SEQ_WINDOW
  }
  return verdict
}

const ignoredMessage = (ev: Extract<SessionEvent, { type: 'run-outcome/ignored' }>): string => {
  const d = ev.data
  const name = safeName(d.originalType)
  switch (d.why) {
    case 'unknown-type':
      return `ignored an event of unknown type "${name}"`
    case 'jsonrpc':
      return `skipped a JSON-RPC message ("${name}") that is not a session notification`
    case 'envelope':
      return `skipped a "${name}" event: ${d.path ?? 'envelope'} should be ${d.expected ?? 'valid'}`
    case 'malformed':
      return `skipped a "${name}" event whose data${d.path ? ` at ${d.path}` : ''} is not ${d.expected ?? 'valid'}`
  }
}

/** The open run of `s` as a `RunResult`: its ending, or `unfinished` (with the last event type) without one. */
const resultOf = (s: FoldState): RunResult => {
  const r = s.run
  return finishRun(r.draft, {
    format: 'native',
    sessionId: s.root,
    ending: r.ending ?? { kind: 'unfinished', ...(r.lastEventType !== null ? { lastEventType: r.lastEventType } : {}) },
    finishReason: r.finishReason,
    response: r.response,
    file: s.file,
  })
}

const closeRun = (s: FoldState): void => {
  const result = resultOf(s)
  s.closed = result
  s.lastClosed = result
  s.runs++
  s.run = newRun()
}

/**
 * Applies one decoded event to the state **in place**. The engine behind `step` (which copies first) and the
 * fast paths (one private state per fold). `line` is the event's 1-based line when read from a log.
 * @internal
 */
export const applyEvent = (s: FoldState, ev: SessionEvent, line?: number, cache?: SeqCache): void => {
  s.events++
  s.closed = null
  if (s.done) return
  // Owned interval: drop everything before the receipt that inserted our message.
  if (!s.open) {
    if (ev.type !== 'agent/inbox/spliced' || !ev.data.inserted.some((m) => m.id === s.messageId)) return
    s.open = true
    if (s.root === null && ev.sessionId !== null) s.root = ev.sessionId
  }
  const run = s.run
  const d = run.draft
  if (ev.type === 'subagent/started' || ev.type === 'subagent/finished') {
    const { parentSessionId, childSessionId } = ev.data
    if (s.root === null || s.root === childSessionId) s.root = parentSessionId
  } else if (s.root === null && ev.sessionId !== null && s.children[`#${ev.sessionId}`] === undefined) {
    s.root = ev.sessionId
  }
  const session = ev.sessionId ?? s.root ?? ''
  const isRoot = ev.sessionId === null || ev.sessionId === s.root
  if (ev.seq !== undefined) {
    const v = seenSeq(s, session, ev.seq, cache)
    if (v === 'repeat') {
      addDiagnostic(d, line, `dropped a repeated delivery (seq ${ev.seq} was already applied in this session)`)
      return
    }
    if (v === 'late') addDiagnostic(d, line, `applied an event whose seq ${ev.seq} is lower than an earlier one in this session`)
  }
  touch(d, line, ev.time)
  const originalType = ev.type === 'run-outcome/ignored' ? ev.data.originalType : ev.type
  run.lastEventType = originalType
  switch (ev.type) {
    case 'run-outcome/ignored':
      addDiagnostic(d, line, ignoredMessage(ev))
      return
    case 'agent/inbox/spliced':
    case 'user/message':
    case 'assistant/chunk':
      if (isRoot) d.hasContent = true
      return
    case 'session/status':
      if (isRoot && ev.data.status === 'idle') {
        if (s.messageId !== null) {
          closeRun(s)
          s.done = true
        } else if (d.hasContent) closeRun(s)
      }
      return
    case 'turn/start':
      if (isRoot) {
        d.hasContent = true
        d.turns++
        run.sticky = null
      }
      return
    case 'turn/end': {
      const reason = ev.data.reason as Record<string, unknown>
      const ending = endingFromTurnEndReason(reason)
      const kind = ev.data.reason.kind
      if (!isRoot) {
        setChildEnding(d, session, ending, kind)
        return
      }
      d.hasContent = true
      run.finishReason = kind
      const turn = ev.data.turn ?? null
      if (kind === 'max-tokens') {
        run.sticky = { turn }
        run.ending = ending
        return
      }
      const st = run.sticky
      if (kind === 'completed' && st !== null && (st.turn === null || turn === null || st.turn === turn)) {
        run.ending = { kind: 'cut_off', finishReason: 'max_tokens' }
        return
      }
      run.sticky = null
      run.ending = ending
      return
    }
    case 'step/start':
    case 'step/end':
      return
    case 'assistant/message': {
      const data = ev.data
      if (data.usage !== undefined) addUsage(d, data.model, data.usage, data.costUsd, line)
      if (isRoot) {
        d.hasContent = true
        run.response = textOf(data.message.content)
      }
      return
    }
    case 'tool/call':
      d.toolCalls++
      if (isRoot) d.hasContent = true
      return
    case 'tool/result':
      return
    case 'subagent/started': {
      const child = ev.data.childSessionId
      s.children[`#${child}`] = true
      ensureChild(d, child)
      return
    }
    case 'subagent/finished': {
      const child = ev.data.childSessionId
      s.children[`#${child}`] = true
      const stop = ev.data.stopReason
      if (stop !== undefined) setChildEnding(d, child, endingFromTurnEndReason({ kind: stop }), stop)
      else ensureChild(d, child)
      return
    }
  }
}

/**
 * The pure reducer, with `scan`'s argument order: a new state with `event` applied; `state` is not changed.
 * `index` is the event's 0-based position (kept for `scan` compatibility; the state counts events itself).
 * Total: decoded events cannot fail (decode with {@link decodeEvent} first).
 * @since 0.1.0
 */
export const step = (state: FoldState, event: SessionEvent, _index?: number): FoldState => {
  const next = cloneState(state)
  applyEvent(next, event)
  return next
}

/**
 * The `RunResult` of the input so far: the current run when it has content (or when no run closed yet, as
 * `unfinished` when it has no terminal event), otherwise the run the last root idle closed.
 * @since 0.1.0
 */
export const currentResult = (s: FoldState): RunResult => {
  if (!s.run.draft.hasContent && s.lastClosed !== null) return s.lastClosed
  return resultOf(s)
}

/** `true` when the current run has content that is not yet part of a closed run. @since 0.1.0 */
export const hasOpenRun = (s: FoldState): boolean => s.run.draft.hasContent

/**
 * A private, mutable fold: decode + apply per input, with closed runs handed to `onRun`. The engine of
 * `foldRuns`, the operators and the file reader.
 * @internal
 */
export class NativeFolder {
  readonly state: FoldState
  private readonly cache: SeqCache = { id: null, mem: undefined }
  constructor(options: FoldOptions = {}, state?: FoldState) {
    this.state = state ?? initialState(options)
  }
  /** Decodes and applies one input. Returns the `ProtocolError` if it is malformed (the state is unchanged). */
  push(input: unknown, line?: number): ProtocolError | undefined {
    const decoded = decodeEventRaw(input, this.state.events)
    if (decoded instanceof ProtocolError) return line === undefined ? decoded : decoded.at(line)
    applyEvent(this.state, decoded, line, this.cache)
    return undefined
  }
}

/**
 * Every run of a native event sequence (SPEC §4): one `RunResult` per root-idle-delimited run (or the owned
 * interval with `messageId`). An input with no run gives one `unfinished` run.
 *
 * **Fails with** the first `ProtocolError` (kind `event` or `turn-end`), whatever follows it. Never throws.
 * @since 0.1.0
 */
export const foldRuns = (events: Iterable<unknown>, options: FoldOptions = {}): E.Either<ProtocolError, Array<RunResult>> => {
  const f = new NativeFolder(options)
  const out: Array<RunResult> = []
  for (const ev of events) {
    const err = f.push(ev)
    if (err !== undefined) return E.left(err)
    if (f.state.closed !== null) out.push(f.state.closed)
  }
  if (hasOpenRun(f.state) || out.length === 0) out.push(currentResult(f.state))
  return E.right(out)
}

/**
 * Folds a native event sequence into the `RunResult` of its last run (SPEC §1, §4).
 *
 * 1. Each input is decoded ({@link decodeEvent}); unknown types and malformed non-terminal events become
 *    diagnostics. 2. The state is updated in one private accumulator. 3. At the end, the last run is returned:
 *    its ending from the last root `turn/end`, or `unfinished` when there is none.
 *
 * **Fails with** the first `ProtocolError` (a `turn/end` without a valid reason, an event without a string
 * `type`); the index is that event's position. Never throws.
 * @example foldEvents([{ type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } }])
 * // => right({ ending: { kind: 'answered' }, finishReason: 'completed', … })
 * @since 0.1.0
 */
export const foldEvents = (events: Iterable<unknown>, options: FoldOptions = {}): E.Either<ProtocolError, RunResult> => {
  const f = new NativeFolder(options)
  for (const ev of events) {
    const err = f.push(ev)
    if (err !== undefined) return E.left(err)
  }
  return E.right(currentResult(f.state))
}

/**
 * Continues a fold from a checkpointed state (see {@link FoldStateCodec}) over more events. The state passed
 * in is not changed. Returns the new state and the runs closed on the way.
 *
 * **Fails with** the first `ProtocolError` among `events` (its index counts from the events already folded).
 * @since 0.1.0
 */
export const resumeFold = (
  state: FoldState,
  events: Iterable<unknown>,
): E.Either<ProtocolError, { readonly state: FoldState; readonly closed: ReadonlyArray<RunResult> }> => {
  const f = new NativeFolder({}, cloneState(state))
  const closed: Array<RunResult> = []
  for (const ev of events) {
    const err = f.push(ev)
    if (err !== undefined) return E.left(err)
    if (f.state.closed !== null) closed.push(f.state.closed)
  }
  return E.right({ state: f.state, closed })
}
