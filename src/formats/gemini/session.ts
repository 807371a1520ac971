/**
 * The reader of Gemini CLI on-disk sessions (`~/.gemini/tmp/<project>/chats/session-*.json` and `.jsonl`). The
 * rules are documented on the format module (`src/formats/gemini.ts`).
 *
 * Both containers go through one builder: the legacy `.json` `ConversationRecord` feeds its `messages[]`, the
 * `.jsonl` log feeds its lines (metadata, messages, `$set`, `$rewindTo`). The builder keeps one small entry per
 * message (kind, time, line, token counts, tool-call state), never the message bodies; answer texts are kept for
 * the last run only, and for each earlier run only its final answer.
 *
 * @module
 * @internal
 */
import type { PendingItem, RunEnding } from '../../core/RunEnding.js'
import { addDiagnostic, addUsage, finishRun, newDraft, touch } from '../../core/RunResult.js'
import type { Diagnostic, RunDraft, RunResult, UsageInput } from '../../core/RunResult.js'
import { isObject } from '../json.js'
import { GEMINI, MSG, isCount } from './shared.js'

type Kind = 'prompt' | 'toolresponse' | 'gemini' | 'error' | 'note'
/** A gemini message's tool calls, summed up: the most telling status wins (cancelled > awaiting > error > pending > done). */
type ToolState = 'none' | 'done' | 'pending' | 'error' | 'awaiting' | 'cancelled'
const TOOL_RANK: Record<ToolState, number> = { none: 0, done: 1, pending: 2, error: 3, awaiting: 4, cancelled: 5 }

interface Run {
  entries: Array<Entry>
  /** Diagnostics of the lines read while this run was the last one (made on the first one). */
  draft: RunDraft | null
}

interface Entry {
  readonly key: string
  kind: Kind
  type: string
  line: number | null
  time: string | null
  /** gemini: the answer text (dropped for earlier runs except their final answer); error: the error text. */
  text: string | null
  hasText: boolean
  model: string | null
  usage: UsageInput | null
  toolCalls: number
  toolState: ToolState
  toolError: string | null
  pending: Array<PendingItem> | null
  readonly run: Run
}

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
  const t = first.charCodeAt(0) === 60 ? first : first.trimStart()
  return t.startsWith(SESSION_CONTEXT) || t.startsWith(HOOK_CONTEXT)
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
const countOf = (v: unknown): number | null => (v === undefined || v === null ? 0 : isCount(v) ? v : null)

/** The error message a failed tool call returned: `result[].functionResponse.response.error`, else `resultDisplay`. */
const toolErrorOf = (call: Record<string, unknown>): string | null => {
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

/**
 * Builds the runs of one Gemini CLI session (legacy `.json` document or `.jsonl` log).
 * @internal
 */
export class GeminiSessionBuilder {
  private sessionId: string | null = null
  private runs: Array<Run> = []
  private readonly byId = new Map<string, Entry>()
  /** Diagnostics from before the first run; they go to the first run. */
  private readonly pre: RunDraft = newDraft()

  constructor(private readonly file: string | null) {}

  /** Takes diagnostics gathered before the input was known to be a session log. */
  adopt(diagnostics: ReadonlyArray<Diagnostic>, dropped: number): void {
    for (const d of diagnostics) addDiagnostic(this.pre, d.line, d.message)
    this.pre.diagnosticsDropped += dropped
  }

  private target(): RunDraft {
    const last = this.runs[this.runs.length - 1]
    if (last === undefined) return this.pre
    return (last.draft ??= newDraft())
  }

  private diag(line: number | undefined, message: string): void {
    addDiagnostic(this.target(), line, message)
  }

  /** A `.jsonl` line that is not JSON. */
  noise(lineNo: number, unterminated: boolean): void {
    this.diag(lineNo, unterminated ? MSG.cutLine : MSG.notJson)
  }

  /** A `.jsonl` line that is JSON but not an object. */
  notObject(lineNo: number): void {
    this.diag(lineNo, MSG.notObject)
  }

  /**
   * One `.jsonl` record, classified as gemini-cli's loader does: `$rewindTo` (string) → rewind; `id` (string) →
   * message; `$set` (object) → metadata update; `sessionId` → metadata (a whole `ConversationRecord` on one line
   * is read as the legacy document).
   */
  record(v: Record<string, unknown>, lineNo: number): void {
    const rewind = v['$rewindTo']
    if (typeof rewind === 'string') return this.rewind(rewind, lineNo)
    if (rewind !== undefined) return this.diag(lineNo, 'skipped a $rewindTo record whose target is not a string')
    const id = v['id']
    if (typeof id === 'string') return this.message(v, lineNo, id)
    const set = v['$set']
    if (set !== undefined) {
      if (!isObject(set)) return this.diag(lineNo, 'skipped a $set record whose value is not an object')
      if (typeof set['sessionId'] === 'string') this.sessionId = set['sessionId']
      // `$set.messages` is gemini-cli rewriting the model's context (compression, masking, a rolled-back turn):
      // it does not change what happened in the session, so the runs are left as they are.
      return
    }
    if (typeof v['sessionId'] === 'string') {
      if (Array.isArray(v['messages'])) return this.document(v, lineNo)
      this.sessionId = v['sessionId']
      return
    }
    this.diag(lineNo, 'ignored a record that is not a message, metadata, $set or $rewindTo')
  }

  /** A whole `ConversationRecord` (legacy `.json`): its `sessionId` and every message in order. */
  document(doc: Record<string, unknown>, lineNo?: number): void {
    const sid = doc['sessionId']
    if (typeof sid === 'string') this.sessionId = sid
    else if (sid !== undefined) this.diag(lineNo, 'ignored a sessionId that is not a string')
    const messages = doc['messages']
    if (!Array.isArray(messages)) {
      this.diag(lineNo, 'the session record has no messages array')
      return
    }
    for (let i = 0; i < messages.length; i++) {
      const m: unknown = messages[i]
      const id = isObject(m) && typeof m['id'] === 'string' ? m['id'] : `\u0000${i}`
      this.message(m, lineNo, id)
    }
  }

  private message(m: unknown, line: number | undefined, key: string): void {
    if (!isObject(m)) return this.diag(line, 'skipped a message that is not an object')
    const type = m['type']
    if (typeof type !== 'string') return this.diag(line, 'skipped a message without a string type')
    let kind: Kind
    const content = m['content']
    switch (type) {
      case 'user': {
        if (isToolResponse(content)) kind = 'toolresponse'
        else kind = isInjected(content) ? 'note' : 'prompt'
        break
      }
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
        return this.diag(line, 'skipped a message of an unknown type')
    }
    const ts = m['timestamp']
    const time = typeof ts === 'string' ? ts : null
    let existing = this.byId.get(key)
    if (existing === undefined) {
      if (kind === 'prompt') this.startRun()
      else if (this.runs.length === 0) {
        if (kind === 'note') return
        this.startRun()
      }
      const run = this.runs[this.runs.length - 1] as Run
      existing = {
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
        run,
      }
      run.entries.push(existing)
      this.byId.set(key, existing)
    } else {
      // The same id appended again: gemini-cli rewrites a message whenever it changes (tokens, tool calls).
      if ((existing.kind === 'prompt') !== (kind === 'prompt')) this.diag(line, 'a message was rewritten with a different role; its first role was kept')
      else existing.kind = kind
      existing.type = type
      if (line !== undefined) existing.line = line
      if (time !== null) existing.time = time
    }
    this.fill(existing, m, content, line)
  }

  /** Reads a message's text, model, tokens and tool calls into its entry. */
  private fill(e: Entry, m: Record<string, unknown>, content: unknown, line: number | undefined): void {
    e.text = null
    e.hasText = false
    e.model = null
    e.usage = null
    e.toolCalls = 0
    e.toolState = 'none'
    e.toolError = null
    e.pending = null
    if (e.kind === 'error') {
      const t = textOf(content)
      if (t !== '') e.text = t
      return
    }
    if (e.kind !== 'gemini') return
    const t = textOf(content)
    if (t.trim() !== '') {
      e.text = t
      e.hasText = true
    }
    const model = m['model']
    if (typeof model === 'string') e.model = model
    e.usage = this.tokens(m['tokens'], line)
    const calls = m['toolCalls']
    if (calls === undefined || calls === null) return
    if (!Array.isArray(calls)) return this.diag(line, 'ignored toolCalls that are not an array')
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
          const name = c['name']
          const item: PendingItem = {
            id: typeof c['id'] === 'string' ? c['id'] : '',
            kind: 'approval',
            ...(typeof name === 'string' ? { toolName: name } : {}),
            ...(c['args'] !== undefined ? { arguments: c['args'] } : {}),
          }
          ;(e.pending ??= []).push(item)
          break
        }
        default:
          // validating, scheduled, executing, or a status this reader does not know: not finished.
          if (typeof status !== 'string') bad = true
          state = 'pending'
      }
      if (TOOL_RANK[state] > TOOL_RANK[e.toolState]) e.toolState = state
    }
    if (bad) this.diag(line, 'a tool call record had an unexpected shape or status type')
  }

  /**
   * A gemini message's `tokens` (per API response, not cumulative) as disjoint buckets: `input` is the whole
   * prompt (cache reads included), so uncached input = `input − cached`, plus `tool` (tool-use prompt tokens,
   * counted apart from the prompt); output = `output + thoughts`; reasoning = `thoughts`.
   */
  private tokens(tk: unknown, line: number | undefined): UsageInput | null {
    if (tk === undefined || tk === null) return null
    if (!isObject(tk)) {
      this.diag(line, 'ignored message tokens that are not an object')
      return null
    }
    const input = countOf(tk['input'])
    const output = countOf(tk['output'])
    const cached = countOf(tk['cached'])
    const thoughts = countOf(tk['thoughts'])
    const tool = countOf(tk['tool'])
    const inputTokens = input === null || cached === null || tool === null ? null : Math.max(0, input - cached) + tool
    const outputTokens = output === null || thoughts === null ? null : output + thoughts
    if (inputTokens === null || outputTokens === null || !isCount(inputTokens) || !isCount(outputTokens)) {
      this.diag(line, 'ignored message tokens with a count that is not a finite, non-negative number')
      return null
    }
    return { inputTokens, cacheReadTokens: cached as number, outputTokens, reasoningTokens: thoughts as number }
  }

  /** A new prompt: the previous run keeps only its final answer text. */
  private startRun(): void {
    const prev = this.runs[this.runs.length - 1]
    if (prev !== undefined) {
      let last: Entry | undefined
      for (const e of prev.entries) if (e.kind === 'gemini' && e.hasText) last = e
      for (const e of prev.entries) if (e.kind === 'gemini' && e !== last) e.text = null
    }
    this.runs.push({ entries: [], draft: null })
  }

  /** Moves a dropped run's diagnostics to where reading continues. */
  private moveDiagnostics(from: RunDraft | null): void {
    if (from === null) return
    const to = this.target()
    for (const d of from.diagnostics) addDiagnostic(to, d.line, d.message)
    to.diagnosticsDropped += from.diagnosticsDropped
  }

  /** `$rewindTo`: the named message and everything after it are dropped (gemini-cli `rewindTo`); an unknown id drops all. */
  private rewind(id: string, lineNo: number): void {
    const e = this.byId.get(id)
    if (e === undefined) {
      const dropped = this.runs
      this.runs = []
      this.byId.clear()
      for (const r of dropped) this.moveDiagnostics(r.draft)
      this.diag(lineNo, 'a $rewindTo names a message that is not in the log; every message was dropped, as gemini-cli does')
      return
    }
    const r = e.run
    const ri = this.runs.indexOf(r)
    const ei = r.entries.indexOf(e)
    const later = this.runs.splice(ri + 1)
    for (const x of later) for (const y of x.entries) this.byId.delete(y.key)
    for (const y of r.entries.splice(ei)) this.byId.delete(y.key)
    if (r.entries.length === 0) this.runs.splice(ri, 1)
    for (const x of later) this.moveDiagnostics(x.draft)
    if (r.entries.length === 0) this.moveDiagnostics(r.draft)
  }

  /** The runs, in order (one `unfinished` run when the session holds none). */
  results(): Array<RunResult> {
    const out: Array<RunResult> = []
    this.emitAll((r) => out.push(r))
    return out
  }

  /**
   * Hands each run to `emit`, in order, releasing the builder's state as it goes (the builder is spent
   * afterwards). One `unfinished` run when the session holds none.
   */
  emitAll(emit: (r: RunResult) => void): void {
    const runs = this.runs
    this.runs = []
    this.byId.clear()
    if (runs.length === 0) {
      emit(finishRun(this.pre, { format: GEMINI, sessionId: this.sessionId, ending: { kind: 'unfinished' }, finishReason: null, response: null, file: this.file }))
      return
    }
    for (let i = 0; i < runs.length; i++) {
      const run = runs[i] as Run
      const d = newDraft()
      if (i === 0) carry(d, this.pre)
      carry(d, run.draft)
      let first: number | null = null
      let last: number | null = null
      for (const e of run.entries) {
        if (e.time !== null) touch(d, undefined, e.time)
        if (e.line !== null) {
          if (first === null || e.line < first) first = e.line
          if (last === null || e.line > last) last = e.line
        }
        if (e.kind === 'gemini') {
          d.turns++
          d.toolCalls += e.toolCalls
          if (e.usage !== null) addUsage(d, e.model ?? 'unknown', e.usage, undefined, e.line ?? undefined)
        }
      }
        d.firstLine = first
      d.lastLine = last
      d.hasContent = true
      const { ending, response } = infer(run)
      if ((ending.kind === 'answered' || ending.kind === 'cut_off') && response === null) addDiagnostic(d, undefined, 'the final answer text of this run was not kept')
      runs[i] = EMPTY_RUN
      emit(finishRun(d, { format: GEMINI, sessionId: this.sessionId, ending, finishReason: null, response, inferred: true, file: this.file }))
    }
  }
}

/** Copies a run's diagnostics (and dropped count) into a result draft. */
const carry = (d: RunDraft, from: RunDraft | null): void => {
  if (from === null) return
  for (const x of from.diagnostics) addDiagnostic(d, x.line, x.message)
  d.diagnosticsDropped += from.diagnosticsDropped
}

/** Stands in for an emitted run, so its entries can be collected. */
const EMPTY_RUN: Run = { entries: [], draft: null }

/** The ending of a run, read from its last messages (the session format has no terminal record). */
const infer = (run: Run): { ending: RunEnding; response: string | null } => {
  const es = run.entries
  let i = es.length - 1
  while (i >= 0 && (es[i] as Entry).kind === 'note') i--
  const L = es[i]
  if (L === undefined) return { ending: { kind: 'unfinished', lastEventType: 'user' }, response: null }
  if (L.kind === 'error') {
    return { ending: { kind: 'failed', reason: 'error', ...(L.text !== null ? { error: { message: L.text } } : {}) }, response: null }
  }
  if (L.kind === 'prompt') return { ending: { kind: 'unfinished', lastEventType: 'user' }, response: null }
  // The gemini message the tail answers to: L itself, or the one before trailing tool responses.
  let j = i
  while (j >= 0 && ((es[j] as Entry).kind === 'toolresponse' || (es[j] as Entry).kind === 'note')) j--
  const G = es[j]
  if (G === undefined || G.kind !== 'gemini') return { ending: { kind: 'unfinished', lastEventType: L.type }, response: null }
  switch (G.toolState) {
    case 'none':
      if (G === L && G.hasText) return { ending: { kind: 'answered' }, response: G.text }
      return { ending: { kind: 'unfinished', lastEventType: L.type }, response: null }
    case 'cancelled':
      return { ending: { kind: 'stopped', by: 'caller', reason: 'tool call cancelled' }, response: null }
    case 'awaiting':
      return { ending: { kind: 'suspended', pending: G.pending ?? [] }, response: null }
    case 'error':
      return { ending: { kind: 'failed', reason: 'error', phase: 'tool', error: { message: G.toolError ?? 'a tool call failed' } }, response: null }
    case 'pending':
    case 'done':
      return { ending: { kind: 'unfinished', lastEventType: L.type }, response: null }
  }
}
