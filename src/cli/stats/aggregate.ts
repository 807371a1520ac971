/**
 * Streaming aggregation for `stats`: groups of runs (by ending, format, model, day, week, month, session or
 * project; optionally with per-model rows inside each group), totals, the models whose cost is unknown, and the
 * slowest and most expensive runs, in memory that grows with the number of groups, not of runs.
 *
 * Time: a run counts at its start (its end when the start is unknown), in the aggregate's IANA time zone, for
 * `day` / `week` (ISO weeks, named by their Monday) / `month` and for the `since` / `until` bounds. A run without
 * any time is left out when a bound is set (and counted in `excluded`), else grouped under `(no time)`.
 * @module
 */
import { endingKinds, type EndingKind } from '../../core/RunEnding.js'
import { msFromIso } from '../../core/time.js'
import { roundUsd } from '../../core/usd.js'
import { NO_MODEL } from '../../core/RunResult.js'
import type { FileOutcome, ModelRecord, RunRecord, SkipReason } from './records.js'
import { afterBound, beforeBound, localTime, weekStart, type TimeBound } from './time.js'

/** What `--by` groups by. @since 0.1.0 */
export type GroupBy = 'ending' | 'format' | 'model' | 'day' | 'week' | 'month' | 'session' | 'project'

/** Every `--by` key, in the order `--help` lists them. @since 0.2.0 */
export const GROUP_KEYS: ReadonlyArray<GroupBy> = ['ending', 'format', 'model', 'day', 'week', 'month', 'session', 'project']

/** Totals of a group of runs (tokens; USD). @since 0.1.0 */
export interface GroupTotals {
  runs: number
  successes: number
  inputTokens: number
  cacheReadTokens: number
  cacheWriteTokens: number
  outputTokens: number
  reasoningTokens: number
  /** USD over the runs that have a cost (reported + estimated). */
  costUsd: number
  /** USD of the runs whose cost the logs report. */
  reportedUsd: number
  /** USD of the runs whose cost is (partly) estimated. */
  estimatedUsd: number
  runsWithoutCost: number
  runsWithEstimatedCost: number
  durationMs: number
  toolCalls: number
  turns: number
  /** ISO-8601 times of the earliest start and latest end in the group, or `null`. */
  firstActivity: string | null
  lastActivity: string | null
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
  reportedUsd: 0,
  estimatedUsd: 0,
  runsWithoutCost: 0,
  runsWithEstimatedCost: 0,
  durationMs: 0,
  toolCalls: 0,
  turns: 0,
  firstActivity: null,
  lastActivity: null,
})

/** A run in a top list. @since 0.1.0 */
export interface RunRef {
  readonly file: string
  readonly index: number
  readonly kind: EndingKind
  readonly detail: string
  readonly durationMs: number | null
  readonly costUsd: number | null
  /** The cost is (partly) an estimate. */
  readonly estimated: boolean
  /** The run's project (see `RunRecord.project`). */
  readonly project: string | null
}

/** How a `stats` aggregate groups and filters. @since 0.2.0 */
export interface AggregateOptions {
  readonly by: GroupBy
  /** Per-model rows inside each group. */
  readonly breakdown?: boolean
  /** IANA time zone for days, weeks, months and local-time bounds (default `UTC`). */
  readonly timeZone?: string
  readonly since?: TimeBound
  readonly until?: TimeBound
}

/** A group's name for a run without a time. @since 0.2.0 */
export const NO_TIME = '(no time)'
/** The model name the fold gives usage without a model (the core's `NO_MODEL`). @since 0.2.0 */
export { NO_MODEL }
/** The `unknownCost` entry of runs whose cost is unknown because they recorded no usage (nothing to price). @since 0.2.0 */
export const NO_USAGE = '(no usage)'

const TOP = 5

/**
 * Keeps the `TOP` runs of the largest `key`; runs of equal key in file, then run order, so the list does not
 * depend on which worker read a file first.
 */
const addTop = (list: Array<RunRef>, r: RunRef, key: (x: RunRef) => number): void => {
  const order = (a: RunRef, b: RunRef): number => key(b) - key(a) || (a.file < b.file ? -1 : a.file > b.file ? 1 : a.index - b.index)
  if (list.length === TOP && order(r, list[list.length - 1] as RunRef) >= 0) return
  list.push(r)
  list.sort(order)
  if (list.length > TOP) list.pop()
}

const minIso = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : msFromIso(b) < msFromIso(a) ? b : a)
const maxIso = (a: string | null, b: string | null): string | null => (a === null ? b : b === null ? a : msFromIso(b) > msFromIso(a) ? b : a)

/**
 * Why a path met while listing a folder gave no runs: a folder that cannot be read, a symbolic link to nothing,
 * a folder reached a second time (a link loop or a second link to it), a log's name on a FIFO, socket or device.
 * @since 0.2.0
 */
export type ListingSkip = 'unreadable-folder' | 'broken-link' | 'folder-again' | 'not-regular'

/** What a session group shows beside its totals. @since 0.2.0 */
export interface SessionInfo {
  readonly file: string
  readonly project: string | null
  readonly sessionId: string | null
}

/**
 * Whether a file's one run is the placeholder of an input that held no run (SPEC §1: empty, blank, or only records
 * with no run content): unfinished, never started, no turn, tool call, token or model; `holdsNoRun.ts` holds the same
 * rule over a `RunResult`.
 */
const holdsNoRun = (r: RunRecord): boolean =>
  r.kind === 'unfinished' &&
  r.startedAt === null &&
  r.turns === 0 &&
  r.toolCalls === 0 &&
  r.models.length === 0 &&
  r.inputTokens + r.cacheReadTokens + r.cacheWriteTokens + r.outputTokens + r.reasoningTokens === 0

/** The running aggregate of a `stats` job. @since 0.1.0 */
export class StatsAggregate {
  readonly total = emptyTotals()
  readonly byEnding = new Map<EndingKind, GroupTotals>()
  readonly groups = new Map<string, GroupTotals>()
  /** Per group, per model (with `breakdown`). */
  readonly breakdown = new Map<string, Map<string, GroupTotals>>()
  /** Session groups: where each comes from. */
  readonly sessions = new Map<string, SessionInfo>()
  /** Runs whose cost is unknown, by the model whose requests had no price (`unknown`: no model name; {@link NO_USAGE}: nothing to price). */
  readonly unknownCost = new Map<string, number>()
  readonly slowest: Array<RunRef> = []
  readonly mostExpensive: Array<RunRef> = []
  files = 0
  filesRead = 0
  /** Files read whose records held no run (empty, or only metadata such as a Claude Code `summary`): not runs here. */
  filesWithoutRuns = 0
  /** Runs outside `since` / `until`, and runs without a time while a bound is set. */
  readonly excluded = { outsideRange: 0, withoutTime: 0 }
  readonly skipped: Array<{ file: string; why: SkipReason | ListingSkip }> = []
  skippedCount = 0
  /** The first 100 files that stopped at a protocol error; {@link protocolErrorCount} counts them all. */
  readonly protocolErrors: Array<{ file: string; message: string }> = []
  protocolErrorCount = 0
  /** The first 100 notes of the files read (a line over the cap skipped, a gzip stream cut off); {@link noteCount} counts them all. */
  readonly notes: Array<{ file: string; message: string }> = []
  noteCount = 0
  /** Files read with at least one note. */
  filesWithNotes = 0
  readonly by: GroupBy
  readonly timeZone: string

  private readonly opts: AggregateOptions

  /** `by` alone (the 0.1 form) or the full options. */
  constructor(options: AggregateOptions | GroupBy) {
    this.opts = typeof options === 'string' ? { by: options } : options
    this.by = this.opts.by
    this.timeZone = this.opts.timeZone ?? 'UTC'
  }

  /** The `since` / `until` bounds, when set. */
  get bounds(): { readonly since?: TimeBound; readonly until?: TimeBound } {
    return { ...(this.opts.since !== undefined ? { since: this.opts.since } : {}), ...(this.opts.until !== undefined ? { until: this.opts.until } : {}) }
  }

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
      if (r.estimated) {
        g.runsWithEstimatedCost++
        g.estimatedUsd += r.costUsd
      } else g.reportedUsd += r.costUsd
    }
    if (r.durationMs !== null) g.durationMs += r.durationMs
    g.toolCalls += r.toolCalls
    g.turns += r.turns
    g.firstActivity = minIso(g.firstActivity, r.startedAt ?? r.endedAt)
    g.lastActivity = maxIso(g.lastActivity, r.endedAt ?? r.startedAt)
  }

  /** The run as one model's share of it: that model's tokens and cost. */
  private static share(r: RunRecord, m: ModelRecord): RunRecord {
    return {
      ...r,
      inputTokens: m.inputTokens,
      cacheReadTokens: m.cacheReadTokens,
      cacheWriteTokens: m.cacheWriteTokens,
      outputTokens: m.outputTokens,
      reasoningTokens: m.reasoningTokens,
      costUsd: m.costUsd,
      estimated: r.estimated && m.costUsd !== null,
    }
  }

  private static group(map: Map<string, GroupTotals>, key: string): GroupTotals {
    let g = map.get(key)
    if (g === undefined) {
      g = emptyTotals()
      map.set(key, g)
    }
    return g
  }

  private addTo(key: string, r: RunRecord): void {
    StatsAggregate.add(StatsAggregate.group(this.groups, key), r)
    if (this.opts.breakdown !== true) return
    let per = this.breakdown.get(key)
    if (per === undefined) {
      per = new Map()
      this.breakdown.set(key, per)
    }
    StatsAggregate.addModels(per, r)
  }

  /** The local time of a run in the aggregate's zone, or `null` when the run has no time. */
  private localOf(r: RunRecord): { ms: number; local: string } | null {
    const iso = r.startedAt ?? r.endedAt
    if (iso === null) return null
    const ms = msFromIso(iso)
    if (!Number.isFinite(ms)) return null
    return { ms, local: localTime(ms, this.timeZone) }
  }

  /** Adds one run (left out when outside `since` / `until`). */
  addRun(r: RunRecord): void {
    const o = this.opts
    const bounded = o.since !== undefined || o.until !== undefined
    const needTime = bounded || this.by === 'day' || this.by === 'week' || this.by === 'month'
    const at = needTime ? this.localOf(r) : null
    if (bounded) {
      if (at === null) {
        this.excluded.withoutTime++
        return
      }
      if ((o.since !== undefined && !afterBound(o.since, at.ms, at.local)) || (o.until !== undefined && !beforeBound(o.until, at.ms, at.local))) {
        this.excluded.outsideRange++
        return
      }
    }
    StatsAggregate.add(this.total, r)
    StatsAggregate.add(StatsAggregate.group(this.byEnding as Map<string, GroupTotals>, r.kind), r)
    switch (this.by) {
      case 'ending':
        if (o.breakdown === true) this.addBreakdownOnly(r.kind, r)
        break
      case 'format':
        this.addTo(r.format, r)
        break
      case 'day':
        this.addTo(at === null ? NO_TIME : at.local.slice(0, 10), r)
        break
      case 'week':
        this.addTo(at === null ? NO_TIME : weekStart(at.local.slice(0, 10)), r)
        break
      case 'month':
        this.addTo(at === null ? NO_TIME : at.local.slice(0, 7), r)
        break
      case 'session':
        if (!this.sessions.has(r.file)) this.sessions.set(r.file, { file: r.file, project: r.project, sessionId: r.sessionId })
        this.addTo(r.file, r)
        break
      case 'project':
        this.addTo(r.project ?? '(unknown)', r)
        break
      case 'model':
        // a run counts once under each model it used, with that model's tokens and cost
        if (r.models.length === 0) StatsAggregate.add(StatsAggregate.group(this.groups, NO_USAGE), r)
        for (const m of r.models) StatsAggregate.add(StatsAggregate.group(this.groups, m.model), StatsAggregate.share(r, m))
        break
    }
    if (r.costUsd === null) {
      // why: the models whose requests had no price; a model with no tokens had nothing to price
      const unpriced = new Set(
        r.models
          .filter((m) => m.costUsd === null)
          .map((m) => (m.inputTokens + m.cacheReadTokens + m.cacheWriteTokens + m.outputTokens === 0 ? NO_USAGE : m.model)),
      )
      if (unpriced.size === 0) unpriced.add(NO_USAGE)
      for (const m of unpriced) this.unknownCost.set(m, (this.unknownCost.get(m) ?? 0) + 1)
    }
    const ref: RunRef = {
      file: r.file,
      index: r.index,
      kind: r.kind,
      detail: r.detail,
      durationMs: r.durationMs,
      costUsd: r.costUsd,
      estimated: r.estimated && r.costUsd !== null,
      project: r.project,
    }
    if (r.durationMs !== null && r.durationMs > 0) addTop(this.slowest, ref, (x) => x.durationMs ?? 0)
    if (r.costUsd !== null && r.costUsd > 0) addTop(this.mostExpensive, ref, (x) => x.costUsd ?? 0)
  }

  /**
   * A run into a group's per-model rows: its share under each model, or, with no usage recorded, under
   * {@link NO_USAGE} (as `--by model` counts it), so that the rows of a group hold all of its runs.
   */
  private static addModels(per: Map<string, GroupTotals>, r: RunRecord): void {
    if (r.models.length === 0) StatsAggregate.add(StatsAggregate.group(per, NO_USAGE), r)
    for (const m of r.models) StatsAggregate.add(StatsAggregate.group(per, m.model), StatsAggregate.share(r, m))
  }

  /** `--by ending --breakdown`: the per-model rows of the ending groups (their totals are `byEnding`). */
  private addBreakdownOnly(key: string, r: RunRecord): void {
    let per = this.breakdown.get(key)
    if (per === undefined) {
      per = new Map()
      this.breakdown.set(key, per)
    }
    StatsAggregate.addModels(per, r)
  }

  /** Counts a file (or folder) that gave no runs. */
  addSkipped(file: string, why: SkipReason | ListingSkip): void {
    this.skippedCount++
    if (this.skipped.length < 100) this.skipped.push({ file, why })
  }

  /** Adds the outcome of one file. */
  addFile(o: FileOutcome): void {
    this.files++
    if (!o.ok) {
      this.addSkipped(o.file, o.why)
      return
    }
    this.filesRead++
    if (o.protocolError !== undefined) {
      this.protocolErrorCount++
      if (this.protocolErrors.length < 100) this.protocolErrors.push({ file: o.file, message: o.protocolError })
    }
    if (o.notes !== undefined && o.notes.length > 0) {
      this.filesWithNotes++
      this.noteCount += o.notes.length
      for (const message of o.notes) if (this.notes.length < 100) this.notes.push({ file: o.file, message })
    }
    // replay gives an input with no run one unfinished run (SPEC §1); a report over a folder counts such a file
    // apart instead (real homes hold many metadata-only transcripts; as runs they would pull the success rate down)
    if (o.protocolError === undefined && o.runs.length === 1 && holdsNoRun(o.runs[0] as RunRecord)) {
      this.filesWithoutRuns++
      return
    }
    for (const r of o.runs) this.addRun(r)
  }

  /**
   * The group rows in display order: endings in their canonical order, sessions by last activity, the rest by
   * name (times sort as names); `desc` reverses, keeping the groups of no time or name (`(no time)`) last.
   */
  rows(order: 'asc' | 'desc' = 'asc'): Array<[string, GroupTotals]> {
    let rows: Array<[string, GroupTotals]>
    if (this.by === 'ending') rows = endingKinds.filter((k) => this.byEnding.has(k)).map((k) => [k, this.byEnding.get(k) as GroupTotals])
    else {
      rows = [...this.groups.entries()]
      const name = (k: string): string => (k === NO_TIME || k.startsWith('(') ? `\uffff${k}` : k)
      if (this.by === 'session') rows.sort(([ka, a], [kb, b]) => (a.lastActivity ?? '').localeCompare(b.lastActivity ?? '') || (ka < kb ? -1 : ka > kb ? 1 : 0))
      else rows.sort(([a], [b]) => (name(a) < name(b) ? -1 : name(a) > name(b) ? 1 : 0))
    }
    if (order === 'asc') return rows
    // reversed, except the groups of no time or name (`(no time)`, `(no model)`), which stay last either way
    const named = rows.filter(([k]) => !(k === NO_TIME || k.startsWith('(')))
    return [...named.reverse(), ...rows.filter(([k]) => k === NO_TIME || k.startsWith('('))]
  }

  /**
   * The per-model rows of a group, with `breakdown`: the named models most expensive first, then by tokens; then,
   * as in {@link rows}, the rows of no model (`(no usage)`, and usage that named none), whatever their figures.
   */
  modelRows(key: string): Array<[string, GroupTotals]> {
    const per = this.breakdown.get(key)
    if (per === undefined) return []
    const tokens = (g: GroupTotals): number => g.inputTokens + g.cacheReadTokens + g.cacheWriteTokens + g.outputTokens
    const unnamed = (m: string): number => (m === NO_MODEL || m.startsWith('(') ? 1 : 0)
    return [...per.entries()].sort(
      ([a, x], [b, y]) => unnamed(a) - unnamed(b) || y.costUsd - x.costUsd || tokens(y) - tokens(x) || (a < b ? -1 : a > b ? 1 : 0),
    )
  }

  /**
   * The `--json` document: `{ runs, files, filesRead, filesSkipped, filesWithoutRuns, filesWithProtocolErrors,
   * filesWithNotes, successes, successRate, tokens, cost, …, byEnding, by, timeZone, groups, unknownCost, slowest, mostExpensive,
   * skipped, protocolErrors, notes }`; `skipped`, `protocolErrors` and `notes` name the first 100 files (notes: the
   * first 100 notes, each with its file), the counts count all. `groups` (for
   * every `by` but `ending`) is keyed and ordered as the table; with `breakdown` each group (and each ending of
   * `byEnding`) carries `models`. Costs: `totalUsd` is the known sum (reported + estimated) or `null` when no run
   * has a cost; `complete` is false when some run's cost is unknown.
   */
  toJSON(order: 'asc' | 'desc' = 'asc'): Record<string, unknown> {
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
        // null when no run of the group has a cost (or there is no run): unknown is not $0
        totalUsd: g.runsWithoutCost === g.runs ? null : usd(g.costUsd),
        reportedUsd: usd(g.reportedUsd),
        estimatedUsd: usd(g.estimatedUsd),
        complete: g.runsWithoutCost === 0 && g.runs > 0,
        runsWithoutCost: g.runsWithoutCost,
        runsWithEstimatedCost: g.runsWithEstimatedCost,
        estimated: g.runsWithEstimatedCost > 0,
      },
      toolCalls: g.toolCalls,
      turns: g.turns,
      durationMs: g.durationMs,
      firstActivity: g.firstActivity,
      lastActivity: g.lastActivity,
    })
    const withModels = (key: string, g: GroupTotals) => {
      const base: Record<string, unknown> = round(g)
      if (this.by === 'session') {
        const s = this.sessions.get(key)
        if (s !== undefined) Object.assign(base, { file: s.file, project: s.project, sessionId: s.sessionId })
      }
      if (this.opts.breakdown === true && this.by !== 'model') base['models'] = Object.fromEntries(this.modelRows(key).map(([m, mg]) => [m, round(mg)]))
      return base
    }
    const byEnding: Array<[string, unknown]> = []
    for (const k of endingKinds) {
      const g = this.byEnding.get(k)
      if (g !== undefined) byEnding.push([k, this.by === 'ending' ? withModels(k, g) : round(g)])
    }
    const o = this.opts
    const { runs, ...totals } = round(this.total)
    return {
      runs,
      files: this.files,
      filesRead: this.filesRead,
      filesSkipped: this.skippedCount,
      filesWithoutRuns: this.filesWithoutRuns,
      filesWithProtocolErrors: this.protocolErrorCount,
      filesWithNotes: this.filesWithNotes,
      ...totals,
      byEnding: Object.fromEntries(byEnding),
      by: this.by,
      timeZone: this.timeZone,
      ...(o.since !== undefined ? { since: o.since.text } : {}),
      ...(o.until !== undefined ? { until: o.until.text } : {}),
      ...(o.since !== undefined || o.until !== undefined ? { excluded: { ...this.excluded } } : {}),
      ...(this.by !== 'ending' ? { groups: Object.fromEntries(this.rows(order).map(([k, g]) => [k, withModels(k, g)])) } : {}),
      unknownCost: { byModel: Object.fromEntries([...this.unknownCost.entries()].sort(([, a], [, b]) => b - a)) },
      slowest: this.slowest,
      mostExpensive: this.mostExpensive,
      skipped: this.skipped,
      protocolErrors: this.protocolErrors,
      notes: this.notes,
    }
  }
}

/** USD as the report states it: to a millionth of a dollar. */
const usd = (x: number): number => roundUsd(x, 6)
