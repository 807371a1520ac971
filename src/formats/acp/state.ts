/**
 * The ACP translator's state: sessions, open requests, and the prompt turns not emitted yet (plain JSON, with
 * its io-ts codec), and the small helpers that read and change it.
 *
 * **Why turns are kept, not streamed.** Several sessions can be interleaved in one log (two prompts open at
 * once), while the fold has one open run. A turn's events are therefore emitted together (`turn.ts`), in the
 * order the reader used to emit runs: when its response has been read and the next message is not a
 * `usage_update` of the same session (a trailing cost still counts for it), when the next prompt of the same
 * session starts, or at the end of the input (the turns still open, in start order). Until then the turn is a
 * small record here: its first and last line and time, its text (the concatenated `agent_message_chunk` texts),
 * its tool calls by id, its open permission requests, its denials, its ending and usage, and at most
 * `MAX_DIAGNOSTICS` diagnostics with a count of the others — exactly what the reader kept for a run before, so
 * memory is bounded as it was (per open turn: its distinct tool ids, permissions, text and 100 diagnostics;
 * open requests: at most `MAX_PENDING_REQUESTS`, or twice those a response can still use). No event is
 * buffered. Diagnostics of messages outside any turn (the "lobby") are kept the same way and join the next turn
 * emitted.
 *
 * @module
 * @internal
 */
import * as t from 'io-ts'
import { MAX_DIAGNOSTICS } from '../../core/RunResult.js'
import type { ReasonIn } from '../events.js'
import { MAX_PENDING_REQUESTS, newPairing, PairingCodec, track, type Pairing } from './envelope.js'
import { AcpBucketsCodec, type AcpBuckets } from './usage.js'

/** A diagnostic kept for a turn or the lobby (never an echo of input values). @internal */
export interface AcpDiagnostic {
  readonly line?: number
  readonly message: string
}

/** Diagnostics kept for a turn or the lobby: at most `MAX_DIAGNOSTICS`, and how many more there were. @internal */
export interface AcpNotes {
  diagnostics: Array<AcpDiagnostic>
  dropped: number
}

/** A tool call of a turn, by id: its latest title, kind and status. @internal */
export interface AcpTool {
  title: string | null
  kind: string | null
  status: string | null
}

/** A pending item of a `suspended` ending (an unanswered permission). @internal */
export interface AcpPendingItem {
  readonly id: string
  readonly kind: string
  readonly toolName?: string
  readonly arguments?: unknown
}

/** A permission request of a turn, still unanswered; `reject` holds the `#`-prefixed option ids of kind `reject_*`. @internal */
export interface AcpPermission {
  readonly item: AcpPendingItem
  readonly reject: Record<string, true>
}

/** One prompt turn being read (plain JSON). @internal */
export interface AcpTurn {
  readonly sessionId: string
  firstLine: number | null
  lastLine: number | null
  firstTime: string | number | null
  lastTime: string | number | null
  /** The concatenated text of the turn's `agent_message_chunk` updates. */
  text: string
  /** Tool calls by `#`-prefixed `toolCallId`, in first-seen order. */
  tools: Record<string, AcpTool>
  /** Open permission requests by `#`-prefixed permission number, in request order. */
  permissions: Record<string, AcpPermission>
  denials: Array<{ readonly toolName: string; readonly callId: string }>
  cancelRequested: boolean
  /** The session's cumulative USD cost before the turn (`null`: unknown). */
  readonly costBase: number | null
  costLast: number | null
  costOtherCurrency: boolean
  usage: AcpBuckets | null
  /** The last method or `sessionUpdate` of the turn (cut to 60 characters). */
  lastType: string | null
  /** The `turn/end` reason, once known. */
  reason: ReasonIn | null
  finishReason: string | null
  inferred: boolean
  /** The turn got its response (or was given up); it is emitted when it is finalized. */
  closed: boolean
  /** Opened by updates of a session with no prompt in the log (a one-way, agent-side capture). */
  implicit: boolean
  notes: AcpNotes
}

/** What the translator knows of one ACP session. @internal */
export interface AcpSession {
  /** Created by `session/new` in this log: its cost before the first prompt is 0. */
  fresh: boolean
  /** The latest cumulative USD cost seen, or `null`. */
  costUsd: number | null
  model: string | null
  /** The number of the session's open turn, or `null`. */
  open: number | null
  /** A `session/prompt` request of the session was read: the log carries the client's side too. */
  prompted: boolean
  /** `session/load` / `session/resume` / `session/fork` requests of the session still without a response. */
  loading: number
}

/** The ACP translator's state (plain JSON). @internal */
export interface AcpState {
  /** Sessions by `#`-prefixed id. */
  sessions: Record<string, AcpSession>
  pairing: Pairing
  /** Turns not emitted yet, by `#`-prefixed number, in start order. */
  turns: Record<string, AcpTurn>
  /** The number of the next turn. */
  nextTurn: number
  /** The turn whose response was the previous message: a trailing `usage_update` still counts for it. */
  closing: number | null
  /** Diagnostics of messages outside any turn; they join the next turn emitted. */
  lobby: AcpNotes
  permissionSeq: number
  /** The implicit turn that got the latest update (a prompt response whose request is not in the log ends it). */
  lastImplicit: number | null
  /** The last session any message named. */
  lastSession: string | null
  /**
   * A `session/prompt` request of any session was read (the log carries the client's side): kept here so a
   * response whose request is not in the log does not scan every session (absent in a checkpoint written
   * before it existed: then worked out once from the sessions).
   */
  prompted?: boolean
}

const Time = t.union([t.string, t.number, t.null])
const NotesCodec = t.type({
  diagnostics: t.array(t.intersection([t.type({ message: t.string }), t.partial({ line: t.number })])),
  dropped: t.number,
})
const PendingItemCodec = t.intersection([t.type({ id: t.string, kind: t.string }), t.partial({ toolName: t.string, arguments: t.unknown })])
const TurnCodec = t.type({
  sessionId: t.string,
  firstLine: t.union([t.number, t.null]),
  lastLine: t.union([t.number, t.null]),
  firstTime: Time,
  lastTime: Time,
  text: t.string,
  tools: t.record(t.string, t.type({ title: t.union([t.string, t.null]), kind: t.union([t.string, t.null]), status: t.union([t.string, t.null]) })),
  permissions: t.record(t.string, t.type({ item: PendingItemCodec, reject: t.record(t.string, t.literal(true)) })),
  denials: t.array(t.type({ toolName: t.string, callId: t.string })),
  cancelRequested: t.boolean,
  costBase: t.union([t.number, t.null]),
  costLast: t.union([t.number, t.null]),
  costOtherCurrency: t.boolean,
  usage: t.union([AcpBucketsCodec, t.null]),
  lastType: t.union([t.string, t.null]),
  reason: t.union([t.type({ kind: t.string }), t.null]),
  finishReason: t.union([t.string, t.null]),
  inferred: t.boolean,
  closed: t.boolean,
  implicit: t.boolean,
  notes: NotesCodec,
})

/** io-ts codec of {@link AcpState}. @internal */
export const AcpStateCodec: t.Type<AcpState, unknown> = t.intersection([
  t.type({
    sessions: t.record(
      t.string,
      t.type({
        fresh: t.boolean,
        costUsd: t.union([t.number, t.null]),
        model: t.union([t.string, t.null]),
        open: t.union([t.number, t.null]),
        prompted: t.boolean,
        loading: t.number,
      }),
    ),
    pairing: PairingCodec,
    turns: t.record(t.string, TurnCodec),
    nextTurn: t.number,
    closing: t.union([t.number, t.null]),
    lobby: NotesCodec,
    permissionSeq: t.number,
    lastImplicit: t.union([t.number, t.null]),
    lastSession: t.union([t.string, t.null]),
  }),
  t.partial({ prompted: t.boolean }),
]) as unknown as t.Type<AcpState, unknown>

/** A fresh state. @internal */
export const newAcpState = (): AcpState => ({
  sessions: {},
  pairing: newPairing(),
  turns: {},
  nextTurn: 0,
  closing: null,
  lobby: { diagnostics: [], dropped: 0 },
  permissionSeq: 0,
  lastImplicit: null,
  lastSession: null,
  prompted: false,
})

/** No diagnostics. @internal */
export const emptyNotes = (): AcpNotes => ({ diagnostics: [], dropped: 0 })

/** Keeps a diagnostic, at most `MAX_DIAGNOSTICS` (the others are counted). @internal */
export const addNote = (n: AcpNotes, line: number | undefined, message: string): void => {
  if (n.diagnostics.length >= MAX_DIAGNOSTICS) {
    n.dropped++
    return
  }
  n.diagnostics.push(line === undefined ? { message } : { line, message })
}

/** The turn numbered `n`, if it is not emitted yet. @internal */
export const turnOf = (s: AcpState, n: number | null | undefined): AcpTurn | undefined => (n === null || n === undefined ? undefined : s.turns[`#${n}`])

/** The open turn of a session, with its number. @internal */
export const openTurn = (s: AcpState, sessionId: string | undefined): { readonly n: number; readonly turn: AcpTurn } | undefined => {
  if (sessionId === undefined) return undefined
  const n = s.sessions[`#${sessionId}`]?.open
  const turn = turnOf(s, n)
  return turn === undefined ? undefined : { n: n as number, turn }
}

/** The session `id`, created on first mention. @internal */
export const session = (s: AcpState, id: string): AcpSession => {
  const key = `#${id}`
  let x = s.sessions[key]
  if (x === undefined) {
    x = { fresh: false, costUsd: null, model: null, open: null, prompted: false, loading: 0 }
    s.sessions[key] = x
  }
  return x
}

/** A record of the turn: its line and time extend the turn's range. @internal */
export const touch = (turn: AcpTurn, line: number | undefined, time: string | number | undefined): void => {
  if (line !== undefined) {
    if (turn.firstLine === null) turn.firstLine = line
    turn.lastLine = line
  }
  if (time !== undefined) {
    if (turn.firstTime === null) turn.firstTime = time
    turn.lastTime = time
  }
}

/** A diagnostic of a turn, or of the lobby when there is none. @internal */
export const note = (s: AcpState, turn: AcpTurn | undefined, line: number | undefined, message: string): void => addNote(turn?.notes ?? s.lobby, line, message)

/** `true` when run `n` is held and its response not read yet: a response to its request still changes it. */
const stillOpen = (s: AcpState, n: number | undefined): boolean => {
  const turn = turnOf(s, n)
  return turn !== undefined && !turn.closed
}

/** Remembers an open request (a note in the lobby the first time the cap drops some). @internal */
export const remember = (s: AcpState, key: string, req: Parameters<typeof track>[2], line: number | undefined): void => {
  if (track(s.pairing, key, req, (r) => stillOpen(s, r.run)))
    addNote(s.lobby, line, `over ${MAX_PENDING_REQUESTS} requests without a response; dropped the oldest ones`)
}
