/**
 * The reader of `codex exec --json` output: JSONL `ThreadEvent`s (`thread.started`, `turn.started`,
 * `turn.completed`, `turn.failed`, `item.started|updated|completed`, `error`), as written by
 * `codex-rs/exec/src/event_processor_with_jsonl_output.rs` and typed by `@openai/codex-sdk`.
 *
 * Ending rules (one run per turn):
 * - `turn.completed` → `answered`; `turn.failed` → `failed` `error` with `error.message` (the exec mapper already
 *   falls back to the last `error` event's message). `finishReason` is the terminal event's type.
 * - No terminal event (an interrupted turn emits none; a killed process neither): `failed` with `phase: 'stream'`
 *   when the last record is a top-level `error`, `suspended` (one pending `question`) when it is a
 *   `request_user_input`, else `unfinished` with the last record's type. Never `answered` (SPEC §2 rule 2, K1, K10).
 * - A second terminal record, or an `error`, after the turn ended does not change the ending: it is a diagnostic
 *   of that run (K7). A `turn.started` while a turn is still open ends the open one (unfinished).
 * - A run is handed out when the next turn starts (or a new thread, or an item without `turn.started`) or at the
 *   end of the input; `codex exec` exits right after its turn, so a live pipe sees it at once.
 *
 * Usage and cost: each `turn.completed.usage` is one priced item with no cost (Codex reports none:
 * `cost.totalUsd` null, `missing` 1 per turn). The exec mapper builds it from the thread's running total
 * (`ThreadTokenUsage.total`), so when a second `turn.completed` of the same thread has every count ≥ the
 * previous one's, it is read as a running total and this turn's usage is the difference; otherwise (some count
 * went down) it is taken as this turn's own usage. The first turn of a resumed thread may include earlier turns:
 * nothing in the stream tells them apart. Buckets are converted as in `toBuckets`.
 *
 * @module
 */
import type { RunEnding } from '../../core/RunEnding.js'
import { addDiagnostic, addUsage, touch, type RunResult } from '../../core/RunResult.js'
import { isObject, type Obj } from '../json.js'
import { DraftHolder, minus, notBelow, readTokens, toBuckets, unfinishedAfter, type CodexTokens } from './shared.js'

/** Item types that are tool calls (`toolCalls` counts their completed items, each id once). */
const TOOL_ITEMS = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'web_search', 'collab_tool_call'])

interface Decision {
  readonly ending: RunEnding
  readonly finishReason: string
}

/**
 * A stateful reader of one `codex exec --json` stream: feed parsed records with {@link ExecReader.record}, then
 * call {@link ExecReader.end}. Never throws on any input value.
 * @since 0.1.0
 */
export class ExecReader extends DraftHolder {
  private decided: Decision | null = null
  private content = false
  private lastAgent: string | null = null
  private readonly itemIds = new Set<string>()
  private lastType: string | undefined
  /** The message of the last record when that record was a top-level `error`. */
  private trailingError: string | null = null
  private pendingInput: string | null = null
  private prevUsage: CodexTokens | null = null

  /** Live mode: the run was handed out at its terminal record and no new turn has started since. */
  private liveEnded = false

  /** Live mode: a terminal or error record after the run was handed out is reported, never a new run. */
  private late(line: number, type: string): boolean {
    if (!this.liveEnded) return false
    this.noteLive(line, `ignored a ${type} record after the turn had ended; the first ending stands`)
    return true
  }

  protected typedRecord(v: Obj, type: string, line: number): void {
    switch (type) {
      case 'thread.started': {
        this.liveEnded = false
        if (this.decided !== null || this.content) this.flush()
        touch(this.draft, line)
        const id = v['thread_id']
        if (typeof id === 'string') {
          if (id !== this.sessionId) this.prevUsage = null
          this.sessionId = id
        } else addDiagnostic(this.draft, line, 'thread.started without a string thread_id')
        this.seen(type)
        return
      }
      case 'turn.started':
        this.liveEnded = false
        if (this.decided !== null || this.draft.turns > 0) this.flush()
        touch(this.draft, line)
        this.draft.turns++
        this.content = true
        this.seen(type)
        return
      case 'item.started':
      case 'item.updated':
      case 'item.completed':
        this.liveEnded = false
        this.item(v, type, line)
        return
      case 'turn.completed':
      case 'turn.failed':
        if (this.late(line, type)) return
        touch(this.draft, line)
        if (this.decided !== null) {
          addDiagnostic(this.draft, line, `ignored a ${type} record after the turn had ended; the first ending stands`)
          return
        }
        this.content = true
        if (type === 'turn.completed') this.completed(v, line)
        else this.failed(v, line)
        this.seen(type)
        if (this.live !== null) {
          this.flush()
          this.liveEnded = true
        }
        return
      case 'error': {
        if (this.late(line, type)) return
        touch(this.draft, line)
        const m = v['message']
        if (this.decided !== null) {
          addDiagnostic(this.draft, line, 'an error record came after the turn had ended; the ending stands')
          return
        }
        if (typeof m !== 'string') addDiagnostic(this.draft, line, 'error record without a string message')
        this.content = true
        this.seen(type)
        this.trailingError = typeof m === 'string' ? m : 'error'
        return
      }
      case 'request_user_input': {
        touch(this.draft, line)
        if (this.decided !== null) return
        this.content = true
        this.seen(type)
        const id = typeof v['call_id'] === 'string' ? v['call_id'] : typeof v['id'] === 'string' ? v['id'] : 'request_user_input'
        this.pendingInput = id
        return
      }
      default:
        // Unknown or unused event types (item.plan.delta, …) are ignored: the format grows.
        touch(this.draft, line)
        return
    }
  }

  /** The open run as it stands (for live status lines), `unfinished` until its turn ends; `undefined` when none is open. */
  snapshot(): RunResult | undefined {
    if (!this.content || this.decided !== null) return undefined
    return this.unfinishedSnapshot(this.lastType)
  }

  /** The input ended: hands out the open run (or one `unfinished` run when the input held none). */
  end(): void {
    if (this.liveEnded && !this.content) return
    if (this.decided !== null || this.content || this.emitted === 0) this.flush()
  }

  private seen(type: string): void {
    this.lastType = type
    this.trailingError = null
    this.pendingInput = null
  }

  private item(v: Record<string, unknown>, type: string, line: number): void {
    if (this.decided !== null) this.flush()
    touch(this.draft, line)
    const item = v['item']
    if (!isObject(item) || typeof item['type'] !== 'string') {
      addDiagnostic(this.draft, line, `skipped a ${type} record whose item is not an object with a string type`)
      return
    }
    this.content = true
    this.seen(type)
    if (type !== 'item.completed') return
    const itemType = item['type']
    if (itemType === 'agent_message') {
      const text = item['text']
      if (typeof text === 'string') this.lastAgent = text
      else addDiagnostic(this.draft, line, 'agent_message item without a string text')
    } else if (TOOL_ITEMS.has(itemType)) {
      const id = item['id']
      if (typeof id === 'string') {
        if (this.itemIds.has(id)) return
        this.itemIds.add(id)
      }
      this.draft.toolCalls++
    }
  }

  private completed(v: Record<string, unknown>, line: number): void {
    const raw = v['usage']
    if (raw !== undefined && raw !== null) {
      const usage = readTokens(raw)
      if (usage === undefined) {
        addDiagnostic(this.draft, line, 'skipped the usage of a turn.completed record: not an object of token counts')
      } else {
        const prev = this.prevUsage
        const turn = prev !== null && notBelow(prev, usage) ? minus(usage, prev) : usage
        this.prevUsage = usage
        addUsage(this.draft, null, toBuckets(turn), undefined, line)
      }
    }
    this.decided = { ending: { kind: 'answered' }, finishReason: 'turn.completed' }
  }

  private failed(v: Record<string, unknown>, line: number): void {
    const err = v['error']
    let message: string
    if (isObject(err) && typeof err['message'] === 'string') message = err['message']
    else {
      addDiagnostic(this.draft, line, 'turn.failed without an error object carrying a string message')
      message = this.trailingError ?? 'turn failed'
    }
    this.decided = { ending: { kind: 'failed', reason: 'error', error: { message } }, finishReason: 'turn.failed' }
  }

  private flush(): void {
    let ending: RunEnding
    let finishReason: string | null = null
    if (this.decided !== null) {
      ending = this.decided.ending
      finishReason = this.decided.finishReason
    } else if (this.trailingError !== null) {
      ending = { kind: 'failed', reason: 'error', phase: 'stream', error: { message: this.trailingError } }
    } else if (this.pendingInput !== null) {
      ending = { kind: 'suspended', pending: [{ id: this.pendingInput, kind: 'question' }] }
    } else {
      ending = unfinishedAfter(this.lastType)
    }
    this.handOut(ending, finishReason, this.lastAgent, false, null)
    this.decided = null
    this.content = false
    this.lastAgent = null
    this.itemIds.clear()
    this.lastType = undefined
    this.trailingError = null
    this.pendingInput = null
  }
}
