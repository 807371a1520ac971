/**
 * What `stats` keeps of each run (a few numbers, never the run's text), and how it reads one file into them.
 * Shared by the in-process path and the worker threads.
 * @module
 */
import { createReadStream } from 'node:fs'
import type { EndingKind } from '../../core/RunEnding.js'
import { isProtocolError } from '../../core/ProtocolError.js'
import { estimateCost, type PriceTable } from '../../core/prices.js'
import type { RunResult } from '../../core/RunResult.js'
import { subagentFilesOf } from '../../node/claudeSubagents.js'
import { ReplayError, replayFile, replayStream } from '../../node/replay.js'
import { describeEnding } from '../summary.js'

/** Tokens and cost of one model in one run. @since 0.1.0 */
export interface ModelRecord {
  readonly model: string
  readonly inputTokens: number
  readonly cacheReadTokens: number
  readonly cacheWriteTokens: number
  readonly outputTokens: number
  readonly costUsd: number | null
}

/** One run, as `stats` aggregates it. @since 0.1.0 */
export interface RunRecord {
  readonly file: string
  readonly index: number
  readonly format: string
  readonly kind: EndingKind
  readonly detail: string
  readonly success: boolean
  readonly turns: number
  readonly toolCalls: number
  readonly inputTokens: number
  readonly cacheReadTokens: number
  readonly cacheWriteTokens: number
  readonly outputTokens: number
  readonly reasoningTokens: number
  readonly costUsd: number | null
  readonly estimated: boolean
  readonly durationMs: number | null
  readonly day: string | null
  readonly models: ReadonlyArray<ModelRecord>
}

/** The outcome of reading one file. @since 0.1.0 */
export type FileOutcome =
  | { readonly file: string; readonly ok: true; readonly format: string; readonly runs: ReadonlyArray<RunRecord>; readonly protocolError?: string }
  | { readonly file: string; readonly ok: false; readonly why: 'undetected' | 'unreadable' | 'too-large' | 'not-json'; readonly message: string }

/** Projects a run to its record (applying the price table to missing costs). @since 0.1.0 */
export const toRecord = (r: RunResult, file: string, index: number, accept: ReadonlyArray<EndingKind>, prices?: PriceTable): RunRecord => {
  const run = prices !== undefined ? estimateCost(r, prices) : r
  const u = run.usage
  return {
    file,
    index,
    format: run.format,
    kind: run.ending.kind,
    detail: describeEnding(run.ending),
    success: run.ending.kind === 'answered' || accept.includes(run.ending.kind),
    turns: run.turns,
    toolCalls: run.toolCalls,
    inputTokens: u.inputTokens,
    cacheReadTokens: u.cacheReadTokens,
    cacheWriteTokens: u.cacheWriteTokens,
    outputTokens: u.outputTokens,
    reasoningTokens: u.reasoningTokens,
    costUsd: run.cost.totalUsd,
    estimated: run.cost.estimated === true,
    durationMs: run.durationMs,
    day: run.startedAt !== null ? run.startedAt.slice(0, 10) : null,
    models: Object.entries(u.byModel).map(([model, m]) => ({
      model,
      inputTokens: m.inputTokens,
      cacheReadTokens: m.cacheReadTokens,
      cacheWriteTokens: m.cacheWriteTokens,
      outputTokens: m.outputTokens,
      costUsd: m.costUsd,
    })),
  }
}

/** Reads one log file into run records. Never throws. @since 0.1.0 */
export const readFileRecords = async (
  file: string,
  format: string,
  accept: ReadonlyArray<EndingKind>,
  prices?: PriceTable,
): Promise<FileOutcome> => {
  const runs: Array<RunRecord> = []
  try {
    if ((await subagentFilesOf(file).catch(() => [])).length > 0) {
      // a Claude Code session with subagent files: read them with it (they make no runs of their own)
      const all = await replayFile(file, { format })
      return { file, ok: true, format: all[0]?.format ?? format, runs: all.map((r, i) => toRecord(r, file, i + 1, accept, prices)) }
    }
    const outcome = await replayStream(createReadStream(file, { highWaterMark: 256 * 1024 }), (r) => runs.push(toRecord(r, file, runs.length + 1, accept, prices)), {
      format,
      file,
    })
    return outcome.error !== undefined
      ? { file, ok: true, format: outcome.format, runs, protocolError: outcome.error.message }
      : { file, ok: true, format: outcome.format, runs }
  } catch (e) {
    if (isProtocolError(e)) return { file, ok: true, format, runs, protocolError: e.message }
    if (e instanceof ReplayError) {
      const why = e.code === 'too-large' ? 'too-large' : e.code === 'not-json' ? 'not-json' : 'undetected'
      return { file, ok: false, why, message: e.message }
    }
    return { file, ok: false, why: 'unreadable', message: `cannot read ${file}` }
  }
}
