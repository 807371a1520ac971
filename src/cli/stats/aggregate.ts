/**
 * Streaming aggregation for `stats`: groups of runs (by ending, format, model or day), totals, and the
 * slowest and most expensive runs, in memory that does not grow with the number of runs.
 * @module
 */
import { endingKinds, type EndingKind } from '../../core/RunEnding.js'
import type { FileOutcome, RunRecord } from './records.js'

/** What `--by` groups by. @since 0.1.0 */
export type GroupBy = 'ending' | 'format' | 'model' | 'day'

/** Totals of a group of runs. @since 0.1.0 */
export interface GroupTotals {
  runs: number
  successes: number
  inputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
  /** USD over the runs that have a cost. */
  costUsd: number
  runsWithoutCost: number
  runsWithEstimatedCost: number
  durationMs: number
  toolCalls: number
  turns: number
}

const emptyTotals = (): GroupTotals => ({
  runs: 0,
  successes: 0,
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
  runsWithoutCost: 0,
  runsWithEstimatedCost: 0,
  durationMs: 0,
  toolCalls: 0,
  turns: 0,
})

/** A run in a top list. @since 0.1.0 */
export interface RunRef {
  readonly file: string
  readonly index: number
  readonly kind: EndingKind
  readonly detail: string
  readonly durationMs: number | null
  readonly costUsd: number | null
}

const TOP = 5

const addTop = (list: Array<RunRef>, r: RunRef, key: (x: RunRef) => number): void => {
  const v = key(r)
  if (list.length === TOP && v <= key(list[list.length - 1] as RunRef)) return
  list.push(r)
  list.sort((a, b) => key(b) - key(a))
  if (list.length > TOP) list.pop()
}

/** The running aggregate of a `stats` job. @since 0.1.0 */
export class StatsAggregate {
  readonly total = emptyTotals()
  readonly byEnding = new Map<EndingKind, GroupTotals>()
  readonly groups = new Map<string, GroupTotals>()
  readonly slowest: Array<RunRef> = []
  readonly mostExpensive: Array<RunRef> = []
  files = 0
  filesRead = 0
  readonly skipped: Array<{ file: string; why: string }> = []
  readonly protocolErrors: Array<{ file: string; message: string }> = []

  constructor(readonly by: GroupBy) {}

  private static add(g: GroupTotals, r: RunRecord): void {
    g.runs++
    if (r.success) g.successes++
    g.inputTokens += r.inputTokens
    g.cacheReadTokens += r.cacheReadTokens
    g.cacheWriteTokens += r.cacheWriteTokens
    g.outputTokens += r.outputTokens
    g.reasoningTokens += r.reasoningTokens
    if (r.costUsd === null) g.runsWithoutCost++
    else {
      g.costUsd += r.costUsd
      if (r.estimated) g.runsWithEstimatedCost++
    }
    if (r.durationMs !== null) g.durationMs += r.durationMs
    g.toolCalls += r.toolCalls
    g.turns += r.turns
  }

  private group(map: Map<string, GroupTotals>, key: string): GroupTotals {
    let g = map.get(key)
    if (g === undefined) {
      g = emptyTotals()
      map.set(key, g)
    }
    return g
  }

  /** Adds one run. */
  addRun(r: RunRecord): void {
    StatsAggregate.add(this.total, r)
    let e = this.byEnding.get(r.kind)
    if (e === undefined) {
      e = emptyTotals()
      this.byEnding.set(r.kind, e)
    }
    StatsAggregate.add(e, r)
    if (this.by === 'format') StatsAggregate.add(this.group(this.groups, r.format), r)
    else if (this.by === 'day') StatsAggregate.add(this.group(this.groups, r.day ?? 'unknown'), r)
    else if (this.by === 'model') {
      if (r.models.length === 0) StatsAggregate.add(this.group(this.groups, '(no model)'), r)
      for (const m of r.models) {
        // a run counts once under each model it used, with that model's tokens and cost
        StatsAggregate.add(this.group(this.groups, m.model), {
          ...r,
          inputTokens: m.inputTokens,
          cacheReadTokens: m.cacheReadTokens,
          cacheWriteTokens: m.cacheWriteTokens,
          outputTokens: m.outputTokens,
          reasoningTokens: 0,
          costUsd: m.costUsd,
        })
      }
    }
    const ref: RunRef = { file: r.file, index: r.index, kind: r.kind, detail: r.detail, durationMs: r.durationMs, costUsd: r.costUsd }
    if (r.durationMs !== null && r.durationMs > 0) addTop(this.slowest, ref, (x) => x.durationMs ?? 0)
    if (r.costUsd !== null && r.costUsd > 0) addTop(this.mostExpensive, ref, (x) => x.costUsd ?? 0)
  }

  /** Adds the outcome of one file. */
  addFile(o: FileOutcome): void {
    this.files++
    if (!o.ok) {
      this.skipped.push({ file: o.file, why: o.why })
      return
    }
    this.filesRead++
    if (o.protocolError !== undefined) this.protocolErrors.push({ file: o.file, message: o.protocolError })
    for (const r of o.runs) this.addRun(r)
  }

  /** The `--json` document: `{ runs, files, byEnding: { answered: { runs, … }, … }, … }`. */
  toJSON(): Record<string, unknown> {
    const round = (g: GroupTotals) => ({
      runs: g.runs,
      successes: g.successes,
      successRate: g.runs === 0 ? null : Math.round((g.successes / g.runs) * 10000) / 10000,
      tokens: {
        inputTokens: g.inputTokens,
        cacheReadTokens: g.cacheReadTokens,
        cacheWriteTokens: g.cacheWriteTokens,
        outputTokens: g.outputTokens,
        reasoningTokens: g.reasoningTokens,
      },
      cost: {
        // null when no run of the group reports a cost (or there is no run): unknown is not $0
        totalUsd: g.runsWithoutCost === g.runs ? null : Math.round(g.costUsd * 1e6) / 1e6,
        runsWithoutCost: g.runsWithoutCost,
        runsWithEstimatedCost: g.runsWithEstimatedCost,
        estimated: g.runsWithEstimatedCost > 0,
      },
      toolCalls: g.toolCalls,
      turns: g.turns,
      durationMs: g.durationMs,
    })
    const byEnding: Array<[string, unknown]> = []
    for (const k of endingKinds) {
      const g = this.byEnding.get(k)
      if (g !== undefined) byEnding.push([k, round(g)])
    }
    const { runs, ...totals } = round(this.total)
    return {
      runs,
      files: this.files,
      filesRead: this.filesRead,
      filesSkipped: this.skipped.length,
      ...totals,
      byEnding: Object.fromEntries(byEnding),
      ...(this.by !== 'ending' ? { by: this.by, groups: Object.fromEntries([...this.groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, g]) => [k, round(g)])) } : {}),
      slowest: this.slowest,
      mostExpensive: this.mostExpensive,
      skipped: this.skipped.slice(0, 100),
      protocolErrors: this.protocolErrors.slice(0, 100),
    }
  }
}
