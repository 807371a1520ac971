/**
 * The Claude Code on-disk transcript reader (`~/.claude/projects/<project>/<session>.jsonl` and
 * `<session>/subagents/*.jsonl`). See `../claudeCode.ts` for the rules.
 *
 * @module
 * @internal
 */
import type { PendingItem, RunEnding } from '../../core/RunEnding.js'
import { finishRun, newDraft, setChildEnding, touch, type RunDraft, type RunResult } from '../../core/RunResult.js'
import { isObject, str, type Obj } from '../json.js'
import {
  INTERACTIVE_TOOLS,
  RecentSet,
  SYNTHETIC_MODEL,
  UsageLedger,
  addMessageUsage,
  apiErrorMessage,
  classifyUserText,
  cutOffReason,
  endingError,
  failedToolResult,
  joinText,
  ledgerFigures,
  messageOf,
  num,
  otherRecord,
  readAssistantBlocks,
  recordType,
  renameChild,
  timeOf,
  writeUsage,
  type UserTextKind,
} from './shared.js'

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
type LastFact =
  | { readonly k: 'none' }
  | { readonly k: 'prompt' }
  | { readonly k: 'text'; readonly stop: string | undefined }
  | { readonly k: 'tool_use'; readonly stop: string | undefined }
  | { readonly k: 'thinking' }
  | { readonly k: 'assistant' }
  | { readonly k: 'tool_result' }
  | { readonly k: 'interrupt' }
  | { readonly k: 'hook' }
  | { readonly k: 'api_error'; readonly message: string; readonly code: string | undefined }
  | { readonly k: 'limit'; readonly limit: number | undefined; readonly actual: number | undefined }

/** How to treat sidechain records: `auto` decides from the first user/assistant record. @internal */
export type SubagentMode = boolean | 'auto'

const userKind = (v: Obj, msg: Obj): UserTextKind | 'tool_result' => {
  if (v['isMeta'] === true || v['isCompactSummary'] === true || v['isVisibleInTranscriptOnly'] === true) return 'meta'
  const content = msg['content']
  if (typeof content === 'string') return classifyUserText(content)
  if (!Array.isArray(content)) return 'meta'
  let text: string | undefined
  let any = false
  for (const b of content) {
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

/**
 * Folds transcript records into runs: each real prompt starts a run; the ending is inferred from the run's last
 * root records when the next real prompt arrives or the input ends.
 * @internal
 */
export class TranscriptReader {
  private d: RunDraft
  private fact: LastFact = { k: 'none' }
  private sessionId: string | null = null
  private fileSession: string | null = null
  private ledger = new UsageLedger()
  private readonly rootIds = new RecentSet()
  private readonly tools = new RecentSet()
  private lastRootId: string | undefined = undefined
  private rootText: string | null = null
  private rootStop: string | undefined = undefined
  private pending: Array<PendingItem> = []
  private taskIds = new Set<string>()
  private mode: 'main' | 'sub' | null
  private emitted = 0

  constructor(
    private readonly emit: (r: RunResult) => void,
    private readonly file: string | null,
    initial: RunDraft,
    subagent: SubagentMode,
  ) {
    this.d = initial
    this.mode = subagent === true ? 'sub' : subagent === false ? 'main' : null
  }

  /** The draft that takes diagnostics for the current line. */
  get draft(): RunDraft {
    return this.d
  }

  private newRun(): void {
    this.d = newDraft()
    this.fact = { k: 'none' }
    this.sessionId = null
    this.ledger = new UsageLedger()
    this.rootIds.clear()
    this.tools.clear()
    this.lastRootId = undefined
    this.rootText = null
    this.rootStop = undefined
    this.pending = []
    this.taskIds = new Set()
  }

  /** Emits the open run when it has content, and starts a new one. */
  private boundary(): void {
    if (!this.d.hasContent) return
    this.emitted++
    this.emit(this.finish())
    this.newRun()
  }

  private decideMode(v: Obj): 'main' | 'sub' {
    if (this.mode !== null) return this.mode
    const side = v['isSidechain'] === true
    const subFile = this.file !== null && /[\\/]subagents[\\/][^\\/]+$/.test(this.file)
    this.mode = side && (typeof v['agentId'] === 'string' || subFile) ? 'sub' : 'main'
    return this.mode
  }

  /** Reads one parsed record (an object). */
  record(v: Obj, line: number | undefined): void {
    const type = recordType(this.d, v, line)
    if (type === undefined) return
    const sid = str(v['sessionId'])
    if (sid !== undefined && this.fileSession === null) this.fileSession = sid
    const time = timeOf(v['timestamp'])
    switch (type) {
      case 'user':
        this.user(v, line, time)
        return
      case 'assistant':
        this.assistant(v, line, time)
        return
      case 'attachment':
        touch(this.d, line, time)
        this.attachment(v)
        return
      default:
        otherRecord(this.d, line, time, type, TRANSCRIPT_TYPES)
    }
  }

  private attachment(v: Obj): void {
    const a = v['attachment']
    if (!isObject(a) || a['type'] !== 'max_turns_reached') return
    if (v['isSidechain'] === true && this.mode !== 'sub') return
    this.fact = { k: 'limit', limit: num(a['maxTurns']) ?? num(a['max_turns']), actual: num(a['turnCount']) ?? num(a['turn_count']) }
  }

  private user(v: Obj, line: number | undefined, time: string | number | undefined): void {
    const msg = messageOf(this.d, v, line, time, 'user')
    if (msg === undefined) return
    const mode = this.decideMode(v)
    const side = mode === 'main' && v['isSidechain'] === true
    const kind = userKind(v, msg)
    if (!side && (kind === 'prompt' || kind === 'command') && !(mode === 'sub' && this.d.hasContent)) this.boundary()
    const d = this.d
    touch(d, line, time)
    if (kind === 'tool_result') this.toolResults(v, msg, side)
    if (side) return
    const sid = str(v['sessionId'])
    switch (kind) {
      case 'prompt':
        d.hasContent = true
        if (sid !== undefined) this.sessionId = sid
        this.fact = { k: 'prompt' }
        return
      case 'interrupt':
        this.fact = { k: 'interrupt' }
        return
      case 'hook':
        if (d.hasContent) this.fact = { k: 'hook' }
        return
      case 'tool_result':
        d.hasContent = true
        if (sid !== undefined) this.sessionId = sid
        this.fact = { k: 'tool_result' }
        return
      default:
        return
    }
  }

  private toolResults(v: Obj, msg: Obj, side: boolean): void {
    const content = msg['content']
    if (!Array.isArray(content)) return
    const d = this.d
    for (const b of content) {
      if (!isObject(b) || b['type'] !== 'tool_result') continue
      const id = str(b['tool_use_id'])
      if (id === undefined) continue
      if (!side && this.pending.length > 0) this.pending = this.pending.filter((p) => p.id !== id)
      if (!this.taskIds.has(id)) continue
      const tur = v['toolUseResult']
      const status = isObject(tur) ? str(tur['status']) : undefined
      if (b['is_error'] === true) {
        setChildEnding(d, id, failedToolResult(b['content']), null)
      } else if (status !== 'async_launched') {
        setChildEnding(d, id, { kind: 'answered' }, status ?? null)
      }
      const agentId = isObject(tur) ? str(tur['agentId']) : undefined
      if (agentId !== undefined) renameChild(d, id, agentId)
      this.taskIds.delete(id)
    }
  }

  private assistant(v: Obj, line: number | undefined, time: string | number | undefined): void {
    const msg = messageOf(this.d, v, line, time, 'assistant')
    if (msg === undefined) return
    const mode = this.decideMode(v)
    const side = mode === 'main' && v['isSidechain'] === true
    const d = this.d
    touch(d, line, time)
    const model = str(msg['model']) ?? 'unknown'
    const id = str(msg['id'])
    const synthetic = model === SYNTHETIC_MODEL
    if (!synthetic) addMessageUsage(d, this.ledger, line, id, model, msg['usage'])
    const content = msg['content']
    const blocks: ReadonlyArray<unknown> = Array.isArray(content) ? content : []
    // a transcript opens subagent children for client-side calls only
    const text = readAssistantBlocks(d, blocks, this.tools, this.taskIds, false)
    if (side) return
    d.hasContent = true
    const sid = str(v['sessionId'])
    if (sid !== undefined) this.sessionId = sid
    const apiError = v['isApiErrorMessage'] === true
    if (synthetic || apiError) {
      if (apiError || (text !== null && text.startsWith('API Error'))) {
        this.fact = { k: 'api_error', message: apiErrorMessage(text), code: str(v['error']) }
      }
      return
    }
    const newMessage = id === undefined || id !== this.lastRootId
    if (newMessage) {
      if (id === undefined || this.rootIds.add(id)) d.turns++
      this.lastRootId = id
      this.rootText = null
      this.rootStop = undefined
      this.pending = []
    }
    if (text !== null) this.rootText = joinText(this.rootText, text)
    const stop = str(msg['stop_reason'])
    if (stop !== undefined) this.rootStop = stop
    const last = lastObject(blocks)
    if (last === undefined) return
    const lt = last['type']
    if (lt === 'text') this.fact = { k: 'text', stop: this.rootStop }
    else if (lt === 'tool_use') {
      for (const b of blocks) {
        if (!isObject(b) || b['type'] !== 'tool_use') continue
        const name = str(b['name'])
        const kind = name !== undefined ? INTERACTIVE_TOOLS.get(name) : undefined
        const tid = str(b['id'])
        if (kind === undefined || tid === undefined || name === undefined || this.pending.some((p) => p.id === tid)) continue
        this.pending.push({ id: tid, kind, toolName: name, ...(b['input'] !== undefined ? { arguments: b['input'] } : {}) })
      }
      this.fact = { k: 'tool_use', stop: this.rootStop }
    } else if (lt === 'thinking' || lt === 'redacted_thinking') this.fact = { k: 'thinking' }
    else this.fact = { k: 'assistant' }
  }

  private endingOf(): { ending: RunEnding; finishReason: string | null } {
    const f = this.fact
    switch (f.k) {
      case 'text': {
        const cut = cutOffReason(f.stop)
        return { ending: cut !== undefined ? { kind: 'cut_off', finishReason: cut } : { kind: 'answered' }, finishReason: f.stop ?? null }
      }
      case 'tool_use':
        return {
          ending: this.pending.length > 0 ? { kind: 'suspended', pending: this.pending.slice() } : { kind: 'unfinished', lastEventType: 'tool_use' },
          finishReason: f.stop ?? null,
        }
      case 'tool_result':
        return { ending: { kind: 'unfinished', lastEventType: 'tool_result' }, finishReason: null }
      case 'interrupt':
        return { ending: { kind: 'stopped', by: 'caller' }, finishReason: null }
      case 'api_error':
        return {
          ending: { kind: 'failed', reason: 'provider_error', error: endingError(f) },
          finishReason: null,
        }
      case 'limit':
        return {
          ending: {
            kind: 'limit',
            reason: 'max_turns',
            field: 'turns',
            actual: f.actual ?? null,
            ...(f.limit !== undefined ? { limit: f.limit } : {}),
          },
          finishReason: null,
        }
      case 'thinking':
        return { ending: { kind: 'unfinished', lastEventType: 'thinking' }, finishReason: null }
      case 'assistant':
        return { ending: { kind: 'unfinished', lastEventType: 'assistant' }, finishReason: null }
      case 'prompt':
      case 'hook':
        return { ending: { kind: 'unfinished', lastEventType: 'user' }, finishReason: null }
      case 'none':
        return { ending: { kind: 'unfinished' }, finishReason: null }
    }
  }

  private finish(): RunResult {
    const d = this.d
    writeUsage(d, ledgerFigures(this.ledger), undefined)
    const { ending, finishReason } = this.endingOf()
    return finishRun(d, {
      format: 'claude-code',
      sessionId: this.sessionId ?? this.fileSession,
      ending,
      finishReason,
      response: this.rootText,
      inferred: true,
      file: this.file,
    })
  }

  /** The input ended: emit the open run (or one unfinished run when the input held none). */
  end(): void {
    if (!this.d.hasContent && this.emitted > 0) return
    this.emitted++
    this.emit(this.finish())
  }
}
