/**
 * Claude Code subagent files: newer Claude Code writes each subagent's transcript to
 * `<project>/<session>/subagents/<agent-id>.jsonl` beside the session's `<project>/<session>.jsonl`
 * (formats.md §C1). Those records belong to the parent session, not to runs of their own: these helpers fold
 * each into the parent run it ran in, as a child with its inferred ending and its usage (finding them is
 * `claudeSubagentFiles.ts`, re-exported here).
 *
 * @module
 */
import { basename } from 'node:path'
import type { CostEstimator } from '../core/fold.js'
import { MAX_DIAGNOSTICS, type ChildResult, type Cost, type Diagnostic, type ModelUsage, type RunResult, type Usage } from '../core/RunResult.js'
import { msFromIso } from '../core/time.js'
import { createClaudeCodeReader } from '../formats/claudeCode.js'
import type { SeenRecords } from '../formats/claudeCode/seen.js'
import { LineSplitter, oversizeNote } from '../io/lines.js'
import { SESSION_EXT, subagentFilesOf } from './claudeSubagentFiles.js'
import { decodedBytes } from './decodedBytes.js'
import { fileChunks } from './fileChunks.js'

export { hasSubagentFilesSync, subagentDirOf, subagentFilesOf, subagentFilesOfSync } from './claudeSubagentFiles.js'

/** Reads one subagent file with the Claude Code reader in subagent mode (the whole file is one run). */
const readSubagentFile = async (
  file: string,
  estimate: CostEstimator | undefined,
  seen: SeenRecords | undefined,
): Promise<{ runs: Array<RunResult>; notes: Array<string> }> => {
  const runs: Array<RunResult> = []
  const notes: Array<string> = []
  const reader = createClaudeCodeReader(
    (r) => runs.push(r),
    { file, ...(estimate !== undefined ? { estimate } : {}), ...(seen !== undefined ? { seen } : {}) },
    { subagent: true },
  )
  const splitter = new LineSplitter(
    (text, lineNo, unterminated) => {
      reader.line(text, lineNo, unterminated)
    },
    // a line over the cap is skipped, as in any log, and said (on the run the subagent belongs to)
    (lineNo, size, values) => notes.push(oversizeNote(lineNo, size, values)),
  )
  // gzip or not by its bytes, as every log (a cut gzip file is read as far as it goes, and said)
  for await (const chunk of decodedBytes(fileChunks(file), (note) => notes.push(note))) splitter.push(chunk)
  splitter.end()
  reader.end()
  return { runs, notes }
}

/** The agent id a subagent file names: `agent-<id>.jsonl` → `<id>`. */
const agentIdOf = (file: string): string =>
  basename(file)
    .replace(SESSION_EXT, '')
    .replace(/^agent-/, '')

const ms = (iso: string | null): number | null => {
  if (iso === null) return null
  const t = msFromIso(iso)
  return Number.isFinite(t) ? t : null
}

/** The runs' time spans (ms), parsed once. */
type Spans = ReadonlyArray<{ readonly s: number | null; readonly e: number | null }>

/** The index of the run whose time span contains `start`, else the last run that started before it, else the last run. */
const runIndexFor = (spans: Spans, start: number | null): number => {
  const lastIdx = spans.length - 1
  if (start === null) return lastIdx
  let before = -1
  for (let i = 0; i < spans.length; i++) {
    const { s, e } = spans[i] as Spans[number]
    if (s !== null && e !== null && s <= start && start <= e) return i
    if (s !== null && s <= start) before = i
  }
  return before >= 0 ? before : lastIdx
}

/**
 * What the subagent files add to one parent run, gathered in place (each file costs its own size, not the
 * run's size so far: 20,000 files are 20,000 steps, not 20,000 copies of a growing model map and child list).
 */
interface Gathered {
  usage: Usage
  byModel: Map<string, ModelUsage>
  cost: Cost
  toolCalls: number
  children: Array<ChildResult>
  childAt: Map<string, number>
  diagnostics: Array<Diagnostic>
  dropped: number
}

const gatherFor = (r: RunResult): Gathered => ({
  usage: r.usage,
  byModel: new Map(Object.entries(r.usage.byModel)),
  cost: r.cost,
  toolCalls: r.toolCalls,
  children: r.children.slice(),
  childAt: new Map(r.children.map((c, i) => [c.sessionId, i] as const).reverse()),
  diagnostics: r.diagnostics.slice(),
  dropped: r.diagnosticsDropped,
})

/** Adds one file's usage to a run's gathered usage: buckets summed, models merged in place. */
const gatherUsage = (g: Gathered, b: Usage): void => {
  for (const [k, m] of Object.entries(b.byModel)) g.byModel.set(k, addModel(g.byModel.get(k), m))
  g.usage = {
    inputTokens: g.usage.inputTokens + b.inputTokens,
    cacheReadTokens: g.usage.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: g.usage.cacheWriteTokens + b.cacheWriteTokens,
    outputTokens: g.usage.outputTokens + b.outputTokens,
    reasoningTokens: g.usage.reasoningTokens + b.reasoningTokens,
    byModel: {},
  }
}

const gatherDiagnostic = (g: Gathered, message: string): void => {
  if (g.diagnostics.length >= MAX_DIAGNOSTICS) g.dropped++
  else g.diagnostics.push({ message })
}

const addModel = (a: ModelUsage | undefined, b: ModelUsage): ModelUsage =>
  a === undefined
    ? b
    : {
        inputTokens: a.inputTokens + b.inputTokens,
        cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
        cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
        outputTokens: a.outputTokens + b.outputTokens,
        reasoningTokens: a.reasoningTokens + b.reasoningTokens,
        costUsd: a.costUsd === null || b.costUsd === null ? null : a.costUsd + b.costUsd,
      }

const addUsage = (a: Usage, b: Usage): Usage => {
  const byModel = new Map<string, ModelUsage>(Object.entries(a.byModel))
  for (const [k, m] of Object.entries(b.byModel)) byModel.set(k, addModel(byModel.get(k), m))
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
    byModel: Object.fromEntries(byModel),
  }
}

const addCost = (a: Cost, b: Cost): Cost => {
  const missing = a.missing + b.missing
  return {
    totalUsd: missing > 0 || a.totalUsd === null || b.totalUsd === null ? null : a.totalUsd + b.totalUsd,
    complete: missing === 0 && a.complete && b.complete,
    missing,
    ...(a.estimated === true || b.estimated === true ? { estimated: true } : {}),
  }
}

/**
 * Folds a session's subagent files into its runs (SPEC §1: subagent files are read with their parent
 * session). Each file in {@link subagentFilesOf}`(sessionFile)` is read as one subagent run (its ending
 * inferred like any transcript's) and added to the parent run whose time span contains the subagent's start
 * (else the last run that started before it, else the last run):
 * - as a child `{ sessionId: <agent id>, ending }`; a child of that id already listed (from the Task call's
 *   result, which names the `agentId`) keeps its ending unless that ending is `unfinished`;
 * - its usage (tokens per model) and cost items are added to the run's (transcripts carry no cost, so the
 *   run's cost stays missing unless `options.estimate` prices each request, as for the session's own), and its
 *   tool calls to the run's `toolCalls`.
 * Returns new `RunResult` objects (the inputs are not changed); `runs` unchanged when it is empty or there
 * are no subagent files. A subagent file that cannot be read adds a diagnostic to the last run. A line of a
 * subagent file over the line cap is skipped, as in any log, and said: `the subagent file agent-x.jsonl: line 3:
 * skipped a line of … bytes (over the line cap …)`, to `options.onNote` when given (the CLI prints it beside the
 * session's own notes), else as a diagnostic of the run the subagent belongs to. With `options.seen` (the records of
 * the other files of one input, K15), a subagent file's records are claimed there like the session's own: a copy
 * of the session elsewhere that holds them inline (older transcripts) then counts them once.
 * **Rejects with** the file system's error only when the `subagents` folder exists but cannot be listed.
 * @since 0.1.0
 */
export const attachSubagents = async (
  runs: ReadonlyArray<RunResult>,
  sessionFile: string,
  options: { readonly estimate?: CostEstimator; readonly onNote?: (note: string) => void; readonly seen?: SeenRecords } = {},
): Promise<Array<RunResult>> => {
  const out = runs.slice()
  if (out.length === 0) return out
  const files = await subagentFilesOf(sessionFile)
  const spans: Spans = runs.map((r) => ({ s: ms(r.startedAt), e: ms(r.endedAt) }))
  const gathered = new Map<number, Gathered>()
  const at = (i: number): Gathered => {
    let g = gathered.get(i)
    if (g === undefined) {
      g = gatherFor(out[i] as RunResult)
      gathered.set(i, g)
    }
    return g
  }
  for (const file of files) {
    let sub: Array<RunResult>
    let notes: Array<string>
    try {
      ;({ runs: sub, notes } = await readSubagentFile(file, options.estimate, options.seen))
    } catch {
      gatherDiagnostic(at(out.length - 1), `could not read the subagent file ${basename(file)}`)
      continue
    }
    const first = sub[0]
    for (const note of notes) {
      const message = `the subagent file ${basename(file)}: ${note}`
      if (options.onNote !== undefined) options.onNote(message)
      else gatherDiagnostic(at(first === undefined ? out.length - 1 : runIndexFor(spans, ms(first.startedAt))), message)
    }
    if (first === undefined) continue
    let usage = first.usage
    let cost = first.cost
    let toolCalls = first.toolCalls
    for (let k = 1; k < sub.length; k++) {
      const s = sub[k] as RunResult
      usage = addUsage(usage, s.usage)
      cost = addCost(cost, s.cost)
      toolCalls += s.toolCalls
    }
    const lastSub = sub[sub.length - 1] as RunResult
    const agentId = agentIdOf(file)
    const g = at(runIndexFor(spans, ms(first.startedAt)))
    const known = g.childAt.get(agentId)
    const child: ChildResult = { sessionId: agentId, ending: lastSub.ending, finishReason: lastSub.finishReason }
    if (known === undefined) {
      g.childAt.set(agentId, g.children.length)
      g.children.push(child)
    } else if ((g.children[known] as ChildResult).ending.kind === 'unfinished') g.children[known] = child
    gatherUsage(g, usage)
    g.cost = addCost(g.cost, cost)
    g.toolCalls += toolCalls
  }
  for (const [i, g] of gathered) {
    const r = out[i] as RunResult
    out[i] = {
      ...r,
      children: g.children,
      usage: { ...g.usage, byModel: Object.fromEntries(g.byModel) },
      cost: g.cost,
      toolCalls: g.toolCalls,
      diagnostics: g.diagnostics,
      diagnosticsDropped: g.dropped,
    }
  }
  return out
}
