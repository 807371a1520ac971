/**
 * `--format acp`: Agent Client Protocol (Zed's ACP, protocol version 1) traffic as JSONL, one JSON-RPC 2.0
 * message per line, both directions (client→agent and agent→client), as a proxy or a debug log captures it.
 *
 * **Line shapes.** A bare JSON-RPC message (`{jsonrpc, id?, method?, params?, result?, error?}`), or a capture
 * wrapper holding it under `message` or `msg`, with an optional direction (`direction` or `dir`, any two
 * values, e.g. `incoming`/`outgoing`, `>>>`/`<<<`, `client_to_agent`/`agent_to_client`) and time (`timestamp`, `ts` or `time`:
 * ISO-8601 text, or epoch milliseconds). Both wrapper spellings are written by real ACP debug loggers
 * (`{ts, dir, msg}`; `{timestamp, direction, message}`). The direction, when present, only serves to pair a
 * response with its request (a response travels the other way); without it, responses are paired by `id`,
 * the shape of the result, and nesting (the most recent open request with that id).
 *
 * **Runs.** Each `session/prompt` request (keyed by its JSON-RPC `id` and `params.sessionId`) starts a run;
 * its response ends it. `session/update` notifications of that session, `session/request_permission`
 * requests and `session/cancel` feed the open run of their `sessionId`. Updates for a session with no open
 * prompt (for example the history replayed by `session/load`) make no run. A run is emitted when its response
 * arrives (a `usage_update` of the same session on the very next line still counts for it), or at the end of
 * the input. Requests and notifications the reader does not know are ignored; non-JSON lines and lines that
 * are not JSON-RPC are diagnostics. Never a `ProtocolError`.
 *
 * **Ending rules** (SPEC §2, formats.md §C4; `finishReason` is `result.stopReason` as written):
 * - `end_turn` → `answered`; `max_tokens` → `cut_off` `max_tokens`; `max_turn_requests` → `limit`
 *   `max_turn_requests`; `refusal` → `cut_off` `refusal`; `cancelled` → `stopped` by `caller`; any other
 *   string → `failed` `unrecognized`, the string kept in `raw` and `finishReason`.
 * - A JSON-RPC error response → `failed` `error` with `error: {message, code}`; but after the client sent
 *   `session/cancel` for the session, an error response is the caller's cancellation (`stopped` by `caller`,
 *   bug kind K8: agents are told to answer `cancelled`, some let the abort surface as an error).
 * - No response when the input ends (or when the next prompt of the same session starts): `suspended` when a
 *   `session/request_permission` of the run is still unanswered (`pending: [{id: toolCall.toolCallId, kind:
 *   'approval', toolName: toolCall.title (else the title of the earlier tool_call, else its kind), arguments:
 *   toolCall.rawInput}]`, `inferred: true`); `stopped` by `caller` when a `session/cancel` was sent and never
 *   answered (`inferred: true`); `unfinished` otherwise (`lastEventType` the last method or `sessionUpdate`).
 * - A permission answered `{outcome: 'selected', optionId}` with an option of kind `reject_once` /
 *   `reject_always` is a permission denial of the run; an answered permission is no longer pending.
 *
 * **Response and counts.** `response` is the concatenated text of the run's `agent_message_chunk` updates
 * (text content blocks only; `null` when there were none). `toolCalls` counts distinct `toolCallId`s of `tool_call` updates. `turns` is 1
 * per prompt.
 *
 * **Usage** comes from the (unstable) `PromptResponse.usage`
 * `{inputTokens, outputTokens, totalTokens, thoughtTokens?, cachedReadTokens?, cachedWriteTokens?}` and is read
 * as this prompt turn's usage (the field sits on one prompt's response; the schema's descriptions say
 * "across all turns", but the End-Turn Token Usage RFD leaves per-turn vs cumulative open and the adapters in
 * use report the turn). The schema defines `totalTokens` as the sum of all token types, so the categories are
 * read as disjoint: `inputTokens` excludes cache reads and `thoughtTokens` are apart from `outputTokens`
 * (added to output, and repeated as `reasoningTokens`). When `totalTokens` instead matches another split
 * (thought inside output: `input + output + cacheRead + cacheWrite`; cache reads inside input:
 * `input + output (+ cacheWrite) (+ thought)`), that split is used; a total matching none is read the schema
 * way with a diagnostic.
 *
 * **Cost** comes from `usage_update.cost {amount, currency}`, the session's cumulative cost: a run's cost is the
 * latest USD amount seen during the run minus the amount before it started (0 for a session created by
 * `session/new` in this log). It is missing (never zero) when the run saw no USD cost, when the amount is in
 * another currency, or when the session's earlier cost is unknown (a session loaded, resumed or forked, or
 * begun before the log, with no earlier `usage_update`). Each prompt turn is one priced item; the model is the
 * session's `models.currentModelId` (from `session/new`/`load`/`resume`/`fork`) or `session/set_model`.
 *
 * @module
 */
import { acpEndingFromEither } from '../vocabularies/acp.js'
import * as E from 'fp-ts/lib/Either.js'
import type { PendingItem, RunEnding } from '../core/RunEnding.js'
import {
  addDiagnostic,
  addUsage,
  finishRun,
  newDraft,
  touch,
  type RunDraft,
  type RunResult,
  type UsageInput,
} from '../core/RunResult.js'
import { NOT_JSON, count, isObject, parseJson, short, str, type Obj } from './json.js'
import type { FormatModule, LineReader, ReaderFactory, ReaderOptions } from './types.js'

const FORMAT = 'acp'

/** Open requests without a response kept for pairing; past this, the oldest ones the reader does not need are dropped. */
const MAX_PENDING_REQUESTS = 10_000

/** A message unwrapped from its capture line. */
interface Envelope {
  readonly msg: Obj
  readonly dir: string | null
  readonly time: string | number | undefined
}

const isJsonRpcShaped = (v: Obj): boolean =>
  v['jsonrpc'] !== undefined || typeof v['method'] === 'string' || ('id' in v && ('result' in v || 'error' in v))

const timeOf = (v: Obj): string | number | undefined => {
  const t = v['timestamp'] ?? v['ts'] ?? v['time']
  if (typeof t === 'string') return t
  if (typeof t === 'number' && Number.isFinite(t) && t > 1e11) return t
  return undefined
}

const dirOf = (v: Obj): string | null => str(v['direction']) ?? str(v['dir']) ?? null

/** The JSON-RPC message of a line, bare or wrapped, or `undefined` when the line holds none. */
const unwrap = (v: unknown): Envelope | undefined => {
  if (!isObject(v)) return undefined
  const inner = isObject(v['message']) ? v['message'] : isObject(v['msg']) ? v['msg'] : undefined
  if (inner !== undefined && isJsonRpcShaped(inner)) return { msg: inner, dir: dirOf(v), time: timeOf(v) }
  if (isJsonRpcShaped(v)) return { msg: v, dir: dirOf(v), time: timeOf(v) }
  return undefined
}

/** The key of a JSON-RPC id (numbers and strings never collide), or `undefined` for an invalid id. */
const idKey = (id: unknown): string | undefined => {
  if (typeof id === 'number' && Number.isFinite(id)) return `n${id}`
  if (typeof id === 'string') return `s${id}`
  return undefined
}

/** A permission request of a run, still unanswered. */
interface Permission {
  readonly item: PendingItem
  /** Option ids whose kind is `reject_once` / `reject_always`. */
  readonly rejectOptions: ReadonlySet<string>
}

/** One prompt turn being read. */
interface Run {
  readonly sessionId: string
  readonly draft: RunDraft
  text: string
  readonly tools: Map<string, { title: string | undefined; kind: string | undefined }>
  readonly permissions: Map<number, Permission>
  cancelRequested: boolean
  readonly costBase: number | null
  costLast: number | null
  costOtherCurrency: boolean
  usage: UsageInput | undefined
  lastType: string | undefined
  ending: RunEnding | undefined
  finishReason: string | null
  inferred: boolean
  closed: boolean
}

/** What the reader knows of one ACP session. */
interface Session {
  /** Created by `session/new` in this log: its cost before the first prompt is 0. */
  fresh: boolean
  /** The latest cumulative USD cost seen, or `null`. */
  costUsd: number | null
  model: string | null
  open: Run | null
}

/** An open request, awaiting its response. */
interface PendingRequest {
  readonly method: string
  readonly dir: string | null
  readonly run?: Run
  readonly permissionSeq?: number
  readonly sessionId?: string
}

/**
 * The `RunEnding` of an ACP `StopReason` string (`end_turn`, `max_tokens`, `max_turn_requests`, `refusal`,
 * `cancelled`); any other string is `failed` `unrecognized` with the string in `raw` (SPEC §2 rule 3). The
 * table is the `acp` vocabulary's (SPEC §5), so reading a log and converting a value agree.
 * @since 0.1.0
 */
export const endingOfStopReason = (stopReason: string): RunEnding => {
  const r = acpEndingFromEither(stopReason)
  return E.isRight(r) ? r.right : { kind: 'failed', reason: 'unrecognized', raw: stopReason }
}

/**
 * Disjoint usage buckets from an ACP `PromptResponse.usage` object (tokens), or `undefined` when
 * `inputTokens` / `outputTokens` are not non-negative numbers. `note` receives a fixed message when
 * `totalTokens` matches no known split. See the module doc for the reading of the buckets.
 * @since 0.1.0
 */
export const acpUsageBuckets = (u: Obj, note?: (message: string) => void): UsageInput | undefined => {
  const input = count(u['inputTokens'])
  const output = count(u['outputTokens'])
  if (input === undefined || output === undefined) return undefined
  const thought = count(u['thoughtTokens']) ?? 0
  const cr = count(u['cachedReadTokens']) ?? 0
  const cw = count(u['cachedWriteTokens']) ?? 0
  const total = count(u['totalTokens'])
  const disjoint: UsageInput = { inputTokens: input, cacheReadTokens: cr, cacheWriteTokens: cw, outputTokens: output + thought, reasoningTokens: thought }
  if (total === undefined || total === input + output + thought + cr + cw) return disjoint
  if (total === input + output + cr + cw && thought <= output) {
    return { inputTokens: input, cacheReadTokens: cr, cacheWriteTokens: cw, outputTokens: output, reasoningTokens: thought }
  }
  if (cr <= input && thought <= output && (total === input + output + cw || total === input + output)) {
    return { inputTokens: input - cr, cacheReadTokens: cr, cacheWriteTokens: cw, outputTokens: output, reasoningTokens: thought }
  }
  if (cr <= input && (total === input + output + thought + cw || total === input + output + thought)) {
    return { inputTokens: input - cr, cacheReadTokens: cr, cacheWriteTokens: cw, outputTokens: output + thought, reasoningTokens: thought }
  }
  note?.('usage totalTokens matches no known split of its parts; read as disjoint buckets')
  return disjoint
}

const roundUsd = (x: number): number => Math.round(x * 1e12) / 1e12

const modelIdOf = (result: Obj): string | undefined => {
  const models = result['models']
  return isObject(models) ? str(models['currentModelId']) : undefined
}

/** `0.5 + 0.5 × share` of the sniffed objects that are ACP messages, 0 when none is. */
const sniffAcp = (values: ReadonlyArray<unknown>): number => {
  let objects = 0
  let hits = 0
  for (const v of values) {
    if (!isObject(v)) continue
    objects++
    const e = unwrap(v)
    if (e === undefined) continue
    const m = e.msg
    const method = m['method']
    if (typeof method === 'string') {
      if (method.startsWith('session/') || method.startsWith('fs/') || method.startsWith('terminal/')) hits++
      else if (method === 'initialize' && isObject(m['params']) && typeof m['params']['protocolVersion'] === 'number') hits++
      continue
    }
    const r = m['result']
    if (isObject(r) && (typeof r['stopReason'] === 'string' || isObject(r['agentCapabilities']) || typeof r['sessionId'] === 'string')) hits++
  }
  return objects === 0 || hits === 0 ? 0 : 0.5 + 0.5 * (hits / objects)
}

/**
 * Reads ACP JSON-RPC traffic (JSONL) and emits one `RunResult` per `session/prompt` (see the module doc).
 * Never returns a `ProtocolError`.
 * @since 0.1.0
 */
export const acpReader: ReaderFactory = (emit, options: ReaderOptions): LineReader => {
  const file = options.file ?? null
  const sessions = new Map<string, Session>()
  const pending = new Map<string, Array<PendingRequest>>()
  let pendingCount = 0
  let pendingOverflowNoted = false
  /** Runs in start order that have not been emitted. */
  const runs: Array<Run> = []
  /** The run whose response was the previous message: a trailing usage_update still counts for it. */
  let closing: Run | null = null
  /** Diagnostics of lines outside any run; they join the next run emitted. */
  let lobby = newDraft()
  let emitted = 0
  let permissionSeq = 0

  const session = (id: string): Session => {
    let s = sessions.get(id)
    if (s === undefined) {
      s = { fresh: false, costUsd: null, model: null, open: null }
      sessions.set(id, s)
    }
    return s
  }

  const note = (run: Run | undefined, line: number, message: string): void => addDiagnostic(run?.draft ?? lobby, line, message)

  const track = (key: string, req: PendingRequest, line: number): void => {
    const list = pending.get(key)
    if (list === undefined) pending.set(key, [req])
    else list.push(req)
    pendingCount++
    if (pendingCount <= MAX_PENDING_REQUESTS) return
    for (const [k, l] of pending) {
      const keep = l.filter((r) => r.run !== undefined)
      pendingCount -= l.length - keep.length
      if (keep.length === 0) pending.delete(k)
      else pending.set(k, keep)
      if (pendingCount <= MAX_PENDING_REQUESTS / 2) break
    }
    if (!pendingOverflowNoted) {
      pendingOverflowNoted = true
      addDiagnostic(lobby, line, `over ${MAX_PENDING_REQUESTS} requests without a response; dropped the oldest ones`)
    }
  }

  /** Takes the open request a response answers: other direction, preferred by result shape, else the most recent. */
  const take = (key: string, dir: string | null, msg: Obj): PendingRequest | undefined => {
    const list = pending.get(key)
    if (list === undefined) return undefined
    const result = msg['result']
    const want = !isObject(result)
      ? null
      : typeof result['stopReason'] === 'string'
        ? 'session/prompt'
        : isObject(result['outcome'])
          ? 'session/request_permission'
          : 'other'
    let chosen = -1
    for (let i = list.length - 1; i >= 0; i--) {
      const r = list[i] as PendingRequest
      if (dir !== null && r.dir !== null && r.dir === dir) continue
      if (chosen === -1) chosen = i
      if (want === null) break
      const isPrompt = r.method === 'session/prompt'
      const isPermission = r.method === 'session/request_permission'
      if ((want === 'session/prompt' && isPrompt) || (want === 'session/request_permission' && isPermission) || (want === 'other' && !isPrompt && !isPermission)) {
        chosen = i
        break
      }
    }
    if (chosen === -1) return undefined
    const [req] = list.splice(chosen, 1)
    pendingCount--
    if (list.length === 0) pending.delete(key)
    return req
  }

  const newRun = (sessionId: string, s: Session): Run => ({
    sessionId,
    draft: newDraft(),
    text: '',
    tools: new Map(),
    permissions: new Map(),
    cancelRequested: false,
    costBase: s.costUsd ?? (s.fresh ? 0 : null),
    costLast: null,
    costOtherCurrency: false,
    usage: undefined,
    lastType: undefined,
    ending: undefined,
    finishReason: null,
    inferred: false,
    closed: false,
  })

  /** Ends a run that got no response: suspended on an open permission, stopped on an unanswered cancel, else unfinished. */
  const abandon = (run: Run): void => {
    const open = [...run.permissions.values()].map((p) => p.item)
    if (open.length > 0) {
      run.ending = { kind: 'suspended', pending: open }
      run.inferred = true
    } else if (run.cancelRequested) {
      run.ending = { kind: 'stopped', by: 'caller' }
      run.inferred = true
    } else {
      run.ending = run.lastType !== undefined ? { kind: 'unfinished', lastEventType: short(run.lastType) } : { kind: 'unfinished' }
    }
    run.finishReason = null
    run.closed = true
  }

  /** Emits a closed run: its usage and cost as one priced item, the lobby's diagnostics, and `finishRun`. */
  const finalize = (run: Run): void => {
    const d = run.draft
    const s = sessions.get(run.sessionId)
    if (s !== undefined && s.open === run) s.open = null
    let cost: number | undefined
    if (run.costLast !== null) {
      if (run.costBase === null) addDiagnostic(d, undefined, 'cost is missing: the session cost before this run is unknown')
      else if (run.costLast < run.costBase) addDiagnostic(d, undefined, 'cost is missing: the session cost went down during the run')
      else cost = roundUsd(run.costLast - run.costBase)
    }
    if (run.costOtherCurrency) addDiagnostic(d, undefined, 'cost in a currency other than USD is not counted')
    addUsage(d, s?.model ?? null, run.usage ?? {}, cost)
    for (const x of lobby.diagnostics) addDiagnostic(d, x.line, x.message)
    d.diagnosticsDropped += lobby.diagnosticsDropped
    lobby = newDraft()
    run.tools.clear()
    run.permissions.clear()
    const ending = run.ending ?? { kind: 'unfinished' }
    const keepsText = ending.kind === 'answered' || ending.kind === 'cut_off'
    const i = runs.indexOf(run)
    if (i >= 0) runs.splice(i, 1)
    emitted++
    emit(
      finishRun(d, {
        format: FORMAT,
        sessionId: run.sessionId,
        ending,
        finishReason: run.finishReason,
        response: keepsText && run.text !== '' ? run.text : null,
        inferred: run.inferred,
        file,
      }),
    )
  }

  const flushClosing = (): void => {
    if (closing === null) return
    const run = closing
    closing = null
    finalize(run)
  }

  const closeWithResponse = (run: Run, msg: Obj, line: number): void => {
    const error = msg['error']
    if (error !== undefined) {
      if (run.cancelRequested) {
        run.ending = { kind: 'stopped', by: 'caller' }
      } else {
        const e = isObject(error) ? error : {}
        const code = e['code']
        run.ending = {
          kind: 'failed',
          reason: 'error',
          error: {
            message: str(e['message']) ?? (typeof error === 'string' ? error : 'error response without a message'),
            ...(typeof code === 'number' || typeof code === 'string' ? { code } : {}),
          },
        }
      }
      run.finishReason = null
    } else {
      const result = msg['result']
      const stopReason = isObject(result) ? result['stopReason'] : undefined
      if (typeof stopReason !== 'string') {
        note(run, line, 'skipped a session/prompt response without a string result.stopReason')
        return
      }
      run.ending = endingOfStopReason(stopReason)
      run.finishReason = stopReason
      const u = isObject(result) ? result['usage'] : undefined
      if (isObject(u)) {
        const b = acpUsageBuckets(u, (m) => note(run, line, m))
        if (b === undefined) note(run, line, 'ignored a usage object without numeric inputTokens and outputTokens')
        else run.usage = b
      } else if (u !== undefined && u !== null) {
        note(run, line, 'ignored a usage field that is not an object')
      }
    }
    run.closed = true
    closing = run
  }

  const onRequest = (msg: Obj, method: string, key: string, dir: string | null, line: number, time: string | number | undefined): void => {
    const params = isObject(msg['params']) ? msg['params'] : undefined
    const sessionId = params !== undefined ? str(params['sessionId']) : undefined
    const reqDir = dir
    switch (method) {
      case 'session/prompt': {
        if (sessionId === undefined) {
          note(undefined, line, 'skipped a session/prompt request without a string params.sessionId')
          track(key, { method: 'other', dir: reqDir }, line)
          return
        }
        const s = session(sessionId)
        if (s.open !== null) {
          const prev = s.open
          note(prev, line, 'a new session/prompt started before this one was answered')
          abandon(prev)
          finalize(prev)
        }
        const run = newRun(sessionId, s)
        run.draft.turns = 1
        run.draft.hasContent = true
        run.lastType = method
        touch(run.draft, line, time)
        s.open = run
        runs.push(run)
        track(key, { method, dir: reqDir, run }, line)
        return
      }
      case 'session/request_permission': {
        const run = sessionId !== undefined ? sessions.get(sessionId)?.open ?? undefined : undefined
        const toolCall = params !== undefined ? params['toolCall'] : undefined
        const toolCallId = isObject(toolCall) ? str(toolCall['toolCallId']) : undefined
        if (run === undefined || !isObject(toolCall) || toolCallId === undefined) {
          if (run !== undefined || sessionId === undefined) note(run, line, 'skipped a session/request_permission without a session prompt or a string toolCall.toolCallId')
          track(key, { method: 'other', dir: reqDir }, line)
          return
        }
        touch(run.draft, line, time)
        run.lastType = method
        const known = run.tools.get(toolCallId)
        const toolName = str(toolCall['title']) ?? known?.title ?? str(toolCall['kind']) ?? known?.kind
        const rawInput = toolCall['rawInput']
        const rejectOptions = new Set<string>()
        const options = params?.['options']
        if (Array.isArray(options)) {
          for (const o of options) {
            if (!isObject(o)) continue
            const id = str(o['optionId'])
            const kind = o['kind']
            if (id !== undefined && (kind === 'reject_once' || kind === 'reject_always')) rejectOptions.add(id)
          }
        }
        permissionSeq++
        run.permissions.set(permissionSeq, {
          item: {
            id: toolCallId,
            kind: 'approval',
            ...(toolName !== undefined ? { toolName } : {}),
            ...(rawInput !== undefined ? { arguments: rawInput } : {}),
          },
          rejectOptions,
        })
        track(key, { method, dir: reqDir, run, permissionSeq }, line)
        return
      }
      case 'session/set_model': {
        const modelId = params !== undefined ? str(params['modelId']) : undefined
        if (sessionId !== undefined && modelId !== undefined) session(sessionId).model = modelId
        track(key, { method, dir: reqDir }, line)
        return
      }
      case 'session/new':
      case 'session/load':
      case 'session/resume':
      case 'session/fork':
        track(key, { method, dir: reqDir, ...(sessionId !== undefined ? { sessionId } : {}) }, line)
        return
      default:
        track(key, { method: 'other', dir: reqDir }, line)
    }
  }

  const onNotification = (msg: Obj, method: string, line: number, time: string | number | undefined): void => {
    const params = isObject(msg['params']) ? msg['params'] : undefined
    const sessionId = params !== undefined ? str(params['sessionId']) : undefined
    if (method === 'session/cancel') {
      const run = sessionId !== undefined ? sessions.get(sessionId)?.open : undefined
      if (run !== undefined && run !== null) {
        run.cancelRequested = true
        run.lastType = method
        touch(run.draft, line, time)
      }
      return
    }
    if (method !== 'session/update') return
    const update = params !== undefined ? params['update'] : undefined
    const kind = isObject(update) ? update['sessionUpdate'] : undefined
    if (sessionId === undefined || !isObject(update) || typeof kind !== 'string') {
      note(undefined, line, 'skipped a session/update without a string sessionId and update.sessionUpdate')
      return
    }
    const s = session(sessionId)
    const run = s.open
    if (kind === 'usage_update') {
      const target = run ?? (closing !== null && closing.sessionId === sessionId ? closing : null)
      const cost = update['cost']
      if (isObject(cost)) {
        const amount = cost['amount']
        const currency = cost['currency']
        if (typeof amount !== 'number' || !Number.isFinite(amount) || typeof currency !== 'string') {
          note(target ?? undefined, line, 'ignored a usage_update cost without a numeric amount and a string currency')
        } else if (currency.toUpperCase() === 'USD') {
          s.costUsd = amount
          if (target !== null) target.costLast = amount
        } else if (target !== null) {
          target.costOtherCurrency = true
        }
      }
      if (target !== null) touch(target.draft, line, time)
      return
    }
    if (run === null) return
    touch(run.draft, line, time)
    run.lastType = kind
    switch (kind) {
      case 'agent_message_chunk': {
        const content = update['content']
        if (isObject(content) && content['type'] === 'text') {
          const text = content['text']
          if (typeof text === 'string') run.text += text
          else note(run, line, 'skipped an agent_message_chunk whose text is not a string')
        }
        return
      }
      case 'tool_call': {
        const id = str(update['toolCallId'])
        if (id === undefined) {
          note(run, line, 'skipped a tool_call without a string toolCallId')
          return
        }
        if (!run.tools.has(id)) run.draft.toolCalls++
        run.tools.set(id, { title: str(update['title']), kind: str(update['kind']) })
        return
      }
      case 'tool_call_update': {
        const id = str(update['toolCallId'])
        const known = id !== undefined ? run.tools.get(id) : undefined
        if (known !== undefined) {
          const title = str(update['title'])
          const k = str(update['kind'])
          if (title !== undefined) known.title = title
          if (k !== undefined) known.kind = k
        }
        return
      }
      default:
        return
    }
  }

  const onResponse = (msg: Obj, key: string | undefined, dir: string | null, line: number, time: string | number | undefined): void => {
    const req = key !== undefined ? take(key, dir, msg) : undefined
    if (req === undefined) {
      const r = msg['result']
      if (isObject(r) && typeof r['stopReason'] === 'string') note(undefined, line, 'skipped a session/prompt response whose request is not in the log')
      return
    }
    const result = isObject(msg['result']) ? msg['result'] : undefined
    switch (req.method) {
      case 'session/prompt': {
        const run = req.run
        if (run === undefined || run.closed) return
        touch(run.draft, line, time)
        closeWithResponse(run, msg, line)
        return
      }
      case 'session/request_permission': {
        const run = req.run
        if (run === undefined || run.closed || req.permissionSeq === undefined) return
        touch(run.draft, line, time)
        const p = run.permissions.get(req.permissionSeq)
        run.permissions.delete(req.permissionSeq)
        const outcome = result !== undefined ? result['outcome'] : undefined
        if (p !== undefined && isObject(outcome) && outcome['outcome'] === 'selected') {
          const optionId = str(outcome['optionId'])
          if (optionId !== undefined && p.rejectOptions.has(optionId)) {
            run.draft.permissionDenials.push({ toolName: p.item.toolName ?? 'unknown', toolCallId: p.item.id })
          }
        }
        return
      }
      case 'session/new': {
        const id = result !== undefined ? str(result['sessionId']) : undefined
        if (id === undefined) return
        const s = session(id)
        s.fresh = true
        const model = modelIdOf(result as Obj)
        if (model !== undefined) s.model = model
        return
      }
      case 'session/load':
      case 'session/resume':
      case 'session/fork': {
        if (result === undefined) return
        const id = req.method === 'session/fork' ? str(result['sessionId']) : req.sessionId
        const model = modelIdOf(result)
        if (id !== undefined && model !== undefined) session(id).model = model
        return
      }
      default:
        return
    }
  }

  return {
    line(text, lineNo, unterminated) {
      const value = parseJson(text)
      if (value === NOT_JSON) {
        flushClosing()
        note(undefined, lineNo, unterminated ? 'skipped the last line: it was cut off and is not valid JSON' : 'skipped a line that is not valid JSON')
        return undefined
      }
      const env = unwrap(value)
      if (env === undefined) {
        flushClosing()
        note(undefined, lineNo, 'skipped a line that is not a JSON-RPC message')
        return undefined
      }
      const { msg, dir, time } = env
      const method = msg['method']
      const trailingUsage =
        closing !== null &&
        method === 'session/update' &&
        isObject(msg['params']) &&
        msg['params']['sessionId'] === closing.sessionId &&
        isObject(msg['params']['update']) &&
        msg['params']['update']['sessionUpdate'] === 'usage_update'
      if (!trailingUsage) flushClosing()
      if (typeof method === 'string') {
        const key = idKey(msg['id'])
        if (key !== undefined && method !== 'session/update' && method !== 'session/cancel') onRequest(msg, method, key, dir, lineNo, time)
        else onNotification(msg, method, lineNo, time)
      } else {
        onResponse(msg, idKey(msg['id']), dir, lineNo, time)
      }
      return undefined
    },
    end() {
      flushClosing()
      for (const run of runs.slice()) {
        if (!run.closed) abandon(run)
        finalize(run)
      }
      if (emitted === 0) {
        emit(finishRun(lobby, { format: FORMAT, sessionId: null, ending: { kind: 'unfinished' }, finishReason: null, response: null, file }))
      }
    },
  }
}

/**
 * The `acp` format module: Agent Client Protocol JSON-RPC traffic, one message per line.
 * @since 0.1.0
 */
export const acpFormat: FormatModule = {
  name: FORMAT,
  description: 'Agent Client Protocol (ACP) JSON-RPC traffic, one message per line, bare or wrapped as {direction, message}',
  sniffLines: sniffAcp,
  reader: acpReader,
}
