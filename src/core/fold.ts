/**
 * The fold (SPEC §4, §6): `FoldState`, the pure `step`, and `foldEvents` / `foldRuns` — the one place where
 * native `SessionEvent`s become `RunResult`s, whatever format they were translated from.
 *
 * `FoldState` is a plain JSON value (no classes, no Maps; id-keyed records use `#`-prefixed keys so an id
 * such as `__proto__` is an ordinary key), so a consumer can checkpoint it and resume ({@link FoldStateCodec}).
 * `step` is pure: it copies the state, then applies the event with the same `applyEvent` the fast paths use on
 * one private, mutable state per fold — one source of semantics, property-tested equal.
 *
 * Runs: without a `messageId`, the root `idle` delimits runs (everything after the previous root idle up to and
 * including the next); with one, the run opens at the `agent/inbox/spliced` that inserted it and closes at the
 * root idle (seed 002's owned interval).
 *
 * The rules every format shares, decided here once:
 * - **Ending**: the last root `turn/end`'s reason (max-tokens sticky within its turn); none → `unfinished` with
 *   the last record's type, or `failed` (phase `stream`) while a `stream/error` is the run's last word (SPEC §2
 *   rule 2). Only the root session's facts set it; a child's `turn/end` sets that child's ending.
 * - **Late terminal records** (K7): a root `turn/end` that arrives after its run closed, before anything of a
 *   new run, belongs to the closed run: a diagnostic there, the first ending stands. With `hold` (replay), a
 *   closed run is handed out only when the next run's first content arrives or the input ends, so such records
 *   (and usage facts that follow them) still land in it; without it (live), they go to the fold's notes.
 * - **Response**: the text of the last root assistant message (copies with one `messageId` join their text), or
 *   the terminal record's own `text`; kept only for `answered` / `cut_off`.
 * - **Usage**: disjoint buckets, root + children. A message's copies (one `messageId`) count once, the last
 *   copy's figures; `usage/total` running totals are differenced per counter (never summed), and a run that has
 *   them takes its usage from them; `usage/set` states a run's usage whole. A cost the source reports for the
 *   whole run is its cost; otherwise the items' costs, unknown (`null`) when any item lacks one.
 * - **Turns**: root `turn/start`s, or the change of a running `turns` total when the source gives one.
 *
 * @module
 */
import * as E from 'fp-ts/lib/Either.js'
import { decodeUntrusted } from './decodeEvent.js'
import type { NativeUsage, SessionEvent } from './events.js'
import { ProtocolError } from './ProtocolError.js'
import type { EndingError, RunEnding } from './RunEnding.js'
import type { UsageBuckets } from './RunResult.js'
import {
  addDiagnostic,
  addUsage,
  cloneDraft,
  ensureChild,
  finishRun,
  MAX_DIAGNOSTICS,
  NO_MODEL,
  newDraft,
  setChildEnding,
  touch,
  type BucketsDraft,
  type Diagnostic,
  type FormatName,
  type ModelDraft,
  type RunDraft,
  type RunResult,
} from './RunResult.js'
import { idKey } from './idKey.js'
import { safeName } from './names.js'
import { endingFromTurnEndReason } from './turnEnd.js'
import { roundUsd } from './usd.js'

/** How many recent `seq` values per session are remembered to drop replayed deliveries (SPEC §4). @since 0.1.0 */
export const SEQ_WINDOW = 1024

/**
 * How many sessions' `seq` memory the fold keeps (an LRU): past this, the least recently active quarter is
 * forgotten, so a log of millions of sessions folds in bounded memory (at most 1,024 × {@link SEQ_WINDOW}
 * numbers). A forgotten session's next event counts as new: a re-delivery to a session idle for longer than
 * 1,024 other sessions' activity is no longer recognised.
 * @since 0.2.0
 */
export const MAX_SEQ_SESSIONS = 1024

/**
 * How many child session ids (named by `subagent/started`) the fold remembers, so they never become the root;
 * past this, the oldest half is forgotten (they matter only while no root is known).
 * @since 0.2.0
 */
export const MAX_CHILD_IDS = 4096

/** How many message ids per run the usage ledger remembers to replace a repeated copy (copies come together). @since 0.2.0 */
export const LEDGER_WINDOW = 512

/** How many `usage/total` counters the fold keeps a baseline for (the oldest is forgotten). @since 0.2.0 */
export const MAX_COUNTERS = 256

/**
 * Per-session `seq` memory: the highest applied, and a ring of the last {@link SEQ_WINDOW} applied; `used` is the
 * state's event count when the session was last active (for the {@link MAX_SEQ_SESSIONS} LRU; absent in
 * checkpoints written before 0.2.0, read as oldest).
 * @since 0.1.0
 */
export interface SeqMemory {
  max: number
  recent: Array<number>
  pos: number
  used?: number
}

/** One message copy's usage in the ledger (tokens; cost in USD or `null` when unknown). @internal */
export interface LedgerEntry {
  model: string
  usage: BucketsDraft
  costUsd: number | null
}

/** A usage book: buckets, per-model figures and cost items, the shape `RunDraft` keeps them in. @internal */
export interface UsageBook {
  usage: BucketsDraft
  byModel: Record<string, ModelDraft>
  costUsd: number
  costItems: number
  costMissing: number
  /** Some item's cost is an estimate (a price table's, not the source's). */
  costEstimated: boolean
}

/** A fatal error record that is the run's last word so far (`stream/error`). @internal */
export interface FatalError {
  error: EndingError
  reason: string
  phase: string
}

/** The run being read. @since 0.1.0 */
export interface NativeRunState {
  draft: RunDraft
  /** Raw terminal word of the last root `turn/end` (its `finishReason`, else its kind). */
  finishReason: string | null
  ending: RunEnding | null
  /** Set by a root `max-tokens` turn end; a later `completed` end of the same turn stays cut off. */
  sticky: { turn: number | null } | null
  response: string | null
  lastEventType: string | null
  /** The `messageId` of the last root assistant message (its copies join their text into `response`). */
  messageId: string | null
  /**
   * Usage of messages with a `messageId`, last copy each: `ids` a ring of the last {@link LEDGER_WINDOW} ids
   * (`pos` its oldest once full), `entries[i]` the usage of `ids[i]`.
   */
  ledger: { ids: Array<string>; entries: Array<LedgerEntry>; pos: number }
  /** Usage from running totals (`usage/total` changes), or `null` when the run had none. */
  totals: UsageBook | null
  /** Usage the source stated for the whole run (`usage/set`), or `null`. */
  set: UsageBook | null
  /** The run's cost as the source reports it for the whole run (USD), or `null` when it reports none. */
  runCost: number | null
  /** The run's turns from a running total, or `null`. */
  runTurns: number | null
  fatal: FatalError | null
  /** A stop someone asked for in the current turn (`turn/cancel`), not yet followed by a new turn or prompt. */
  cancel: { by: string; reason: string | null } | null
  structuredOutput: unknown
  /** The source's own duration of the run (ms), or `null`. */
  durationMs: number | null
  inferred: boolean
}

/** The last running total of one `usage/total` counter. @internal */
export interface Baseline {
  usage: BucketsDraft | null
  costUsd: number | null
  turns: number | null
}

/**
 * The fold's state: a plain, JSON-serializable value. Treat it as opaque; checkpoint it with
 * {@link FoldStateCodec} and resume with {@link step} / {@link resumeFold}.
 * @since 0.1.0
 * @category Fold
 */
export interface FoldState {
  readonly version: 2
  /** The input format, for `RunResult.format`. */
  format: FormatName
  /** Replay mode: a closed run is handed out when the next run's content arrives or the input ends. */
  hold: boolean
  /** Events seen so far (the index of the next one). */
  events: number
  root: string | null
  /** `#`-prefixed ids of sessions named as children (descendants) by `subagent/started`. */
  children: Record<string, true>
  sessions: Record<string, SeqMemory>
  run: NativeRunState
  /** With `hold`: the run the last root idle closed, not handed out yet (late records still join it). */
  held: NativeRunState | null
  /** The root session when the held run closed (a later `session/started` starts another session's runs). */
  heldRoot: string | null
  /** A run closed and nothing of a new run has arrived since (late records are recognised while this holds). */
  afterClose: boolean
  /** Running totals per `#counter`, and the counters in the order they were last moved (oldest first). */
  baselines: Record<string, Baseline>
  counters: Array<string>
  /** Runs handed out so far. */
  runs: number
  /** The run handed out by the last event applied, else `null`. */
  closed: RunResult | null
  /** The most recently handed-out run (what `foldEvents` answers when nothing followed it). */
  lastClosed: RunResult | null
  /** Notes that belong to no run (late records of a run already handed out); at most 100, drained by the reader. */
  notes: Array<Diagnostic>
  /** Owned-interval mode (seed 002): the `messageId` whose receipt opens the run. */
  messageId: string | null
  /** In owned-interval mode: the receipt was seen. */
  open: boolean
  /** In owned-interval mode: the interval closed; later events are ignored. */
  done: boolean
  file: string | null
}

/** Options of the fold. @since 0.1.0 @category Fold */
export interface FoldOptions {
  /** Seed 002's owned interval: open at the receipt that inserted this message id, close at the root idle. */
  readonly messageId?: string
  /** The file the events come from, for `RunResult.source`. */
  readonly file?: string | null
  /** The format the events were translated from, for `RunResult.format` (default `native`). */
  readonly format?: FormatName
  /**
   * Hold each closed run until the next run's content arrives or the input ends, so late records of it (K7)
   * land in it (replaying a recorded log). Default `false`: a run is handed out at its root idle (live streams).
   */
  readonly hold?: boolean
}

const zeroBuckets = (): BucketsDraft => ({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })

const newBook = (): UsageBook => ({ usage: zeroBuckets(), byModel: {}, costUsd: 0, costItems: 0, costMissing: 0, costEstimated: false })

const newRun = (): NativeRunState => ({
  draft: newDraft(),
  finishReason: null,
  ending: null,
  sticky: null,
  response: null,
  lastEventType: null,
  messageId: null,
  ledger: { ids: [], entries: [], pos: 0 },
  totals: null,
  set: null,
  runCost: null,
  runTurns: null,
  fatal: null,
  cancel: null,
  structuredOutput: null,
  durationMs: null,
  inferred: false,
})

/** The state before any event. @since 0.1.0 @category Fold */
export const initialState = (options: FoldOptions = {}): FoldState => ({
  version: 2,
  format: options.format ?? 'native',
  hold: options.hold === true,
  events: 0,
  root: null,
  children: {},
  sessions: {},
  run: newRun(),
  held: null,
  heldRoot: null,
  afterClose: false,
  baselines: {},
  counters: [],
  runs: 0,
  closed: null,
  lastClosed: null,
  notes: [],
  messageId: options.messageId ?? null,
  open: options.messageId === undefined,
  done: false,
  file: options.file ?? null,
})

const cloneBook = (b: UsageBook): UsageBook => {
  const byModel: Record<string, ModelDraft> = {}
  for (const k of Object.keys(b.byModel)) byModel[k] = { ...(b.byModel[k] as ModelDraft) }
  return { usage: { ...b.usage }, byModel, costUsd: b.costUsd, costItems: b.costItems, costMissing: b.costMissing, costEstimated: b.costEstimated }
}

const cloneRun = (r: NativeRunState): NativeRunState => {
  return {
    ...r,
    draft: cloneDraft(r.draft),
    sticky: r.sticky === null ? null : { ...r.sticky },
    ledger: {
      ids: r.ledger.ids.slice(),
      entries: r.ledger.entries.map((e) => ({ model: e.model, usage: { ...e.usage }, costUsd: e.costUsd })),
      pos: r.ledger.pos,
    },
    totals: r.totals === null ? null : cloneBook(r.totals),
    set: r.set === null ? null : cloneBook(r.set),
    fatal: r.fatal === null ? null : { ...r.fatal },
    cancel: r.cancel === null ? null : { ...r.cancel },
  }
}

/** A deep copy (the parts `applyEvent` mutates). @internal */
export const cloneState = (s: FoldState): FoldState => {
  const sessions: Record<string, SeqMemory> = {}
  for (const k of Object.keys(s.sessions)) {
    const m = s.sessions[k] as SeqMemory
    sessions[k] =
      m.used === undefined ? { max: m.max, recent: m.recent.slice(), pos: m.pos } : { max: m.max, recent: m.recent.slice(), pos: m.pos, used: m.used }
  }
  const baselines: Record<string, Baseline> = {}
  for (const k of Object.keys(s.baselines)) {
    const b = s.baselines[k] as Baseline
    baselines[k] = { usage: b.usage === null ? null : { ...b.usage }, costUsd: b.costUsd, turns: b.turns }
  }
  return {
    ...s,
    children: { ...s.children },
    sessions,
    run: cloneRun(s.run),
    held: s.held === null ? null : cloneRun(s.held),
    baselines,
    counters: s.counters.slice(),
    notes: s.notes.slice(),
  }
}

/** The text blocks of a message's content, concatenated; `null` when it has none. */
const textOf = (content: ReadonlyArray<Record<string, unknown>>): string | null => {
  let out: string | null = null
  for (const block of content) {
    if (block['type'] === 'text' && typeof block['text'] === 'string') out = out === null ? block['text'] : out + block['text']
  }
  return out
}

/**
 * What an item that has no cost of its own costs (USD), estimated from its model and usage (tokens) — one model
 * request priced on its own, so tiered prices apply per request. `at` is the time of the event that carried the
 * usage (epoch milliseconds or ISO-8601, as the envelope gives it; absent when the event has none), so a price
 * that changes on a date (or by the time of day) is the one in force when the request was made; an estimator may
 * ignore it. `undefined` when the model has no known price.
 * @since 0.2.0
 * @category Fold
 */
export type CostEstimator = (model: string, usage: UsageBuckets, at?: number | string) => number | undefined

/**
 * The fold's working context beside its state (not part of it, not checkpointed): the last session's seq
 * memory, so the hot path avoids building its key on every event, and the cost estimator, if any.
 * @internal
 */
export interface SeqCache {
  id: string | null
  mem: SeqMemory | undefined
  estimate?: CostEstimator | undefined
  /** The time of the event being applied (its envelope's), handed to the estimator. */
  time?: number | string | undefined
}

/** {@link itemCost} of a native usage (buckets built only when an estimate is needed); `undefined` for unknown. */
const usageCost = (
  d: { costEstimated: boolean },
  model: string | undefined,
  u: NativeUsage,
  costUsd: number | undefined,
  ctx: SeqCache | undefined,
): number | undefined => {
  if (costUsd !== undefined || ctx?.estimate === undefined) return costUsd
  return itemCost(d, model, bucketsOf(u), undefined, ctx) ?? undefined
}

/** The cost of an item: the one the source gives, else the estimate (and the run is marked estimated), else `null`. */
const itemCost = (
  d: { costEstimated: boolean },
  model: string | undefined,
  b: BucketsDraft,
  costUsd: number | undefined,
  ctx: SeqCache | undefined,
): number | null => {
  if (costUsd !== undefined) return costUsd
  const est = ctx?.estimate
  // all-zero usage is how a stream that dropped its usage reports it (K4: interrupted Claude Code messages, a
  // Gemini error's stats): an estimate would make that $0 and the cost look complete, so it stays unknown
  if (est === undefined || isZero(b)) return null
  let v: number | undefined
  try {
    v = est(model ?? NO_MODEL, b, ctx?.time)
  } catch {
    v = undefined
  }
  // an estimate that is not a finite USD figure up to 2^53−1 (a 1e308 price) is no estimate: the cost stays unknown
  if (v === undefined || !Number.isFinite(v) || v < 0 || v > Number.MAX_SAFE_INTEGER) return null
  d.costEstimated = true
  return v
}

/** The number of sessions in a state's seq memory, kept beside the state (counted again when missing). */
const sessionCounts = new WeakMap<Record<string, SeqMemory>, { n: number }>()

/** Forgets the least recently active quarter of the sessions' seq memory once it holds over {@link MAX_SEQ_SESSIONS}. */
const forgetSessions = (s: FoldState, count: { n: number }): void => {
  const keys = Object.keys(s.sessions)
  const stamps = keys.map((k) => (s.sessions[k] as SeqMemory).used ?? -1).sort((a, b) => a - b)
  const drop = keys.length - Math.floor((MAX_SEQ_SESSIONS * 3) / 4)
  const cut = stamps[drop - 1] as number
  let dropped = 0
  for (const k of keys) {
    if (dropped >= drop) break
    if (((s.sessions[k] as SeqMemory).used ?? -1) <= cut) {
      delete s.sessions[k]
      dropped++
    }
  }
  count.n = keys.length - dropped
}

/** {@link seenSeq}'s verdicts: a new seq, a repeated one (dropped), a late one (lower than the highest, applied). */
const NEW_SEQ = 0
const REPEAT_SEQ = 1
const LATE_SEQ = 2

/** Whether this seq was already applied in the session (and must be dropped); records it otherwise. */
const seenSeq = (s: FoldState, session: string, seq: number, cache?: SeqCache): 0 | 1 | 2 => {
  let m: SeqMemory | undefined
  if (cache !== undefined && cache.id === session && cache.mem !== undefined) m = cache.mem
  else {
    const key = idKey(session)
    m = s.sessions[key]
    if (m === undefined) {
      m = { max: -1, recent: [], pos: 0, used: s.events }
      s.sessions[key] = m
      let count = sessionCounts.get(s.sessions)
      if (count === undefined) {
        count = { n: Object.keys(s.sessions).length }
        sessionCounts.set(s.sessions, count)
      } else count.n++
      if (count.n > MAX_SEQ_SESSIONS) forgetSessions(s, count)
    }
    if (cache !== undefined) {
      cache.id = session
      cache.mem = m
    }
  }
  // the LRU stamp: the same with or without the cache (the pure `step` and the fast path give one state)
  m.used = s.events
  let verdict: 0 | 2 = NEW_SEQ
  if (seq <= m.max) {
    if (m.recent.includes(seq)) return REPEAT_SEQ
    verdict = LATE_SEQ
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

// ---- usage books ----------------------------------------------------------------------------------------

const bucketsOf = (u: NativeUsage): BucketsDraft => ({
  inputTokens: u.inputTokens,
  cacheReadTokens: u.cacheReadTokens ?? 0,
  cacheWriteTokens: u.cacheWriteTokens ?? 0,
  outputTokens: u.outputTokens,
  reasoningTokens: u.reasoningTokens ?? 0,
})

const isZero = (b: BucketsDraft): boolean =>
  b.inputTokens === 0 && b.cacheReadTokens === 0 && b.cacheWriteTokens === 0 && b.outputTokens === 0 && b.reasoningTokens === 0

/** Adds (`sign` 1) or takes back (`sign` −1) one priced item of `model` in a book. */
const bookItem = (book: UsageBook, model: string, b: BucketsDraft, costUsd: number | null, sign: 1 | -1): void => {
  const key = idKey(model)
  let m = book.byModel[key]
  if (m === undefined) {
    m = { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, costUsd: 0, costMissing: 0, items: 0 }
    book.byModel[key] = m
  }
  const u = book.usage
  u.inputTokens += sign * b.inputTokens
  u.cacheReadTokens += sign * b.cacheReadTokens
  u.cacheWriteTokens += sign * b.cacheWriteTokens
  u.outputTokens += sign * b.outputTokens
  u.reasoningTokens += sign * b.reasoningTokens
  m.inputTokens += sign * b.inputTokens
  m.cacheReadTokens += sign * b.cacheReadTokens
  m.cacheWriteTokens += sign * b.cacheWriteTokens
  m.outputTokens += sign * b.outputTokens
  m.reasoningTokens += sign * b.reasoningTokens
  m.items += sign
  book.costItems += sign
  if (costUsd === null) {
    m.costMissing += sign
    book.costMissing += sign
  } else {
    m.costUsd += sign * costUsd
    book.costUsd += sign * costUsd
  }
}

/** The draft's own usage fields as a book (the draft is the book of messages and `usage/add` items). */
const draftBook = (d: RunDraft): UsageBook => d as unknown as UsageBook

/** A message's usage: a new `messageId` adds an item, a repeated one replaces the earlier copy's figures. */
/** The slot of each id in a run's ledger, kept beside the state (not in it): rebuilt from `ids` when missing. */
const ledgerIndexes = new WeakMap<NativeRunState['ledger'], Map<string, number>>()

const ledgerSlot = (l: NativeRunState['ledger'], id: string): number | undefined => {
  if (l.ids.length === 0) return undefined
  // copies of one message come together: the newest id first, without hashing
  const newest = l.ids.length < LEDGER_WINDOW ? l.ids.length - 1 : (l.pos + LEDGER_WINDOW - 1) % LEDGER_WINDOW
  if (l.ids[newest] === id) return newest
  let ix = ledgerIndexes.get(l)
  if (ix === undefined) {
    ix = new Map()
    for (let i = 0; i < l.ids.length; i++) ix.set(l.ids[i] as string, i)
    ledgerIndexes.set(l, ix)
  }
  return ix.get(id)
}

/** A message's usage: a new `messageId` adds an item, a repeated one replaces the earlier copy's figures. */
const messageUsage = (run: NativeRunState, messageId: string, model: string, u: NativeUsage, costUsd: number | undefined, ctx: SeqCache | undefined): void => {
  const b = bucketsOf(u)
  const cost = itemCost(run.draft, model, b, costUsd, ctx)
  const book = draftBook(run.draft)
  const l = run.ledger
  const slot = ledgerSlot(l, messageId)
  if (slot !== undefined) {
    const prev = l.entries[slot] as LedgerEntry
    bookItem(book, prev.model, prev.usage, prev.costUsd, -1)
    bookItem(book, model, b, cost, 1)
    prev.model = model
    prev.usage = b
    prev.costUsd = cost
    return
  }
  bookItem(book, model, b, cost, 1)
  const entry = { model, usage: b, costUsd: cost }
  const ix = ledgerIndexes.get(l)
  if (l.ids.length < LEDGER_WINDOW) {
    ix?.set(messageId, l.ids.length)
    l.ids.push(messageId)
    l.entries.push(entry)
  } else {
    // a ring: the oldest id is forgotten (a later copy of it would count again; copies come together)
    ix?.delete(l.ids[l.pos] as string)
    ix?.set(messageId, l.pos)
    l.ids[l.pos] = messageId
    l.entries[l.pos] = entry
    l.pos = (l.pos + 1) % LEDGER_WINDOW
  }
}

/** Remembers a counter's new total, forgetting the least recently moved counter past {@link MAX_COUNTERS}. */
const baselineOf = (s: FoldState, key: string): Baseline => {
  let b = s.baselines[key]
  const i = s.counters.indexOf(key)
  if (i >= 0) s.counters.splice(i, 1)
  s.counters.push(key)
  if (b === undefined) {
    b = { usage: null, costUsd: null, turns: null }
    s.baselines[key] = b
    if (s.counters.length > MAX_COUNTERS) {
      const oldest = s.counters.shift() as string
      delete s.baselines[oldest]
    }
  }
  return b
}

/** What a running total changed by: usage, its cost, run cost, turns (each `null` when not given). */
interface TotalChange {
  readonly usage: BucketsDraft | null
  readonly cost: number | null
  readonly turns: number | null
  readonly wentDown: boolean
}

const notBelow = (a: BucketsDraft, b: BucketsDraft): boolean =>
  b.inputTokens >= a.inputTokens &&
  b.cacheReadTokens >= a.cacheReadTokens &&
  b.cacheWriteTokens >= a.cacheWriteTokens &&
  b.outputTokens >= a.outputTokens &&
  b.reasoningTokens >= a.reasoningTokens

/** Moves a counter's baseline to a new running total and returns the change (a total that went down counts from zero). */
const totalChange = (s: FoldState, data: Extract<SessionEvent, { type: 'usage/total' }>['data']): TotalChange => {
  const base = baselineOf(s, idKey(data.counter ?? ''))
  let wentDown = false
  let usage: BucketsDraft | null = null
  if (data.usage !== undefined) {
    const now = bucketsOf(data.usage)
    const prev = base.usage
    if (prev === null) usage = now
    else if (notBelow(prev, now)) {
      usage = {
        inputTokens: now.inputTokens - prev.inputTokens,
        cacheReadTokens: now.cacheReadTokens - prev.cacheReadTokens,
        cacheWriteTokens: now.cacheWriteTokens - prev.cacheWriteTokens,
        outputTokens: now.outputTokens - prev.outputTokens,
        reasoningTokens: now.reasoningTokens - prev.reasoningTokens,
      }
    } else {
      usage = now
      wentDown = true
    }
    base.usage = now
  }
  let cost: number | null = null
  if (data.costUsd !== undefined) {
    const prev = base.costUsd
    if (prev === null || prev === 0) cost = data.costUsd
    else if (data.costUsd >= prev) cost = roundUsd(data.costUsd - prev)
    else {
      cost = data.costUsd
      if (data.usage === undefined) wentDown = true
    }
    base.costUsd = data.costUsd
  }
  let turns: number | null = null
  if (data.turns !== undefined) {
    const prev = base.turns
    turns = prev === null || data.turns < prev ? data.turns : data.turns - prev
    base.turns = data.turns
  }
  return { usage, cost, turns, wentDown }
}

/** Applies a running total's change to a run: usage as one item (cost with it), cost alone as the run's cost, turns. */
const applyTotal = (run: NativeRunState, model: string | undefined, c: TotalChange, hasUsage: boolean, ctx: SeqCache | undefined): void => {
  if (hasUsage) {
    if (run.totals === null) run.totals = newBook()
    if (c.usage !== null && !(isZero(c.usage) && (c.cost === null || c.cost === 0))) {
      bookItem(run.totals, model ?? NO_MODEL, c.usage, itemCost(run.totals, model, c.usage, c.cost ?? undefined, ctx), 1)
    }
  } else if (c.cost !== null) {
    run.runCost = run.runCost === null ? c.cost : run.runCost + c.cost
  }
  if (c.turns !== null) run.runTurns = (run.runTurns ?? 0) + c.turns
}

const tokensOf = (b: BucketsDraft | null): number => (b === null ? 0 : b.inputTokens + b.cacheReadTokens + b.cacheWriteTokens + b.outputTokens)

// ---- results ------------------------------------------------------------------------------------------

/** The book a run's usage comes from: stated whole, else running totals, else its messages and items. */
const bookOfRun = (r: NativeRunState): UsageBook => r.set ?? r.totals ?? draftBook(r.draft)

const stoppedBy = (c: { by: string; reason: string | null }): RunEnding => ({ kind: 'stopped', by: c.by, ...(c.reason !== null ? { reason: c.reason } : {}) })

/** A run as a `RunResult`: its ending, or `unfinished` / `failed` in phase `stream` / stopped (a cancel the turn never answered) without one. */
const resultOfRun = (s: FoldState, r: NativeRunState, root: string | null = s.root, override?: RunEnding): RunResult => {
  const book = bookOfRun(r)
  let d: RunDraft = r.draft
  const models = Object.keys(book.byModel).filter((k) => (book.byModel[k] as ModelDraft).items > 0)
  if (book !== draftBook(r.draft) || r.runCost !== null || r.runTurns !== null) {
    const byModel: Record<string, ModelDraft> = {}
    for (const k of Object.keys(book.byModel)) byModel[k] = { ...(book.byModel[k] as ModelDraft) }
    d = {
      ...r.draft,
      usage: { ...book.usage },
      byModel,
      costUsd: book.costUsd,
      costItems: book.costItems,
      costMissing: book.costMissing,
      costEstimated: book.costEstimated,
    }
    if (r.runCost !== null) {
      // a cost the source reports for the whole run is its cost; with one model, that model's too
      d.costUsd = r.runCost
      d.costItems = Math.max(d.costItems, 1)
      d.costMissing = 0
      d.costEstimated = false
      if (models.length === 1) {
        const m = byModel[models[0] as string] as ModelDraft
        m.costUsd = r.runCost
        m.costMissing = 0
      }
    }
    if (r.runTurns !== null) d.turns = r.runTurns
  }
  let ending = override ?? r.ending
  let inferred = r.inferred
  if (ending === null) {
    const f = r.fatal
    const c = r.cancel
    if (f !== null) ending = { kind: 'failed', reason: f.reason, phase: f.phase, error: f.error }
    else if (c !== null) {
      // the caller asked to stop and the stream ended before the turn did: stopped, read from the last records
      ending = stoppedBy(c)
      inferred = true
    } else ending = { kind: 'unfinished', ...(r.lastEventType !== null ? { lastEventType: r.lastEventType } : {}) }
  }
  return finishRun(d, {
    format: s.format,
    sessionId: root,
    ending,
    finishReason: r.finishReason,
    response: override !== undefined ? null : r.response,
    structuredOutput: r.structuredOutput,
    inferred,
    file: s.file,
    ...(r.durationMs !== null ? { durationMs: r.durationMs } : {}),
  })
}

const handOut = (s: FoldState, result: RunResult): void => {
  s.closed = result
  s.lastClosed = result
  s.runs++
}

/** The held run (replay) is final: hand it out. */
const releaseHeld = (s: FoldState): void => {
  if (s.held === null) return
  const r = s.held
  s.held = null
  handOut(s, resultOfRun(s, r, s.heldRoot))
}

const closeRun = (s: FoldState): void => {
  const r = s.run
  s.run = newRun()
  s.afterClose = true
  if (s.hold && s.messageId === null) {
    s.held = r
    s.heldRoot = s.root
  } else handOut(s, resultOfRun(s, r))
}

/** A note that belongs to no open run (a late record of a run already handed out). */
const addNote = (s: FoldState, line: number | undefined, message: string): void => {
  if (s.notes.length >= MAX_DIAGNOSTICS) return
  s.notes.push(line === undefined ? { message } : { line, message })
}

/** Marks run content: a new run has begun, so the held run (if any) is final and late records are no longer recognised. */
const content = (s: FoldState, d: RunDraft): void => {
  d.hasContent = true
  if (s.afterClose) {
    s.afterClose = false
    releaseHeld(s)
  }
}

const LATE_END =
  'ignored a further terminal record: nothing of a new run came after the previous run ended, so it belongs to that run (the first ending stands)'

/**
 * A fact that arrives after its run closed and before anything of a new run (K7): it joins the held run
 * (replay) or becomes a note (live). Returns `true` when the event was dealt with.
 */
const lateFact = (s: FoldState, ev: SessionEvent, line: number | undefined, isRoot: boolean, ctx: SeqCache | undefined): boolean => {
  const held = s.held
  const target = held ?? undefined
  switch (ev.type) {
    case 'turn/end':
      if (!isRoot) return false
      if (target !== undefined) {
        touch(target.draft, line, ev.time)
        addDiagnostic(target.draft, line, LATE_END)
      } else {
        touch(s.run.draft, line, ev.time)
        addNote(s, line, `${LATE_END} (run ${s.runs} was already handed out)`)
      }
      return true
    case 'usage/total': {
      const c = totalChange(s, ev.data)
      const hasUsage = ev.data.usage !== undefined
      if (target !== undefined) {
        if (!ev.data.baseline) applyTotal(target, ev.data.model, c, hasUsage, ctx)
        if (c.wentDown) addDiagnostic(target.draft, line, 'the running total went down; counted it as a new total from zero')
      } else {
        touch(s.run.draft, line, ev.time)
        const n = tokensOf(c.usage)
        if (!ev.data.baseline && n > 0) addNote(s, line, `a running total moved by ${n} tokens after run ${s.runs} was handed out; they are in no printed run`)
      }
      return true
    }
    case 'usage/add':
    case 'usage/set':
    case 'permission/denied':
      if (target === undefined) {
        touch(s.run.draft, line, ev.time)
        addNote(s, line, `a ${ev.type} fact came after run ${s.runs} was handed out; it is in no printed run`)
        return true
      }
      applyFact(s, target, ev, line, ctx)
      return true
    default:
      return false
  }
}

/** The call ids of a run's permission denials, kept beside the state (rebuilt from the list when missing): one lookup per denial, not a scan. */
const denialIds = new WeakMap<ReadonlyArray<{ readonly toolCallId: string }>, Set<string>>()

/** The facts that may also apply to a held run: usage and permission denials. */
const applyFact = (s: FoldState, run: NativeRunState, ev: SessionEvent, line: number | undefined, ctx: SeqCache | undefined): void => {
  const d = run.draft
  touch(d, line, ev.time)
  switch (ev.type) {
    case 'usage/add':
      addUsage(d, ev.data.model, ev.data.usage, usageCost(d, ev.data.model, ev.data.usage, ev.data.costUsd, ctx), line)
      return
    case 'usage/set': {
      const models = ev.data.models
      if (models !== undefined) {
        const book = newBook()
        for (const m of models) {
          const b = bucketsOf(m.usage)
          bookItem(book, m.model, b, itemCost(book, m.model, b, m.costUsd, ctx), 1)
        }
        run.set = book
      }
      if (ev.data.turns !== undefined) run.runTurns = ev.data.turns
      return
    }
    case 'permission/denied': {
      const id = ev.data.callId
      let ids = denialIds.get(d.permissionDenials)
      if (ids === undefined) {
        ids = new Set(d.permissionDenials.map((p) => p.toolCallId))
        denialIds.set(d.permissionDenials, ids)
      }
      if (!ids.has(id)) {
        ids.add(id)
        d.permissionDenials.push({ toolName: ev.data.toolName, toolCallId: id })
      }
      return
    }
    case 'usage/total': {
      const c = totalChange(s, ev.data)
      if (!ev.data.baseline) applyTotal(run, ev.data.model, c, ev.data.usage !== undefined, ctx)
      if (c.wentDown) addDiagnostic(d, line, 'the running total went down; counted it as a new total from zero')
      return
    }
    default:
      return
  }
}

/**
 * The most frequent events (text deltas, steps, tool calls and results, turn starts, inbox receipts) of the root
 * session in the middle of a run, applied with exactly the effects the general path of {@link applyEvent} gives them, without
 * its checks that cannot apply: an open, unfinished fold with a known root, no run just closed, no line of the
 * event's own, and a `seq` that is new and above every earlier one in the root session, whose memory the cache
 * holds (or no `seq`). Returns `false`, having changed nothing, for any other event or state.
 */
const applySimple = (s: FoldState, ev: SessionEvent, lineArg: number | undefined, cache: SeqCache | undefined): boolean => {
  if (s.done || !s.open || s.afterClose) return false
  const root = s.root
  if (root === null || ev.sessionId !== root || ev.line !== undefined) return false
  const type = ev.type
  // 0: only the run's last word and its time; 1: content; 2: a tool call; 3: a turn start
  let effect: number
  switch (type) {
    case 'assistant/chunk':
    case 'tool/result':
    case 'agent/inbox/spliced':
      effect = 1
      break
    case 'step/start':
    case 'step/end':
      effect = 0
      break
    case 'tool/call':
      effect = 2
      break
    case 'turn/start':
      effect = 3
      break
    default:
      return false
  }
  const seq = ev.seq
  if (seq !== undefined) {
    if (cache === undefined || cache.id !== root) return false
    const m = cache.mem
    if (m === undefined || seq <= m.max) return false
    s.events++
    s.closed = null
    // what seenSeq records for a new seq
    m.used = s.events
    m.max = seq
    if (m.recent.length < SEQ_WINDOW) m.recent.push(seq)
    else {
      m.recent[m.pos] = seq
      m.pos = (m.pos + 1) % SEQ_WINDOW
    }
  } else {
    s.events++
    s.closed = null
  }
  const run = s.run
  const d = run.draft
  touch(d, lineArg, ev.time)
  run.lastEventType = ev.recordType ?? type
  if (effect === 0) return true
  if (effect === 2) d.toolCalls++
  content(s, d)
  run.fatal = null
  if (effect === 3) {
    d.turns++
    run.sticky = null
    run.cancel = null
  }
  return true
}

/**
 * Applies one decoded event to the state **in place**. The engine behind `step` (which copies first) and the
 * fast paths (one private state per fold). `lineArg` is the event's 1-based line when read from a log; an
 * event's own `line` (a translated record's line in its original log) takes precedence.
 * @internal
 */
export const applyEvent = (s: FoldState, ev: SessionEvent, lineArg?: number, cache?: SeqCache): void => {
  if (cache !== undefined) cache.time = ev.time
  if (!applySimple(s, ev, lineArg, cache)) applyGeneral(s, ev, lineArg, cache)
}

/**
 * {@link applyEvent} without its shortcut for the most frequent events: every event through every check. What
 * the shortcut is tested equal to (`test/core/applySimple.prop.test.ts`).
 * @internal
 */
export const applyGeneral = (s: FoldState, ev: SessionEvent, lineArg?: number, cache?: SeqCache): void => {
  s.events++
  s.closed = null
  if (s.done) return
  // each field read once (ev.type below stays for the narrowing of the final switch)
  const type = ev.type
  const sid = ev.sessionId
  const evLine = ev.line
  // line 0: a boundary a translator states between two records (at no line of the log)
  const line = evLine === 0 ? undefined : (evLine ?? lineArg)
  // Owned interval: drop everything before the receipt that inserted our message.
  if (!s.open) {
    if (ev.type !== 'agent/inbox/spliced' || !ev.data.inserted.some((m) => m.id === s.messageId)) return
    s.open = true
    if (s.root === null && sid !== null) s.root = sid
  }
  if (ev.type === 'subagent/started' || ev.type === 'subagent/finished') {
    const { parentSessionId, childSessionId } = ev.data
    if (parentSessionId !== undefined && (s.root === null || s.root === childSessionId)) s.root = parentSessionId
  } else if (type === 'session/started') {
    s.root = sid
    if (sid !== null && s.children[idKey(sid)] === true) {
      delete s.children[idKey(sid)]
      const count = childCounts.get(s.children)
      if (count !== undefined) count.n--
    }
  } else if (s.root === null && sid !== null && s.children[idKey(sid)] === undefined) {
    s.root = sid
  }
  const root = s.root
  const isRoot = sid === null || sid === root
  // the root's events name the session by the root's own string (equal): the seq cache then compares by identity
  const session = isRoot ? (root ?? sid ?? '') : (sid ?? '')
  const seq = ev.seq
  if (seq !== undefined) {
    const v = seenSeq(s, session, seq, cache)
    if (v !== NEW_SEQ) {
      if (v === REPEAT_SEQ) {
        addDiagnostic(s.run.draft, line, `dropped a repeated delivery (seq ${seq} was already applied in this session)`)
        return
      }
      addDiagnostic(s.run.draft, line, `applied an event whose seq ${seq} is lower than an earlier one in this session`)
    }
  }
  if (s.afterClose && lateFact(s, ev, line, isRoot, cache)) return
  const run = s.run
  const d = run.draft
  switch (type) {
    case 'assistant/chunk':
      // the most frequent event (text deltas): its whole effect, without the checks below that cannot apply to it
      touch(d, line, ev.time)
      run.lastEventType = ev.recordType ?? type
      if (isRoot) {
        content(s, d)
        run.fatal = null
      }
      return
    case 'source/diagnostic':
      // a note belongs to no run (a record of a run already handed out): it counts in none
      if (ev.data.note === true) {
        addNote(s, line, ev.data.message)
        return
      }
      touch(d, line, ev.time)
      addDiagnostic(d, line, ev.data.message)
      return
    case 'source/record':
    case 'session/started':
      touch(d, line, ev.time)
      // a record without run facts (or the session it names) is the last word only when it says what it was
      if (ev.recordType !== undefined) run.lastEventType = ev.recordType
      return
    case 'session/status':
      touch(d, line, ev.time)
      // the root idle that closes a run is its boundary, not its last word: an unfinished run names what came before it
      if (isRoot && ev.data.status === 'idle' && (d.hasContent || s.messageId !== null)) {
        closeRun(s)
        if (s.messageId !== null) s.done = true
        return
      }
      break
    default:
      touch(d, line, ev.time)
  }
  run.lastEventType = ev.recordType ?? (ev.type === 'run-outcome/ignored' ? ev.data.originalType : type)
  switch (ev.type) {
    case 'run-outcome/ignored':
      addDiagnostic(d, line, ignoredMessage(ev))
      return
    case 'user/message':
      if (isRoot) {
        content(s, d)
        run.fatal = null
        // a new prompt: an earlier cancel was for the turn before
        run.cancel = null
      }
      return
    case 'agent/inbox/spliced':
    case 'tool/result':
      if (isRoot) {
        content(s, d)
        run.fatal = null
      }
      return
    case 'turn/cancel':
      if (isRoot) {
        content(s, d)
        run.cancel = { by: ev.data.by ?? 'caller', reason: ev.data.reason ?? null }
      }
      return
    case 'session/status':
    case 'step/start':
    case 'step/end':
      return
    case 'turn/start':
      if (isRoot) {
        content(s, d)
        d.turns++
        run.sticky = null
        run.fatal = null
        run.cancel = null
      }
      return
    case 'turn/end': {
      const data = ev.data
      const reason = data.reason as Record<string, unknown>
      const ending = endingFromTurnEndReason(reason)
      const kind = data.reason.kind
      const finishReason = data.finishReason !== undefined ? data.finishReason : kind
      if (!isRoot) {
        setChildEnding(d, session, ending, finishReason)
        return
      }
      content(s, d)
      run.fatal = null
      run.finishReason = finishReason
      run.inferred = data.inferred === true
      if (data.text !== undefined) run.response = data.text
      if (data.structuredOutput !== undefined) run.structuredOutput = data.structuredOutput
      if (data.durationMs !== undefined) run.durationMs = data.durationMs
      const turn = data.turn ?? null
      // K23: a cancel answered by a normal stop reason (ACP end_turn after session/cancel, a stream that says
      // stop after an abort) is the stop that was asked for, not a finished answer
      if (run.cancel !== null && (ending.kind === 'answered' || ending.kind === 'cut_off')) {
        run.sticky = null
        run.ending = stoppedBy(run.cancel)
        return
      }
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
    case 'assistant/message': {
      const data = ev.data
      const mid = data.messageId
      if (data.usage !== undefined) {
        if (mid !== undefined) messageUsage(run, mid, data.model ?? NO_MODEL, data.usage, data.costUsd, cache)
        else addUsage(d, data.model, data.usage, usageCost(d, data.model, data.usage, data.costUsd, cache), line)
      }
      if (isRoot) {
        content(s, d)
        run.fatal = null
        const text = textOf(data.message.content)
        if (mid === undefined) {
          run.messageId = null
          run.response = text ?? ''
        } else if (mid === run.messageId) {
          if (text !== null) run.response = run.response === null ? text : `${run.response}\n\n${text}`
        } else {
          run.messageId = mid
          run.response = text
        }
      }
      return
    }
    case 'tool/call':
      d.toolCalls++
      if (isRoot) {
        content(s, d)
        run.fatal = null
      }
      return
    case 'stream/error':
      if (isRoot) {
        content(s, d)
        run.fatal = { error: ev.data.error, reason: ev.data.reason ?? 'error', phase: ev.data.phase ?? 'stream' }
      }
      return
    case 'usage/add':
    case 'usage/set':
    case 'usage/total':
    case 'permission/denied':
      applyFact(s, run, ev, line, cache)
      return
    case 'subagent/started': {
      const child = ev.data.childSessionId
      const prev = ev.data.previousSessionId
      nameChild(s, child)
      if (prev !== undefined) renameChild(d, prev, child)
      else ensureChild(d, child)
      return
    }
    case 'subagent/finished': {
      const child = ev.data.childSessionId
      nameChild(s, child)
      const stop = ev.data.stopReason
      if (stop !== undefined) setChildEnding(d, child, endingFromTurnEndReason({ kind: stop }), stop)
      else ensureChild(d, child)
      return
    }
  }
}

/** The number of ids in a state's `children`, kept beside the state (counted again when missing). */
const childCounts = new WeakMap<Record<string, true>, { n: number }>()

/** Remembers a child session id, forgetting the oldest half past {@link MAX_CHILD_IDS}. */
const nameChild = (s: FoldState, child: string): void => {
  const key = idKey(child)
  if (s.children[key] === true) return
  s.children[key] = true
  let count = childCounts.get(s.children)
  if (count === undefined) {
    count = { n: Object.keys(s.children).length }
    childCounts.set(s.children, count)
  } else count.n++
  if (count.n <= MAX_CHILD_IDS) return
  const keys = Object.keys(s.children)
  const drop = keys.length - MAX_CHILD_IDS / 2
  for (let i = 0; i < drop; i++) delete s.children[keys[i] as string]
  count.n = keys.length - drop
}

/** Renames a child (keeping its place and ending), e.g. from a tool call id to the agent id its result names. */
const renameChild = (d: RunDraft, from: string, to: string): void => {
  if (from === to) return
  const i = d.childIndex[idKey(from)]
  if (i === undefined) {
    ensureChild(d, to)
    return
  }
  if (d.childIndex[idKey(to)] !== undefined) return
  const c = d.children[i]
  if (c === undefined) return
  c.sessionId = to
  delete d.childIndex[idKey(from)]
  d.childIndex[idKey(to)] = i
}

/**
 * The input ended: the held run and the open run are final. Returns them in order (the open one only when it
 * has content, or when no run was handed out at all: an input with no run is one `unfinished` run). Diagnostics
 * of an open run without content join the held run (nothing is lost); without one they become notes.
 * @internal
 */
export const endFold = (s: FoldState): Array<RunResult> => {
  const out: Array<RunResult> = []
  s.closed = null
  if (s.done) return out
  const d = s.run.draft
  if (!d.hasContent && s.held !== null) {
    for (const x of d.diagnostics) addDiagnostic(s.held.draft, x.line, x.message)
    s.held.draft.diagnosticsDropped += d.diagnosticsDropped
    d.diagnostics = []
    d.diagnosticsDropped = 0
  } else if (!d.hasContent && s.runs > 0) {
    for (const x of d.diagnostics) addNote(s, x.line, x.message)
  }
  if (s.held !== null) {
    releaseHeld(s)
    out.push(s.closed as unknown as RunResult)
  }
  if (d.hasContent || s.runs === 0) {
    const r = s.run
    s.run = newRun()
    handOut(s, resultOfRun(s, r))
    out.push(s.closed as unknown as RunResult)
  }
  s.closed = null
  return out
}

/**
 * The input failed while being read (a stream error): the held run, whose ending record had arrived, is final, so
 * it is returned (`undefined` when none is held); the open run stays open, neither ended nor handed out (its
 * records stop at the failure, so how it ended is not known). Replay mode only: a live fold holds no run.
 * @internal
 */
export const releaseHeldRun = (s: FoldState): RunResult | undefined => {
  if (s.held === null || s.done) return undefined
  releaseHeld(s)
  const r = s.closed ?? undefined
  s.closed = null
  return r
}

/**
 * The pure reducer, with `scan`'s argument order: a new state with `event` applied; `state` is not changed.
 * `index` is the event's 0-based position (kept for `scan` compatibility; the state counts events itself).
 * Total: decoded events cannot fail (decode with {@link decodeEvent} first).
 * @since 0.1.0
 * @category Fold
 */
export const step = (state: FoldState, event: SessionEvent, _index?: number): FoldState => {
  const next = cloneState(state)
  applyEvent(next, event)
  return next
}

/**
 * The `RunResult` of the input so far: the current run when it has content (or when no run was handed out yet,
 * as `unfinished` when it has no terminal event), otherwise the held run, otherwise the last handed-out run.
 * @since 0.1.0
 * @category Fold
 */
export const currentResult = (s: FoldState): RunResult => {
  if (!s.run.draft.hasContent) {
    if (s.held !== null) return resultOfRun(s, s.held, s.heldRoot)
    if (s.lastClosed !== null) return s.lastClosed
  }
  return resultOfRun(s, s.run)
}

/**
 * The open run ended by a failure of the stream itself (a source error the caller asked to turn into an
 * ending): `failed` with `reason: 'error'`, `phase: 'stream'` and the error, whatever its turns said; the
 * response is dropped.
 * @since 0.2.0
 */
export const streamFailedResult = (s: FoldState, error: EndingError): RunResult =>
  resultOfRun(s, s.run, s.root, { kind: 'failed', reason: 'error', phase: 'stream', error })

/** `true` when the current run has content that is not yet part of a closed run. @since 0.1.0 @category Fold */
export const hasOpenRun = (s: FoldState): boolean => s.run.draft.hasContent

/** `true` when a closed run is held, waiting for late records (replay mode). @since 0.2.0 */
export const hasHeldRun = (s: FoldState): boolean => s.held !== null

/**
 * A private, mutable fold: apply per event (native input is decoded first), with runs handed out in
 * `state.closed`. The engine of `foldRuns`, the operators, the pipeline and the file reader.
 * @internal
 */
export class NativeFolder {
  readonly state: FoldState
  private readonly cache: SeqCache = { id: null, mem: undefined }
  constructor(options: FoldOptions = {}, state?: FoldState) {
    this.state = state ?? initialState(options)
  }
  /**
   * Decodes and applies one native input, read from its plain copy (each field read once; see `plainData`).
   * Returns the `ProtocolError` if it is malformed or cannot be read (the state is unchanged).
   */
  push(input: unknown, line?: number): ProtocolError | undefined {
    const decoded = decodeUntrusted(input, this.state.events)
    if (decoded instanceof ProtocolError) return line === undefined ? decoded : decoded.at(line)
    applyEvent(this.state, decoded, line, this.cache)
    return undefined
  }
  /** Applies one event that is already a valid `SessionEvent` (a translator's output). */
  apply(ev: SessionEvent, line?: number): void {
    applyEvent(this.state, ev, line, this.cache)
  }
  /** The notes gathered since the last call (late records of runs already handed out), emptied. */
  takeNotes(): Array<Diagnostic> {
    const n = this.state.notes
    if (n.length === 0) return n
    this.state.notes = []
    return n
  }
}

/**
 * Every run of a native event sequence (SPEC §4): one `RunResult` per root-idle-delimited run (or the owned
 * interval with `messageId`). An input with no run gives one `unfinished` run.
 *
 * **Fails with** the first `ProtocolError` (kind `event` or `turn-end`), whatever follows it; also kind `event`
 * (path `''`, expected `an iterable of events`) when `events` is not iterable, and at the index reached when its
 * iteration throws or an event's field cannot be read (a throwing getter or `Proxy`; each field is read once).
 * Never throws.
 * @since 0.1.0
 * @category Fold
 */
export const foldRuns = (events: Iterable<unknown>, options: FoldOptions = {}): E.Either<ProtocolError, Array<RunResult>> => {
  const f = new NativeFolder(options)
  const out: Array<RunResult> = []
  const err = pushAll(events, f, (closed) => out.push(closed))
  if (err !== undefined) return E.left(err)
  for (const r of endFold(f.state)) out.push(r)
  return E.right(out)
}

/**
 * Pushes every input of `events` into `f` (runs closed on the way go to `onClosed`); the first `ProtocolError`,
 * or one of kind `event` at the index reached when `events` is not iterable or its iteration throws (a
 * generator that fails, a throwing `Proxy`): the library's fold functions never throw.
 * @internal
 */
export const pushAll = (events: Iterable<unknown>, f: NativeFolder, onClosed: (r: RunResult) => void): ProtocolError | undefined => {
  let it: Iterator<unknown>
  try {
    const make = (events as { [Symbol.iterator]?: unknown } | null | undefined)?.[Symbol.iterator]
    if (typeof make !== 'function') return new ProtocolError({ kind: 'event', index: 0, path: '', expected: 'an iterable of events' })
    it = make.call(events) as Iterator<unknown>
  } catch {
    return new ProtocolError({ kind: 'event', index: 0, path: '', expected: 'an iterable of events' })
  }
  for (;;) {
    let n: IteratorResult<unknown>
    try {
      n = it.next()
      if (typeof n !== 'object' || n === null) throw new TypeError('not an iterator result')
      if (n.done === true) return undefined
    } catch {
      return new ProtocolError({ kind: 'event', index: f.state.events, path: '', expected: 'an iterable whose events can be read' })
    }
    const err = f.push(n.value)
    if (err !== undefined) {
      try {
        it.return?.()
      } catch {
        // the iterator's own clean-up failed: the protocol error is the answer
      }
      return err
    }
    if (f.state.closed !== null) onClosed(f.state.closed)
  }
}

/**
 * Folds a native event sequence into the `RunResult` of its last run (SPEC §1, §4).
 *
 * 1. Each input is decoded ({@link decodeEvent}); unknown types and malformed non-terminal events become
 *    diagnostics. 2. The state is updated in one private accumulator. 3. At the end, the last run is returned:
 *    its ending from the last root `turn/end`, or `unfinished` when there is none.
 *
 * **Fails with** the first `ProtocolError` (a `turn/end` without a valid reason, an event without a string
 * `type`); the index is that event's position. A non-iterable `events`, an iteration that throws, or an event
 * whose fields cannot be read (a throwing getter or `Proxy`) is a `ProtocolError` of kind `event` too (each field
 * is read once, from a plain copy). Never throws.
 * @example foldEvents([{ type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } }])
 * // => right({ ending: { kind: 'answered' }, finishReason: 'completed', … })
 * @since 0.1.0
 * @category Fold
 */
export const foldEvents = (events: Iterable<unknown>, options: FoldOptions = {}): E.Either<ProtocolError, RunResult> => {
  const f = new NativeFolder(options)
  const err = pushAll(events, f, () => {})
  if (err !== undefined) return E.left(err)
  return E.right(currentResult(f.state))
}
