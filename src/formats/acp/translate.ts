/**
 * The ACP translator proper: each JSON-RPC message read into the state (`state.ts`) — a `session/prompt`
 * opens a turn, `session/update`s and permission requests of its session feed it, its response closes it —
 * and each closed turn emitted as native events (`turn.ts`). Responses are paired with their requests by
 * `envelope.ts`; usage and cost are read by `usage.ts`.
 *
 * @module
 * @internal
 */
import type { Emit } from '../../core/translator.js'
import { isObject, short, str, type Obj } from '../json.js'
import { idKey, take, unwrap } from './envelope.js'
import { emptyNotes, note, openTurn, remember, session, touch, turnOf, type AcpSession, type AcpState, type AcpTurn } from './state.js'
import { abandon, CANCELLED, emitDropped, emitNotes, endingOfStopReason, finalize, flushClosing, reasonOfEnding } from './turn.js'
import { acpUsageBuckets, toAcpBuckets } from './usage.js'

const modelIdOf = (result: Obj): string | undefined => {
  const models = result['models']
  return isObject(models) ? str(models['currentModelId']) : undefined
}

const closeWithResponse = (s: AcpState, n: number, turn: AcpTurn, msg: Obj, line: number | undefined): void => {
  const error = msg['error']
  if (error !== undefined) {
    if (turn.cancelRequested) {
      turn.reason = CANCELLED
    } else {
      const e = isObject(error) ? error : {}
      const code = e['code']
      turn.reason = {
        kind: 'error',
        error: {
          message: str(e['message']) ?? (typeof error === 'string' ? error : 'error response without a message'),
          // a number JSON cannot write back (1e999) is no code
          ...((typeof code === 'number' && Number.isFinite(code)) || typeof code === 'string' ? { code } : {}),
        },
      }
    }
    turn.finishReason = null
  } else {
    const result = msg['result']
    const stopReason = isObject(result) ? result['stopReason'] : undefined
    if (typeof stopReason !== 'string') {
      note(s, turn, line, 'skipped a session/prompt response without a string result.stopReason')
      return
    }
    turn.reason = reasonOfEnding(endingOfStopReason(stopReason))
    turn.finishReason = stopReason
    const u = isObject(result) ? result['usage'] : undefined
    if (isObject(u)) {
      const b = acpUsageBuckets(u, (m) => note(s, turn, line, m))
      if (b === undefined) note(s, turn, line, 'ignored a usage object without numeric inputTokens and outputTokens')
      else turn.usage = toAcpBuckets(b)
    } else if (u !== undefined && u !== null) {
      note(s, turn, line, 'ignored a usage field that is not an object')
    }
  }
  turn.closed = true
  s.closing = n
}

const newTurn = (sessionId: string, sess: AcpSession): AcpTurn => ({
  sessionId,
  firstLine: null,
  lastLine: null,
  firstTime: null,
  lastTime: null,
  text: '',
  tools: {},
  permissions: {},
  denials: [],
  cancelRequested: false,
  costBase: sess.costUsd ?? (sess.fresh ? 0 : null),
  costLast: null,
  costOtherCurrency: false,
  usage: null,
  lastType: null,
  reason: null,
  finishReason: null,
  inferred: false,
  closed: false,
  implicit: false,
  notes: emptyNotes(),
})

const onRequest = (
  s: AcpState,
  msg: Obj,
  method: string,
  key: string,
  dir: string | null,
  line: number | undefined,
  time: string | number | undefined,
  emit: Emit,
): void => {
  const params = isObject(msg['params']) ? msg['params'] : undefined
  const sessionId = params !== undefined ? str(params['sessionId']) : undefined
  switch (method) {
    case 'session/prompt': {
      if (sessionId === undefined) {
        note(s, undefined, line, 'skipped a session/prompt request without a string params.sessionId')
        remember(s, key, { method: 'other', dir }, line)
        return
      }
      const sess = session(s, sessionId)
      sess.prompted = true
      s.prompted = true
      const prev = turnOf(s, sess.open)
      if (prev !== undefined) {
        note(s, prev, line, 'a new session/prompt started before this one was answered')
        abandon(prev)
        finalize(s, sess.open as number, emit)
      }
      const turn = newTurn(sessionId, sess)
      turn.lastType = method
      touch(turn, line, time)
      const n = s.nextTurn++
      s.turns[`#${n}`] = turn
      sess.open = n
      remember(s, key, { method, dir, run: n }, line)
      return
    }
    case 'session/request_permission': {
      const open = openTurn(s, sessionId)
      const turn = open?.turn
      const toolCall = params !== undefined ? params['toolCall'] : undefined
      const toolCallId = isObject(toolCall) ? str(toolCall['toolCallId']) : undefined
      if (open === undefined || turn === undefined || !isObject(toolCall) || toolCallId === undefined) {
        if (turn !== undefined || sessionId === undefined)
          note(s, turn, line, 'skipped a session/request_permission without a session prompt or a string toolCall.toolCallId')
        remember(s, key, { method: 'other', dir }, line)
        return
      }
      touch(turn, line, time)
      turn.lastType = method
      const known = turn.tools[`#${toolCallId}`]
      const toolName = str(toolCall['title']) ?? known?.title ?? str(toolCall['kind']) ?? known?.kind ?? undefined
      const rawInput = toolCall['rawInput']
      const reject: Record<string, true> = {}
      const options = params?.['options']
      if (Array.isArray(options)) {
        for (const o of options) {
          if (!isObject(o)) continue
          const id = str(o['optionId'])
          const kind = o['kind']
          if (id !== undefined && (kind === 'reject_once' || kind === 'reject_always')) reject[`#${id}`] = true
        }
      }
      s.permissionSeq++
      turn.permissions[`#${s.permissionSeq}`] = {
        item: {
          id: toolCallId,
          kind: 'approval',
          ...(toolName !== undefined ? { toolName } : {}),
          ...(rawInput !== undefined ? { arguments: rawInput } : {}),
        },
        reject,
      }
      remember(s, key, { method, dir, run: open.n, permission: s.permissionSeq }, line)
      return
    }
    case 'session/set_model': {
      const modelId = params !== undefined ? str(params['modelId']) : undefined
      if (sessionId !== undefined && modelId !== undefined) session(s, sessionId).model = modelId
      remember(s, key, { method, dir }, line)
      return
    }
    case 'session/load':
    case 'session/resume':
      // the updates of the session until the response replay its history: they make no run
      if (sessionId !== undefined) session(s, sessionId).loading++
      remember(s, key, { method, dir, ...(sessionId !== undefined ? { sessionId } : {}) }, line)
      return
    case 'session/new':
    case 'session/fork':
      remember(s, key, { method, dir, ...(sessionId !== undefined ? { sessionId } : {}) }, line)
      return
    default:
      remember(s, key, { method: 'other', dir }, line)
  }
}

const onNotification = (s: AcpState, msg: Obj, method: string, line: number | undefined, time: string | number | undefined): void => {
  const params = isObject(msg['params']) ? msg['params'] : undefined
  const sessionId = params !== undefined ? str(params['sessionId']) : undefined
  if (method === 'session/cancel') {
    const turn = openTurn(s, sessionId)?.turn
    if (turn !== undefined) {
      turn.cancelRequested = true
      turn.lastType = method
      touch(turn, line, time)
    }
    return
  }
  if (method !== 'session/update') return
  const update = params !== undefined ? params['update'] : undefined
  const kind = isObject(update) ? update['sessionUpdate'] : undefined
  if (sessionId === undefined || !isObject(update) || typeof kind !== 'string') {
    note(s, undefined, line, 'skipped a session/update without a string sessionId and update.sessionUpdate')
    return
  }
  const sess = session(s, sessionId)
  s.lastSession = sessionId
  let turn = turnOf(s, sess.open)
  if (turn === undefined && TURN_CONTENT.has(kind) && !sess.prompted && sess.loading === 0) {
    // an agent-side capture holds no prompt requests: the updates of a session with no prompt in the log open its
    // turn, which the next prompt response (whose request is not in the log) ends
    turn = newTurn(sessionId, sess)
    turn.implicit = true
    const n = s.nextTurn++
    s.turns[`#${n}`] = turn
    sess.open = n
  }
  if (turn?.implicit === true) s.lastImplicit = sess.open
  if (kind === 'usage_update') {
    const closing = turnOf(s, s.closing)
    const target = turn ?? (closing !== undefined && closing.sessionId === sessionId ? closing : undefined)
    const cost = update['cost']
    if (isObject(cost)) {
      const amount = cost['amount']
      const currency = cost['currency']
      if (typeof amount !== 'number' || !Number.isFinite(amount) || typeof currency !== 'string') {
        note(s, target, line, 'ignored a usage_update cost without a numeric amount and a string currency')
      } else if (currency.toUpperCase() === 'USD') {
        sess.costUsd = amount
        if (target !== undefined) target.costLast = amount
      } else if (target !== undefined) {
        target.costOtherCurrency = true
      }
    }
    if (target !== undefined) touch(target, line, time)
    return
  }
  if (turn === undefined) return
  touch(turn, line, time)
  turn.lastType = short(kind)
  switch (kind) {
    case 'agent_message_chunk': {
      const content = update['content']
      if (isObject(content) && content['type'] === 'text') {
        const text = content['text']
        if (typeof text === 'string') turn.text += text
        else note(s, turn, line, 'skipped an agent_message_chunk whose text is not a string')
      }
      return
    }
    case 'tool_call': {
      const id = str(update['toolCallId'])
      if (id === undefined) {
        note(s, turn, line, 'skipped a tool_call without a string toolCallId')
        return
      }
      turn.tools[`#${id}`] = { title: str(update['title']) ?? null, kind: str(update['kind']) ?? null, status: str(update['status']) ?? null }
      return
    }
    case 'tool_call_update': {
      const id = str(update['toolCallId'])
      const known = id !== undefined ? turn.tools[`#${id}`] : undefined
      if (known !== undefined) {
        const title = str(update['title'])
        const k = str(update['kind'])
        const status = str(update['status'])
        if (title !== undefined) known.title = title
        if (k !== undefined) known.kind = k
        if (status !== undefined) known.status = status
      }
      return
    }
    default:
      return
  }
}

/** Update kinds that only a prompt turn has (the others state the session: commands, modes, titles, usage). */
const TURN_CONTENT: ReadonlySet<string> = new Set(['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk', 'tool_call', 'tool_call_update', 'plan'])

/**
 * The turn a prompt response ends when its request is not in the log (a one-way capture): the implicit turn that
 * got the latest update, else any open implicit turn, else — in a log with no prompt request at all — a new turn
 * with no content (of the last session named, or of none); `undefined` otherwise (a log that carries the prompts:
 * the response answers none of them).
 */
const implicitTurn = (s: AcpState): { readonly n: number; readonly turn: AcpTurn } | undefined => {
  const last = turnOf(s, s.lastImplicit)
  if (last !== undefined && !last.closed && last.implicit) return { n: s.lastImplicit as number, turn: last }
  for (const k of Object.keys(s.turns)) {
    const t = s.turns[k] as AcpTurn
    if (t.implicit && !t.closed) return { n: Number(k.slice(1)), turn: t }
  }
  s.prompted ??= Object.keys(s.sessions).some((k) => (s.sessions[k] as AcpSession).prompted)
  if (s.prompted) return undefined
  const sid = s.lastSession ?? ''
  const sess = session(s, sid)
  const turn = newTurn(sid, sess)
  turn.implicit = true
  const n = s.nextTurn++
  s.turns[`#${n}`] = turn
  if (sess.open === null) sess.open = n
  return { n, turn }
}

/** A response whose result states a session (`modes`, `models`): a `session/new` / `load` / `resume` / `fork` answer. */
const statesSession = (r: Obj): boolean => isObject(r['modes']) || isObject(r['models'])

/**
 * A response whose request is not in the log (a one-way, agent-side capture): a `PromptResponse` ends the implicit
 * turn its updates opened; a session's setup answer (`session/load` replays history before it answers) means the
 * implicit turns open before it were that history: they make no run.
 */
const unpairedResponse = (s: AcpState, msg: Obj, line: number | undefined, time: string | number | undefined): void => {
  const r = msg['result']
  if (!isObject(r)) return
  if (typeof r['stopReason'] === 'string') {
    const open = implicitTurn(s)
    if (open === undefined) {
      note(s, undefined, line, 'skipped a session/prompt response whose request is not in the log')
      return
    }
    touch(open.turn, line, time)
    closeWithResponse(s, open.n, open.turn, msg, line)
    return
  }
  if (!statesSession(r)) return
  const id = str(r['sessionId'])
  const model = modelIdOf(r)
  if (id !== undefined && model !== undefined) session(s, id).model = model
  for (const k of Object.keys(s.turns)) {
    const t = s.turns[k] as AcpTurn
    if (!t.implicit || t.closed) continue
    delete s.turns[k]
    const sess = s.sessions[`#${t.sessionId}`]
    if (sess !== undefined && sess.open === Number(k.slice(1))) sess.open = null
    note(s, undefined, line, 'read the updates before a session setup response as replayed history: they make no run')
  }
  s.lastImplicit = null
}

const onResponse = (s: AcpState, msg: Obj, key: string | undefined, dir: string | null, line: number | undefined, time: string | number | undefined): void => {
  const req = key !== undefined ? take(s.pairing, key, dir, msg) : undefined
  if (req === undefined) {
    unpairedResponse(s, msg, line, time)
    return
  }
  const result = isObject(msg['result']) ? msg['result'] : undefined
  switch (req.method) {
    case 'session/prompt': {
      const turn = turnOf(s, req.run)
      if (turn === undefined || turn.closed) return
      touch(turn, line, time)
      closeWithResponse(s, req.run as number, turn, msg, line)
      return
    }
    case 'session/request_permission': {
      const turn = turnOf(s, req.run)
      if (turn === undefined || turn.closed || req.permission === undefined) return
      touch(turn, line, time)
      const pk = `#${req.permission}`
      const p = turn.permissions[pk]
      delete turn.permissions[pk]
      const outcome = result !== undefined ? result['outcome'] : undefined
      if (p !== undefined && isObject(outcome) && outcome['outcome'] === 'selected') {
        const optionId = str(outcome['optionId'])
        if (optionId !== undefined && p.reject[`#${optionId}`] === true) {
          turn.denials.push({ toolName: p.item.toolName ?? 'unknown', callId: p.item.id })
        }
      }
      return
    }
    case 'session/new': {
      const id = result !== undefined ? str(result['sessionId']) : undefined
      if (id === undefined) return
      const sess = session(s, id)
      sess.fresh = true
      const model = modelIdOf(result as Obj)
      if (model !== undefined) sess.model = model
      return
    }
    case 'session/load':
    case 'session/resume':
    case 'session/fork': {
      if (req.method !== 'session/fork' && req.sessionId !== undefined) {
        const sess = session(s, req.sessionId)
        if (sess.loading > 0) sess.loading--
      }
      if (result === undefined) return
      const id = req.method === 'session/fork' ? str(result['sessionId']) : req.sessionId
      const model = modelIdOf(result)
      if (id !== undefined && model !== undefined) session(s, id).model = model
      return
    }
    default:
      return
  }
}

/** `true` when `msg` is a `usage_update` of the session of the turn whose response was the previous message. */
const isTrailingUsage = (s: AcpState, msg: Obj): boolean => {
  const closing = turnOf(s, s.closing)
  if (closing === undefined || msg['method'] !== 'session/update') return false
  const params = msg['params']
  return isObject(params) && params['sessionId'] === closing.sessionId && isObject(params['update']) && params['update']['sessionUpdate'] === 'usage_update'
}

/** Not JSON: what {@link plainCopy} returns for a value that has no JSON text. */
const NOT_PLAIN: unique symbol = Symbol('not plain JSON')

/**
 * A live object as the JSON value its text would be (so the state stays plain JSON, and getters, cycles or
 * exotic objects never reach the reader), or {@link NOT_PLAIN} when it has none.
 */
const plainCopy = (v: unknown): unknown => {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return v
  try {
    const text = JSON.stringify(v)
    return text === undefined ? NOT_PLAIN : (JSON.parse(text) as unknown)
  } catch {
    return NOT_PLAIN
  }
}

/**
 * Translates one record: a parsed JSON line (`line` its number), or a live object (`line` undefined: read as
 * its JSON text). Never throws.
 * @internal
 */
export const acpRecord = (s: AcpState, value: unknown, line: number | undefined, emit: Emit): void => {
  const v = line === undefined ? plainCopy(value) : value
  if (v === NOT_PLAIN) {
    flushClosing(s, emit)
    note(s, undefined, line, 'skipped a record that has no JSON text')
    return
  }
  try {
    const env = unwrap(v)
    if (env === undefined) {
      flushClosing(s, emit)
      note(s, undefined, line, 'skipped a line that is not a JSON-RPC message')
      return
    }
    const { msg, dir, time } = env
    if (!isTrailingUsage(s, msg)) flushClosing(s, emit)
    const method = msg['method']
    if (typeof method === 'string') {
      const key = idKey(msg['id'])
      if (key !== undefined && method !== 'session/update' && method !== 'session/cancel') onRequest(s, msg, method, key, dir, line, time, emit)
      else onNotification(s, msg, method, line, time)
    } else {
      onResponse(s, msg, idKey(msg['id']), dir, line, time)
    }
  } catch {
    // only a value that did not come from JSON text can throw while read (a getter); it is skipped
    note(s, undefined, line, 'skipped a record that could not be read')
  }
}

/** A line that is not JSON: a diagnostic of the next turn emitted. @internal */
export const acpText = (s: AcpState, line: number | undefined, unterminated: boolean, emit: Emit): void => {
  flushClosing(s, emit)
  note(s, undefined, line, unterminated ? 'skipped the last line: it was cut off and is not valid JSON' : 'skipped a line that is not valid JSON')
}

/**
 * The input ended: the answered turn, then every turn still open (in start order, each suspended, stopped or
 * unfinished). Lobby diagnostics left over go to the fold: with no run at all they make the one unfinished run;
 * after runs, the fold gives them to the last run (replay) or to the notes (live).
 * @internal
 */
export const acpEnd = (s: AcpState, emit: Emit): void => {
  flushClosing(s, emit)
  for (const k of Object.keys(s.turns)) {
    const turn = s.turns[k] as AcpTurn
    if (!turn.closed) abandon(turn)
    finalize(s, Number(k.slice(1)), emit)
  }
  const lobby = s.lobby
  s.lobby = emptyNotes()
  emitNotes(emit, null, lobby)
  emitDropped(emit, null, lobby.dropped)
}

/**
 * The input failed while being read: the turns whose `session/prompt` response arrived are over (the one waiting
 * for a trailing `usage_update` too); a turn still open is left open, its end unknown.
 * @internal
 */
export const acpFailed = (s: AcpState, emit: Emit): void => {
  flushClosing(s, emit)
  for (const k of Object.keys(s.turns)) if ((s.turns[k] as AcpTurn).closed) finalize(s, Number(k.slice(1)), emit)
}
