/**
 * A deliberately simpler model of the native protocol (SPEC §4) for `fc.commands`: counters, sums and the
 * ending oracle of `reasons.ts`, nothing of the fold's own machinery. Valid commands emit events that the
 * real fold (`step`, the pure reducer) applies; after each one the fold's projections are compared with the
 * model. Illegal commands emit events that must be a `ProtocolError` of the right kind, at the right index,
 * naming the right path.
 */
import * as E from 'fp-ts/lib/Either.js'
import fc from 'fast-check'
import { decodeEvent } from '../../../src/core/decodeEvent.js'
import { currentResult, foldEvents, type FoldState, step } from '../../../src/core/fold.js'
import type { RunEnding } from '../../../src/core/RunEnding.js'
import type { RunResult } from '../../../src/core/RunResult.js'
import { expectSame } from './equal.js'
import { badTurnEndArb, type BadTurnEnd, type ReasonCase, reasonCaseArb } from './reasons.js'

export interface Buckets {
  inputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
}

/** What the model expects of one run. */
export interface ModelRun {
  hasContent: boolean
  turns: number
  toolCalls: number
  usage: Buckets
  /** priced items (messages with usage), and those of them without a cost */
  items: number
  missing: number
  /** cost in thousandths of a USD (integers, so the sum is exact) */
  milliUsd: number
  response: string | null
  finishReason: string | null
  ending: RunEnding | null
  /** turn of a root max-tokens end (undefined: none) */
  sticky: number | null | undefined
  children: Array<{ id: string; ending: RunEnding }>
  diagnostics: number
  lastEventType: string | null
}

export interface Model {
  readonly root: string
  readonly kids: ReadonlyArray<string>
  started: Array<string>
  run: ModelRun
  closed: Array<ModelRun>
  turn: number
  openCalls: Array<string>
  nextCall: number
  /** next seq per session (even numbers; odd ones are left free for late deliveries) */
  seq: Record<string, number>
  /** events sent with a seq, for re-delivery */
  sentWithSeq: Array<Record<string, unknown>>
  /** the next odd seq a late delivery uses */
  nextLate: number
  illegal: number
  /** a run closed and no root content has come since: a root turn/end now is a late terminal record (K7) */
  afterClose: boolean
}

export interface Real {
  state: FoldState
  /** every valid event sent so far (the input a whole-trace fold would read) */
  readonly log: Array<unknown>
}

const zero = (): Buckets => ({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 })

export const newModelRun = (): ModelRun => ({
  hasContent: false,
  turns: 0,
  toolCalls: 0,
  usage: zero(),
  items: 0,
  missing: 0,
  milliUsd: 0,
  response: null,
  finishReason: null,
  ending: null,
  sticky: undefined,
  children: [],
  diagnostics: 0,
  lastEventType: null,
})

export const newModel = (root: string, kids: ReadonlyArray<string>): Model => ({
  root,
  kids,
  started: [],
  run: newModelRun(),
  closed: [],
  turn: 0,
  openCalls: [],
  nextCall: 0,
  seq: {},
  sentWithSeq: [],
  nextLate: 1,
  illegal: 0,
  afterClose: false,
})

/** The result the model expects `currentResult` to give now. */
export const expectedRun = (m: Model): ModelRun => (!m.run.hasContent && m.closed.length > 0 ? (m.closed.at(-1) as ModelRun) : m.run)

/** The projections of a result the model predicts: ending, finishReason, response, counts, usage sums, cost, children. */
export const projection = (r: RunResult): unknown => ({
  sessionId: r.sessionId,
  ending: r.ending,
  finishReason: r.finishReason,
  response: r.response,
  turns: r.turns,
  toolCalls: r.toolCalls,
  usage: [r.usage.inputTokens, r.usage.cacheReadTokens, r.usage.cacheWriteTokens, r.usage.outputTokens, r.usage.reasoningTokens],
  cost: r.cost,
  children: r.children.map((c) => [c.sessionId, c.ending]),
  diagnostics: r.diagnostics.length + r.diagnosticsDropped,
})

/** What the model predicts for those projections. */
export const modelProjection = (want: ModelRun, root: string | null): unknown => {
  const ending: RunEnding = want.ending ?? { kind: 'unfinished', ...(want.lastEventType !== null ? { lastEventType: want.lastEventType } : {}) }
  const u = want.usage
  return {
    sessionId: root,
    ending,
    finishReason: want.finishReason,
    response: ending.kind === 'answered' || ending.kind === 'cut_off' ? want.response : null,
    turns: want.turns,
    toolCalls: want.toolCalls,
    usage: [u.inputTokens, u.cacheReadTokens, u.cacheWriteTokens, u.outputTokens, u.reasoningTokens],
    // K27: nothing priced is an unknown cost, never a complete $0
    cost:
      want.items === 0
        ? { totalUsd: null, complete: false, missing: 0 }
        : { totalUsd: want.missing > 0 ? null : want.milliUsd / 1000, complete: want.missing === 0, missing: want.missing },
    children: want.children.map((c) => [c.id, c.ending]),
    diagnostics: want.diagnostics,
  }
}

/** Compares the fold's result with a model run (one deep comparison; the message names the first differing field). */
export const checkProjection = (r: RunResult, want: ModelRun, root: string | null): void => {
  expectSame(projection(r), modelProjection(want, root), 'projection')
}

/** Applies an event to the real state with the pure `step`, keeping the log. */
const apply = (real: Real, event: Record<string, unknown>): void => {
  const decoded = decodeEvent(event, real.log.length)
  if (E.isLeft(decoded)) throw new Error(`a valid command produced a protocol error: ${decoded.left.message}`)
  real.state = step(real.state, decoded.right, real.log.length)
  real.log.push(event)
}

const check = (m: Model, real: Real): void => {
  if (real.state.events !== real.log.length) throw new Error('events counted wrong')
  if (real.state.runs !== m.closed.length) throw new Error(`runs closed: ${real.state.runs}, model ${m.closed.length}`)
  checkProjection(currentResult(real.state), expectedRun(m), real.log.length > 0 ? m.root : null)
}

const seqFor = (m: Model, session: string, withSeq: boolean): Record<string, number> => {
  if (!withSeq) return {}
  const n = m.seq[`#${session}`] ?? 0
  m.seq[`#${session}`] = n + 2
  return { seq: n }
}

/** Sends one valid event built by `make`, updating the model with `effect` (when the event is applied). */
abstract class Valid implements fc.Command<Model, Real> {
  constructor(protected readonly withSeq: boolean) {}
  abstract check(m: Readonly<Model>): boolean
  abstract event(m: Model): { session: string; type: string; data: unknown }
  abstract effect(m: Model, run: ModelRun, lastBefore?: string | null): void
  run(m: Model, real: Real): void {
    const { session, type, data } = this.event(m)
    const e: Record<string, unknown> = { type, sessionId: session, data, ...seqFor(m, session, this.withSeq) }
    if (e['seq'] !== undefined) m.sentWithSeq.push(e)
    const lastBefore = m.run.lastEventType
    m.run.lastEventType = type
    this.effect(m, m.run, lastBefore)
    apply(real, e)
    check(m, real)
  }
  abstract toString(): string
}

class StartTurn extends Valid {
  check = (): boolean => true
  event(m: Model) {
    return { session: m.root, type: 'turn/start', data: { turn: m.turn + 1 } }
  }
  effect(m: Model, r: ModelRun): void {
    m.turn++
    r.turns++
    r.hasContent = true
    m.afterClose = false
    r.sticky = undefined
  }
  toString = (): string => `StartTurn${this.withSeq ? '+seq' : ''}`
}

class StepMark extends Valid {
  constructor(
    withSeq: boolean,
    private readonly end: boolean,
  ) {
    super(withSeq)
  }
  check = (): boolean => true
  event(m: Model) {
    return { session: m.root, type: this.end ? 'step/end' : 'step/start', data: { turn: m.turn, step: 1 } }
  }
  effect(): void {}
  toString = (): string => (this.end ? 'StepEnd' : 'StepStart')
}

class Chunk extends Valid {
  constructor(
    withSeq: boolean,
    private readonly text: string,
  ) {
    super(withSeq)
  }
  check = (): boolean => true
  event(m: Model) {
    return { session: m.root, type: 'assistant/chunk', data: { turn: m.turn, step: 1, chunk: { type: 'text', text: this.text } } }
  }
  effect(m: Model, r: ModelRun): void {
    r.hasContent = true
    m.afterClose = false
  }
  toString = (): string => `Chunk(${JSON.stringify(this.text)})`
}

class UserSays extends Valid {
  check = (): boolean => true
  event(m: Model) {
    return { session: m.root, type: 'user/message', data: { message: { role: 'user', content: 'go' } } }
  }
  effect(m: Model, r: ModelRun): void {
    r.hasContent = true
    m.afterClose = false
  }
  toString = (): string => 'UserSays'
}

export interface MessageSpec {
  readonly text: string
  readonly extraBlock: boolean
  readonly usage: (Partial<Buckets> & { inputTokens: number; outputTokens: number }) | undefined
  readonly milliUsd: number | undefined
  readonly model: string
  readonly kidPos: number | undefined
}

class Message extends Valid {
  constructor(
    withSeq: boolean,
    private readonly spec: MessageSpec,
  ) {
    super(withSeq)
  }
  check = (m: Readonly<Model>): boolean => this.spec.kidPos === undefined || m.started.length > 0
  private session(m: Readonly<Model>): string {
    return this.spec.kidPos === undefined ? m.root : (m.started[this.spec.kidPos % m.started.length] as string)
  }
  event(m: Model) {
    const s = this.spec
    const content: Array<Record<string, unknown>> = [{ type: 'text', text: s.text }]
    if (s.extraBlock) content.push({ type: 'tool_use', id: 'x', name: 'Bash' }, { type: 'text', text: '!' })
    return {
      session: this.session(m),
      type: 'assistant/message',
      data: {
        turn: m.turn,
        step: 1,
        message: { content },
        model: s.model,
        ...(s.usage !== undefined ? { usage: s.usage } : {}),
        ...(s.milliUsd !== undefined ? { costUsd: s.milliUsd / 1000 } : {}),
      },
    }
  }
  effect(m: Model, r: ModelRun): void {
    const s = this.spec
    if (s.usage !== undefined) {
      for (const k of Object.keys(r.usage) as Array<keyof Buckets>) r.usage[k] += s.usage[k] ?? 0
      r.items++
      if (s.milliUsd === undefined) r.missing++
      else r.milliUsd += s.milliUsd
    }
    if (s.kidPos === undefined) {
      r.hasContent = true
      m.afterClose = false
      r.response = s.text + (s.extraBlock ? '!' : '')
    }
  }
  toString = (): string => `Message(${JSON.stringify(this.spec)})`
}

/** Tool call ids, hostile ones included. */
const callIdOf = (n: number): string => `${['c', '__proto__', 'constructor', 'toString'][n % 4]}${n === 0 ? '' : n}`

class CallTool extends Valid {
  constructor(
    withSeq: boolean,
    private readonly kidPos: number | undefined,
  ) {
    super(withSeq)
  }
  check = (m: Readonly<Model>): boolean => this.kidPos === undefined || m.started.length > 0
  event(m: Model) {
    const session = this.kidPos === undefined ? m.root : (m.started[this.kidPos % m.started.length] as string)
    return { session, type: 'tool/call', data: { callId: callIdOf(m.nextCall), name: 'Bash', arguments: '{"cmd":"ls"}' } }
  }
  effect(m: Model, r: ModelRun): void {
    r.toolCalls++
    if (this.kidPos === undefined) {
      r.hasContent = true
      m.afterClose = false
    }
    m.openCalls.push(callIdOf(m.nextCall))
    m.nextCall++
  }
  toString = (): string => `CallTool(${this.kidPos ?? 'root'})`
}

class ToolResult extends Valid {
  constructor(
    withSeq: boolean,
    private readonly pos: number,
    private readonly failed: boolean,
  ) {
    super(withSeq)
  }
  check = (m: Readonly<Model>): boolean => m.openCalls.length > 0
  event(m: Model) {
    const id = m.openCalls[this.pos % m.openCalls.length] as string
    return {
      session: m.root,
      type: 'tool/result',
      data: { callId: id, message: 'out', ...(this.failed ? { error: { name: 'ToolError', code: 2, message: 'exit 2' } } : {}) },
    }
  }
  effect(m: Model, r: ModelRun): void {
    // a root tool result is run content (protocol 2)
    r.hasContent = true
    m.afterClose = false
    m.openCalls.splice(this.pos % m.openCalls.length, 1)
  }
  toString = (): string => `ToolResult(${this.pos}${this.failed ? ', failed' : ''})`
}

const childEntry = (r: ModelRun, id: string): { id: string; ending: RunEnding } => {
  let c = r.children.find((x) => x.id === id)
  if (c === undefined) {
    c = { id, ending: { kind: 'unfinished' } }
    r.children.push(c)
  }
  return c
}

class StartSubagent extends Valid {
  constructor(
    withSeq: boolean,
    private readonly pos: number,
  ) {
    super(withSeq)
  }
  check = (m: Readonly<Model>): boolean => m.kids.length > 0
  private kid(m: Readonly<Model>): string {
    return m.kids[this.pos % m.kids.length] as string
  }
  event(m: Model) {
    return { session: m.root, type: 'subagent/started', data: { parentSessionId: m.root, childSessionId: this.kid(m) } }
  }
  effect(m: Model, r: ModelRun): void {
    const kid = this.kid(m)
    if (!m.started.includes(kid)) m.started.push(kid)
    childEntry(r, kid)
  }
  toString = (): string => `StartSubagent(${this.pos})`
}

class FinishSubagent extends Valid {
  constructor(
    withSeq: boolean,
    private readonly pos: number,
    private readonly stop: ReasonCase | undefined,
  ) {
    super(withSeq)
  }
  check = (m: Readonly<Model>): boolean => m.started.length > 0
  private kid(m: Readonly<Model>): string {
    return m.started[this.pos % m.started.length] as string
  }
  event(m: Model) {
    const stopReason = this.stop?.reason['kind']
    return {
      session: m.root,
      type: 'subagent/finished',
      data: { parentSessionId: m.root, childSessionId: this.kid(m), ...(typeof stopReason === 'string' ? { stopReason } : {}) },
    }
  }
  effect(m: Model, r: ModelRun): void {
    const c = childEntry(r, this.kid(m))
    // a stop reason is a bare kind: a kind whose fields the table needs maps as if they were absent
    if (this.stop !== undefined) c.ending = bareKindEnding(this.stop)
  }
  toString = (): string => `FinishSubagent(${this.pos}, ${JSON.stringify(this.stop?.reason['kind'])})`
}

/** The ending of a reason reduced to its `kind` (what `subagent/finished.stopReason` carries). */
const bareKindEnding = (c: ReasonCase): RunEnding => {
  switch (c.ending.kind) {
    case 'stopped':
      return { kind: 'stopped', by: 'caller' }
    case 'blocked':
      return { kind: 'blocked' }
    case 'limit':
      return { kind: 'limit', reason: 'limit' }
    case 'suspended':
      return { kind: 'suspended', pending: [] }
    case 'failed':
      // `failed` (protocol 2) without its fields reads as a plain error; `error` without its object likewise
      if (c.reason['kind'] === 'failed') return { kind: 'failed', reason: 'error' }
      return c.ending.reason === 'error' ? { kind: 'failed', reason: 'error', error: { message: 'error' } } : c.ending
    case 'cut_off':
      return c.reason['kind'] === 'cut-off' ? { kind: 'cut_off', finishReason: 'unknown' } : c.ending
    case 'unfinished':
      return { kind: 'unfinished' }
    default:
      return c.ending
  }
}

class ChildTurnEnd extends Valid {
  constructor(
    withSeq: boolean,
    private readonly pos: number,
    private readonly c: ReasonCase,
  ) {
    super(withSeq)
  }
  check = (m: Readonly<Model>): boolean => m.started.length > 0
  private kid(m: Readonly<Model>): string {
    return m.started[this.pos % m.started.length] as string
  }
  event(m: Model) {
    return { session: this.kid(m), type: 'turn/end', data: { turn: 1, reason: this.c.reason } }
  }
  effect(m: Model, r: ModelRun): void {
    childEntry(r, this.kid(m)).ending = this.c.ending
  }
  toString = (): string => `ChildTurnEnd(${this.pos}, ${JSON.stringify(this.c.reason)})`
}

class EndTurn extends Valid {
  constructor(
    withSeq: boolean,
    private readonly c: ReasonCase,
    private readonly withTurn: boolean,
  ) {
    super(withSeq)
  }
  check = (): boolean => true
  event(m: Model) {
    return { session: m.root, type: 'turn/end', data: { ...(this.withTurn ? { turn: m.turn } : {}), reason: this.c.reason } }
  }
  effect(m: Model, r: ModelRun, lastBefore?: string | null): void {
    if (m.afterClose) {
      // K7: after the run closed and before anything of a new run, a turn end belongs to the closed run; the
      // fold (handing runs out at once, as `step` does) reports it as a note and leaves the new run as it was
      r.lastEventType = lastBefore ?? null
      return
    }
    const kind = this.c.reason['kind'] as string
    const turn = this.withTurn ? m.turn : null
    r.hasContent = true
    r.finishReason = kind
    if (kind === 'max-tokens') {
      r.sticky = turn
      r.ending = this.c.ending
    } else if (kind === 'completed' && r.sticky !== undefined && (r.sticky === null || turn === null || r.sticky === turn)) {
      r.ending = { kind: 'cut_off', finishReason: 'max_tokens' }
    } else {
      r.sticky = undefined
      r.ending = this.c.ending
    }
  }
  toString = (): string => `EndTurn(${JSON.stringify(this.c.reason)}${this.withTurn ? '' : ', no turn'})`
}

class Status extends Valid {
  constructor(
    withSeq: boolean,
    private readonly idle: boolean,
    private readonly wrapped: boolean,
  ) {
    super(withSeq)
  }
  check = (): boolean => true
  event(m: Model) {
    return { session: m.root, type: 'session/status', data: { status: this.idle ? 'idle' : 'running' } }
  }
  effect(m: Model, r: ModelRun, lastBefore?: string | null): void {
    if (this.idle && r.hasContent) {
      // the idle is the run's boundary, not its last word
      r.lastEventType = lastBefore ?? null
      m.closed.push(r)
      m.run = newModelRun()
      m.openCalls = []
      m.afterClose = true
    }
  }
  override run(m: Model, real: Real): void {
    if (!this.wrapped || this.withSeq) return super.run(m, real)
    // the JSON-RPC form of seed 002
    const lastBefore = m.run.lastEventType
    m.run.lastEventType = 'session/status'
    this.effect(m, m.run, lastBefore)
    apply(real, { method: 'session.status', params: { sessionId: m.root, status: this.idle ? 'idle' : 'running' } })
    check(m, real)
  }
  toString = (): string => `Status(${this.idle ? 'idle' : 'running'}${this.wrapped ? ', wrapped' : ''})`
}

class Unknown extends Valid {
  constructor(private readonly name: string) {
    super(false)
  }
  check = (): boolean => true
  event(m: Model) {
    return { session: m.root, type: this.name, data: { anything: [1, 2] } }
  }
  effect(_m: Model, r: ModelRun): void {
    r.diagnostics++
  }
  toString = (): string => `Unknown(${JSON.stringify(this.name)})`
}

class Malformed extends Valid {
  constructor(private readonly which: number) {
    super(false)
  }
  check = (): boolean => true
  private static readonly cases: ReadonlyArray<[string, unknown]> = [
    ['assistant/message', { message: 42 }],
    ['assistant/message', { message: { content: [] }, usage: { inputTokens: -1, outputTokens: 1 } }],
    ['assistant/message', { message: { content: [] }, usage: { inputTokens: 'NaN', outputTokens: 1 } }],
    ['tool/call', { callId: 5, name: 'Bash' }],
    ['session/status', { status: 'sleeping' }],
    ['turn/start', { turn: 'one' }],
    ['subagent/started', { parentSessionId: 'x' }],
    ['agent/inbox/spliced', { inserted: 'all' }],
  ]
  event(m: Model) {
    const [type, data] = Malformed.cases[this.which % Malformed.cases.length] as [string, unknown]
    return { session: m.root, type, data }
  }
  effect(_m: Model, r: ModelRun): void {
    r.diagnostics++
  }
  toString = (): string => `Malformed(${this.which % Malformed.cases.length})`
}

/** Re-delivers an event already applied (same session and seq): dropped with a diagnostic. */
class Redeliver implements fc.Command<Model, Real> {
  constructor(private readonly pos: number) {}
  check = (m: Readonly<Model>): boolean => m.sentWithSeq.length > 0
  run(m: Model, real: Real): void {
    const e = m.sentWithSeq[this.pos % m.sentWithSeq.length] as Record<string, unknown>
    m.run.diagnostics++
    apply(real, { ...e })
    check(m, real)
  }
  toString = (): string => `Redeliver(${this.pos})`
}

/** A new event whose seq is lower than one already applied (never used): applied, with a diagnostic. */
class Late implements fc.Command<Model, Real> {
  // odd seqs are never used by other commands; each late one is used once, below the highest applied
  check = (m: Readonly<Model>): boolean => (m.seq[`#${m.root}`] ?? 0) - 2 > m.nextLate
  run(m: Model, real: Real): void {
    const late = m.nextLate
    m.nextLate += 2
    const e = { type: 'user/message', sessionId: m.root, seq: late, data: { message: 'late' } }
    m.sentWithSeq.push(e)
    apply(real, e)
    m.run.lastEventType = 'user/message'
    m.run.hasContent = true
    m.afterClose = false
    m.run.diagnostics++
    check(m, real)
  }
  toString = (): string => 'Late'
}

/** An illegal event: `foldEvents` of the log plus it must fail at its index with the expected kind and path. */
class Illegal implements fc.Command<Model, Real> {
  constructor(
    private readonly event: (m: Readonly<Model>) => unknown,
    private readonly kind: 'event' | 'turn-end',
    private readonly path: string,
    private readonly label: string,
  ) {}
  check = (): boolean => true
  run(m: Model, real: Real): void {
    const bad = this.event(m)
    const index = real.log.length
    const alone = decodeEvent(bad, index)
    if (E.isRight(alone)) throw new Error(`${this.label}: decodeEvent accepted it`)
    const whole = foldEvents([...real.log, bad, { type: 'turn/end', sessionId: m.root, data: { reason: { kind: 'completed' } } }, 'junk'])
    if (E.isRight(whole)) throw new Error(`${this.label}: expected a ProtocolError`)
    const e = whole.left
    expectSame([e.name, e.kind, e.index, e.path], ['ProtocolError', this.kind, index, this.path], `${this.label}: error`)
    expectSame(alone.left.toJSON(), e.toJSON(), `${this.label}: error`)
    m.illegal++
    // the real state is unchanged: the stream would have stopped here; later commands go on from the valid log
    check(m, real)
  }
  toString = (): string => `Illegal(${this.label})`
}

const KNOWN_TYPES = new Set([
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
  'run-outcome/ignored',
  // protocol 2
  'session/started',
  'usage/add',
  'usage/total',
  'usage/set',
  'permission/denied',
  'stream/error',
  'turn/cancel',
  'source/record',
  'source/diagnostic',
])
const text = fc.string({ maxLength: 8, unit: 'grapheme' })
const bool = fc.boolean()
const usageArb = fc.record(
  { inputTokens: fc.nat(5000), outputTokens: fc.nat(5000), cacheReadTokens: fc.nat(5000), cacheWriteTokens: fc.nat(500), reasoningTokens: fc.nat(100) },
  { requiredKeys: ['inputTokens', 'outputTokens'] },
)
const messageArb: fc.Arbitrary<MessageSpec> = fc.record({
  text,
  extraBlock: bool,
  usage: fc.option(usageArb, { nil: undefined }),
  milliUsd: fc.option(fc.nat(2000), { nil: undefined }),
  model: fc.constantFrom('m1', 'm2', '__proto__', 'constructor'),
  kidPos: fc.option(fc.nat(3), { nil: undefined }),
})

/** The valid moves of the native protocol. */
export const validCommands: ReadonlyArray<fc.Arbitrary<fc.Command<Model, Real>>> = [
  bool.map((s) => new StartTurn(s)),
  fc.tuple(bool, bool).map(([s, end]) => new StepMark(s, end)),
  fc.tuple(bool, text).map(([s, t]) => new Chunk(s, t)),
  bool.map((s) => new UserSays(s)),
  fc.tuple(bool, messageArb).map(([s, spec]) => new Message(s, spec)),
  fc.tuple(bool, messageArb).map(([s, spec]) => new Message(s, spec)),
  fc.tuple(bool, fc.option(fc.nat(3), { nil: undefined })).map(([s, k]) => new CallTool(s, k)),
  fc.tuple(bool, fc.nat(5), bool).map(([s, p, f]) => new ToolResult(s, p, f)),
  fc.tuple(bool, fc.nat(3)).map(([s, p]) => new StartSubagent(s, p)),
  fc.tuple(bool, fc.nat(3), fc.option(reasonCaseArb, { nil: undefined })).map(([s, p, r]) => new FinishSubagent(s, p, r)),
  fc.tuple(bool, fc.nat(3), reasonCaseArb).map(([s, p, r]) => new ChildTurnEnd(s, p, r)),
  fc.tuple(bool, reasonCaseArb, bool).map(([s, r, t]) => new EndTurn(s, r, t)),
  fc.tuple(bool, reasonCaseArb, bool).map(([s, r, t]) => new EndTurn(s, r, t)),
  fc.tuple(bool, bool, bool).map(([s, idle, w]) => new Status(s, idle, w)),
  fc.tuple(bool, bool).map(([s, w]) => new Status(s, true, w)),
  fc
    .oneof(fc.constantFrom('todo/write', 'turn/aborted', '__proto__', 'constructor', 'run-outcome/whatever'), fc.string({ maxLength: 12 }))
    .filter((n) => !KNOWN_TYPES.has(n))
    .map((n) => new Unknown(n)),
  fc.nat(20).map((w) => new Malformed(w)),
  fc.nat(60).map((p) => new Redeliver(p)),
  fc.constant(new Late()),
]

/** Moves that break the protocol, each with the error kind and path it must give. */
export const illegalCommands: ReadonlyArray<fc.Arbitrary<fc.Command<Model, Real>>> = [
  fc
    .tuple(badTurnEndArb, bool)
    .map(
      ([b, kid]: [BadTurnEnd, boolean]) =>
        new Illegal(
          (m) => ({ type: 'turn/end', sessionId: kid && m.started.length > 0 ? m.started[0] : m.root, ...(b.data === undefined ? {} : { data: b.data }) }),
          'turn-end',
          b.path,
          `turn/end: ${b.label}${kid ? ' (child)' : ''}`,
        ),
    ),
  fc
    .constantFrom<[unknown, string, string]>(
      ['hello', '', 'a string'],
      [42, '', 'a number'],
      [null, '', 'null'],
      [[{ type: 'turn/start' }], '', 'an array'],
      [true, '', 'a boolean'],
    )
    .map(([v, path, label]) => new Illegal(() => v, 'event', path, `not an object: ${label}`)),
  fc
    .constantFrom<[unknown, string]>([undefined, 'missing'], [5, 'a number'], [null, 'null'], [{ name: 'turn/end' }, 'an object'])
    .map(([t, label]) => new Illegal((m) => ({ sessionId: m.root, data: {}, ...(t === undefined ? {} : { type: t }) }), 'event', 'type', `type ${label}`)),
  fc.constant(new Illegal((m) => ({ method: 'session.event', params: { sessionId: m.root, event: 'x' } }), 'event', 'params.event', 'wrapper without event')),
  fc.constant(
    new Illegal(
      (m) => ({ method: 'session.event', params: { sessionId: m.root, event: { data: {} } } }),
      'event',
      'params.event.type',
      'wrapped event without type',
    ),
  ),
  fc
    .constantFrom<[unknown, string]>([{ turn: 1 }, 'reason'], [{ reason: { kind: false } }, 'reason.kind'])
    .map(
      ([data, path]) =>
        new Illegal(
          (m) => ({ method: 'session.event', params: { sessionId: m.root, event: { type: 'turn/end', data } } }),
          'turn-end',
          path,
          `wrapped turn/end at ${path}`,
        ),
    ),
]

const ROOTS = ['root', '__proto__', 'constructor', 'toString', 's-1']
const KIDS = ['kid', 'hasOwnProperty', 'valueOf', '__defineGetter__', 'k-2']

/** A root id and up to three child ids, hostile ones included (style §3 P6). */
export const sessionsArb = fc.tuple(fc.constantFrom(...ROOTS), fc.subarray(KIDS, { maxLength: 3 }))
