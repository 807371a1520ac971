/**
 * The reader of Codex rollouts: the session files `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl` (also
 * `archived_sessions/`, and gzipped copies), one `{timestamp, type, payload}` record per line with `type`
 * `session_meta`, `response_item`, `event_msg`, `turn_context`, `compacted` or `world_state`
 * (`codex-rs` `RolloutItem`; field names as in `shared/reference/formats.md` §C2).
 *
 * Runs: each `event_msg.user_message` starts a run (the `response_item` user messages also carry
 * `<environment_context>` / `<user_instructions>` records, which are not prompts, so they are not used). A
 * `task_started` (alias `turn_started`) joins the run its prompt opened when no work was recorded in between
 * (newer builds write it just before or just after the `user_message`), and otherwise starts a run of its own.
 * Records after a turn's ending and before the next prompt (late tool outputs, token counts) belong to the
 * ended run, so a run is handed out when the next run starts or at the end of the input. Live (`watch`), a run
 * whose turn has ended is also handed out when the input goes quiet ({@link RolloutReader.quiet}); a record
 * that still arrives for it before the next prompt is reported through `note` (a late token count with its
 * number of tokens, which are then in no printed run: the printed run cannot change, and the next run did not
 * spend them).
 *
 * Ending rules, in order:
 * - `task_complete` (alias `turn_complete`) → `answered`, or `failed` `error` when it carries an `error`
 *   (newer builds); `finishReason` is the record type as written; the response is its `last_agent_message`,
 *   else the last agent message of the run; its `duration_ms` is the run's duration.
 * - `turn_aborted.reason`: `interrupted` → `stopped` by `caller`; `replaced` (a new prompt replaced the running
 *   turn) → `stopped` by `caller`, reason `replaced`; `review_ended` (the host left review mode, which ends the
 *   review sub-turn) → `stopped` by `caller`, reason `review_ended`; `budget_limited` → `limit` `budget`; any
 *   other string → `failed` `unrecognized` with the raw string (K14); a missing reason → `failed`
 *   `unrecognized`. `finishReason` is the reason string (or `turn_aborted` when it has none).
 * - A second ending for the same turn is a diagnostic; the first one stands (K7).
 * - No task event (0.40 rollouts persist none): the ending is read from the run's last records and marked
 *   `inferred`: an agent message (`event_msg.agent_message`, an assistant `message` item, an `AgentMessage`
 *   `item_completed`) after the last tool call or output → `answered`, but only in a session that has shown no
 *   `task_started` / `task_complete` (a build that writes them and wrote none for this turn was cut off: the
 *   turn is `unfinished` however its last words read; `turn_aborted` alone says nothing, 2025 builds wrote only
 *   that one); an `event_msg.error` as the last word →
 *   `failed` `error` with `phase: 'stream'` (K1); anything else (a tool call, a tool output, reasoning, nothing
 *   after the prompt) → `unfinished` with that record's type. Tool outputs with a non-zero exit code are tool
 *   failures, not endings; `stream_error` (a retry) is not an ending either.
 *
 * Usage and cost: `token_count.info.total_token_usage` is a running total of the session. Each change of it
 * is one model response: its difference from the previous total is added to the run it falls in (one priced
 * item without cost, under the model of the latest `turn_context`), so a run's usage is its last total minus
 * the last total before it started, and the runs of a log add up exactly to its final total (SPEC §3, K11).
 * A total that goes down (a restarted counter) is a diagnostic and counts from zero. `last_token_usage` is
 * not used. Codex reports no cost: `cost.totalUsd` is null and `missing` counts the responses.
 *
 * `sessionId` is the first `session_meta.payload.id`. `turns` is 1 for a run with a prompt or a task start.
 * `toolCalls` counts `function_call`, `custom_tool_call`, `local_shell_call`, `web_search_call`,
 * `tool_search_call` and `image_generation_call` response items.
 *
 * @module
 */
import type { RunEnding } from '../../core/RunEnding.js'
import { addDiagnostic, addUsage, touch, type RunResult } from '../../core/RunResult.js'
import { count, isObject, short, type Obj } from '../json.js'
import { DraftHolder, isZero, looksIsoTime, minus, notBelow, readTokens, toBuckets, unfinishedAfter, type CodexTokens } from './shared.js'

const TOOL_CALLS = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
  'tool_search_call',
  'image_generation_call',
])
const TOOL_OUTPUTS = new Set(['function_call_output', 'custom_tool_call_output', 'tool_search_output'])
const TOOL_END_EVENTS = new Set(['exec_command_end', 'patch_apply_end', 'mcp_tool_call_end', 'web_search_end'])
const PAYLOAD_TYPES = new Set(['session_meta', 'response_item', 'event_msg', 'turn_context', 'compacted', 'world_state'])

/** What the last significant record of a run was (for the inferred ending). */
type Last = 'none' | 'message' | 'tool' | 'reasoning' | 'error'

interface Decision {
  readonly ending: RunEnding
  readonly finishReason: string
  readonly response: string | null
  readonly durationMs: number | null
}

/** The ending of a `turn_aborted` reason (see the module doc). @internal */
export const abortedEnding = (reason: string): RunEnding => {
  switch (reason) {
    case 'interrupted':
      return { kind: 'stopped', by: 'caller', reason: 'interrupted' }
    case 'replaced':
      return { kind: 'stopped', by: 'caller', reason: 'replaced' }
    case 'review_ended':
      return { kind: 'stopped', by: 'caller', reason: 'review_ended' }
    case 'budget_limited':
      return { kind: 'limit', reason: 'budget' }
    default:
      return { kind: 'failed', reason: 'unrecognized', raw: reason }
  }
}

/** The text of an assistant `message` item: its `output_text` parts joined. */
const messageText = (content: unknown): string | null => {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return null
  let text: string | null = null
  for (const part of content) {
    if (isObject(part) && (part['type'] === 'output_text' || part['type'] === 'text') && typeof part['text'] === 'string') {
      text = text === null ? part['text'] : text + part['text']
    }
  }
  return text
}

/**
 * A stateful reader of one rollout: feed parsed records with {@link RolloutReader.record}, then call
 * {@link RolloutReader.end}. Never throws on any input value.
 * @since 0.1.0
 */
export class RolloutReader extends DraftHolder {
  private model: string | null = null
  private prevTotal: CodexTokens | null = null
  // The open run.
  private hasPrompt = false
  private hasTask = false
  /**
   * The session has shown `task_started` / `task_complete` (or their `turn_` aliases): its build persists them,
   * so a turn without its `task_complete` did not complete. `turn_aborted` does not count: 2025 builds wrote it
   * without the others (shared/corpus codex-rollout).
   */
  private writesTaskEvents = false
  private activity = false
  private decided: Decision | null = null
  private last: Last = 'none'
  private lastKind: string | undefined
  private lastError: { message: string; code?: string } | null = null
  private lastAgent: string | null = null
  /** Live: the ended run was handed out early (the input went quiet) and no new run has started since. */
  private handedOut = false
  private lateNoted = false

  /**
   * Live streams only: the input has gone quiet. A run whose turn has ended (`task_complete`, `turn_aborted`)
   * is handed out now instead of at the next prompt. A run without its ending record is kept: quiet is not an
   * ending (a model can think for minutes), and a 0.40 rollout's inferred ending needs the next prompt.
   */
  quiet(): void {
    if (this.live === null || this.decided === null) return
    this.flush()
    this.handedOut = true
    this.lateNoted = false
  }

  /**
   * Live, after an early hand-out: a record that would have joined the handed-out run in a replay. The next
   * turn's own records (its prompt, task start, turn context, world state, the environment-context user item)
   * pass through to the next run. A late token count is not added to any run (the printed run cannot change,
   * and the next run did not spend it): its tokens are named in a note and the running total moves on, so the
   * next run's usage is its own. Other late records are noted once. Returns `true` when the record was dealt with.
   */
  private lateRecord(type: string, payload: unknown, line: number): boolean {
    const t = isObject(payload) ? payload['type'] : undefined
    if (type === 'event_msg' && (t === 'user_message' || t === 'task_started' || t === 'turn_started')) {
      this.handedOut = false
      return false
    }
    if (type === 'session_meta' || type === 'turn_context' || type === 'world_state') return false
    if (type === 'response_item' && isObject(payload) && t === 'message' && payload['role'] === 'user') return false
    if (type === 'event_msg' && isObject(payload)) {
      if (t === 'token_count') {
        const tokens = this.tokenCount(payload['info'], line, false)
        if (tokens > 0) this.noteLive(line, `a token count of ${tokens} tokens came after run ${this.emitted} was handed out (the input had paused); they are in no printed run`)
        return true
      }
      // the build writes task events even if this one is late: a later turn without task_complete is cut off
      if (t === 'task_complete' || t === 'turn_complete') this.writesTaskEvents = true
    }
    if (!this.lateNoted) {
      this.lateNoted = true
      this.noteLive(line, `records after the ending of run ${this.emitted} came after it was handed out (the input had paused); they are not in it`)
    }
    return true
  }

  /** Live, after an early hand-out, a line that is not a record (not JSON, no type) is noted, not kept for the next run. */
  override diagnostic(line: number, message: string): void {
    if (this.handedOut) this.noteLive(line, message)
    else super.diagnostic(line, message)
  }

  protected typedRecord(v: Obj, type: string, line: number): void {
    if (!PAYLOAD_TYPES.has(type)) {
      touch(this.draft, line)
      return
    }
    const payload = v['payload']
    if (this.handedOut && this.lateRecord(type, payload, line)) return
    const ts = v['timestamp']
    const time = looksIsoTime(ts) ? ts : undefined
    if (!isObject(payload)) {
      touch(this.draft, line, time)
      addDiagnostic(this.draft, line, `skipped a line of type ${type} whose payload is not an object`)
      return
    }
    switch (type) {
      case 'event_msg':
        this.event(payload, line, time)
        return
      case 'response_item':
        touch(this.draft, line, time)
        this.responseItem(payload)
        return
      case 'session_meta': {
        touch(this.draft, line, time)
        const id = payload['id']
        if (this.sessionId === null && typeof id === 'string') this.sessionId = id
        return
      }
      case 'turn_context': {
        touch(this.draft, line, time)
        const m = payload['model']
        if (typeof m === 'string') this.model = m
        return
      }
      default:
        touch(this.draft, line, time)
        return
    }
  }

  /** The input ended: hands out the open run (or one `unfinished` run when the input held none). */
  end(): void {
    if (this.hasContent() || this.emitted === 0) this.flush()
  }

  /** The open run as it stands (for live status lines), `unfinished` until it ends; `undefined` when none is open. */
  snapshot(): RunResult | undefined {
    if (!this.hasContent() || this.decided !== null) return undefined
    return this.unfinishedSnapshot(this.lastKind)
  }

  private hasContent(): boolean {
    return this.hasPrompt || this.hasTask || this.activity || this.decided !== null
  }

  private mark(last: Last, kind: string): void {
    this.activity = true
    this.last = last
    this.lastKind = kind
  }

  private responseItem(p: Record<string, unknown>): void {
    const t = p['type']
    if (typeof t !== 'string') return
    if (t === 'message') {
      if (p['role'] !== 'assistant') return
      const text = messageText(p['content'])
      if (text !== null) this.lastAgent = text
      this.mark('message', t)
    } else if (TOOL_CALLS.has(t)) {
      this.draft.toolCalls++
      this.mark('tool', t)
    } else if (TOOL_OUTPUTS.has(t)) {
      this.mark('tool', t)
    } else if (t === 'reasoning') {
      this.mark('reasoning', t)
    }
  }

  private event(p: Record<string, unknown>, line: number, time: string | undefined): void {
    const t = p['type']
    if (typeof t !== 'string') {
      touch(this.draft, line, time)
      addDiagnostic(this.draft, line, 'skipped an event_msg whose payload has no string type')
      return
    }
    switch (t) {
      case 'user_message':
      case 'task_started':
      case 'turn_started':
        if (t !== 'user_message') this.writesTaskEvents = true
        this.start(t === 'user_message', t, line, time)
        return
      case 'task_complete':
      case 'turn_complete':
      case 'turn_aborted':
        // 2025 builds persisted turn_aborted but neither task_started nor task_complete: it proves nothing
        if (t !== 'turn_aborted') this.writesTaskEvents = true
        touch(this.draft, line, time)
        this.terminal(t, p, line)
        return
      default:
        break
    }
    touch(this.draft, line, time)
    switch (t) {
      case 'token_count':
        this.tokenCount(p['info'], line)
        return
      case 'agent_message': {
        const m = p['message']
        if (typeof m === 'string') this.lastAgent = m
        else addDiagnostic(this.draft, line, 'agent_message without a string message')
        this.mark('message', t)
        return
      }
      case 'agent_reasoning':
        this.mark('reasoning', t)
        return
      case 'error': {
        if (this.decided !== null) {
          addDiagnostic(this.draft, line, 'an error event came after the turn had ended; the ending stands')
          return
        }
        const m = p['message']
        const info = p['codex_error_info']
        const code = typeof info === 'string' ? info : isObject(info) ? Object.keys(info)[0] : undefined
        this.lastError = {
          message: typeof m === 'string' ? m : 'error',
          ...(code !== undefined ? { code: short(code) } : {}),
        }
        this.mark('error', t)
        return
      }
      case 'item_completed': {
        const item = p['item']
        if (isObject(item) && item['type'] === 'AgentMessage') {
          const text = messageText(item['content'])
          if (text !== null) this.lastAgent = text
          this.mark('message', t)
        }
        return
      }
      default:
        if (TOOL_END_EVENTS.has(t)) this.mark('tool', t)
        return
    }
  }

  private start(prompt: boolean, kind: string, line: number, time: string | undefined): void {
    const joins = this.decided === null && !this.activity && (prompt ? !this.hasPrompt : !this.hasTask)
    if (!joins) this.flush()
    touch(this.draft, line, time)
    if (!this.hasPrompt && !this.hasTask) this.draft.turns++
    if (prompt) this.hasPrompt = true
    else this.hasTask = true
    this.lastKind = kind
  }

  private terminal(t: string, p: Record<string, unknown>, line: number): void {
    if (this.decided !== null) {
      addDiagnostic(this.draft, line, `ignored a ${t} event after the turn had ended; the first ending stands`)
      return
    }
    const d = p['duration_ms']
    const durationMs = count(d) ?? null
    if (t === 'turn_aborted') {
      const reason = p['reason']
      if (typeof reason !== 'string') {
        addDiagnostic(this.draft, line, 'turn_aborted without a string reason')
        this.decided = { ending: { kind: 'failed', reason: 'unrecognized' }, finishReason: t, response: null, durationMs }
      } else {
        this.decided = { ending: abortedEnding(reason), finishReason: reason, response: null, durationMs }
      }
      return
    }
    const last = p['last_agent_message']
    const response = typeof last === 'string' ? last : this.lastAgent
    const err = p['error']
    let ending: RunEnding = { kind: 'answered' }
    if (err !== undefined && err !== null) {
      let message = 'task failed'
      let code: string | undefined
      if (typeof err === 'string') message = err
      else if (isObject(err)) {
        if (typeof err['message'] === 'string') message = err['message']
        const info = err['codex_error_info']
        if (typeof info === 'string') code = short(info)
        else if (isObject(info)) {
          const k = Object.keys(info)[0]
          if (k !== undefined) code = short(k)
        }
      } else addDiagnostic(this.draft, line, `${t} with an error that is neither text nor an object`)
      ending = { kind: 'failed', reason: 'error', error: code !== undefined ? { message, code } : { message } }
    }
    this.decided = { ending, finishReason: t, response, durationMs }
  }

  /**
   * Moves the running total on to this `token_count` and adds the difference to the open run (unless `add` is
   * false: a late count after a live hand-out). Returns the difference in tokens (input + output).
   */
  private tokenCount(info: unknown, line: number, add = true): number {
    const problem = (message: string): number => {
      if (add) addDiagnostic(this.draft, line, message)
      else this.noteLive(line, message)
      return 0
    }
    if (info === undefined || info === null) return 0
    if (!isObject(info)) return problem('skipped a token_count whose info is not an object')
    const total = readTokens(info['total_token_usage'])
    if (total === undefined) return problem('skipped a token_count without a total_token_usage of token counts')
    const prev = this.prevTotal
    let delta = total
    if (prev !== null) {
      if (notBelow(prev, total)) delta = minus(total, prev)
      else problem('the running token total went down; counted it as a new total from zero')
    }
    this.prevTotal = total
    if (isZero(delta)) return 0
    if (add) addUsage(this.draft, this.model, toBuckets(delta), undefined, line)
    return delta.input + delta.output
  }

  private flush(): void {
    let ending: RunEnding
    let finishReason: string | null = null
    let response: string | null = null
    let durationMs: number | null = null
    let inferred = false
    if (this.decided !== null) {
      ;({ ending, finishReason, response, durationMs } = this.decided)
    } else {
      inferred = true
      // a build that writes task events wrote none for this turn: it did not complete, whatever its last words
      if (this.last === 'message' && !this.writesTaskEvents) {
        ending = { kind: 'answered' }
        response = this.lastAgent
      } else if (this.last === 'error' && this.lastError !== null) {
        ending = { kind: 'failed', reason: 'error', phase: 'stream', error: this.lastError }
      } else {
        ending = unfinishedAfter(this.lastKind)
      }
    }
    this.handOut(ending, finishReason, response, inferred, durationMs)
    this.hasPrompt = false
    this.hasTask = false
    this.activity = false
    this.decided = null
    this.last = 'none'
    this.lastKind = undefined
    this.lastError = null
    this.lastAgent = null
  }
}
