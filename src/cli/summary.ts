/**
 * The human summary of a run, as `replay` prints it without `--json`.
 * @module
 */
import type { RunEnding } from '../core/RunEnding.js'
import type { RunResult } from '../core/RunResult.js'

const n = (x: number): string => x.toLocaleString('en-US')

/** One line describing an ending: kind plus who/why. @since 0.1.0 */
export const describeEnding = (e: RunEnding): string => {
  switch (e.kind) {
    case 'answered':
      return 'answered'
    case 'cut_off':
      return `cut off (${e.finishReason})`
    case 'limit':
      return `limit: ${e.reason}${e.limit !== undefined ? ` (limit ${e.limit}${e.actual !== undefined && e.actual !== null ? `, reached ${e.actual}` : ''})` : ''}`
    case 'stopped':
      return `stopped by ${e.by}${e.reason !== undefined ? `: ${oneLine(e.reason, 80)}` : ''}`
    case 'suspended':
      return `suspended: waiting on ${e.pending.length} item${e.pending.length === 1 ? '' : 's'}${e.pending[0] !== undefined ? ` (${e.pending[0].kind}${e.pending[0].toolName !== undefined ? ` for ${e.pending[0].toolName}` : ''})` : ''}`
    case 'blocked':
      return `blocked${e.guardrail !== undefined ? ` by ${e.guardrail}` : ''}${e.phase !== undefined ? ` (${e.phase})` : ''}`
    case 'failed':
      return `failed: ${e.reason}${e.phase !== undefined ? ` in ${e.phase}` : ''}${e.error !== undefined ? ` — ${oneLine(e.error.message, 100)}` : ''}`
    case 'unfinished':
      return `unfinished${e.lastEventType !== undefined ? ` (last event: ${oneLine(e.lastEventType, 40)})` : ''}`
  }
}

/** Collapses whitespace and cuts a text to `max` characters. @since 0.1.0 */
export const oneLine = (s: string, max: number): string => {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > max ? `${t.slice(0, max - 1)}…` : t
}

/** A token/cost/duration line. @since 0.1.0 */
export const figures = (r: RunResult): string => {
  const u = r.usage
  const parts = [
    `${n(r.turns)} turn${r.turns === 1 ? '' : 's'}`,
    `${n(r.toolCalls)} tool call${r.toolCalls === 1 ? '' : 's'}`,
    `tokens in ${n(u.inputTokens)} · cache ${n(u.cacheReadTokens)}+${n(u.cacheWriteTokens)} · out ${n(u.outputTokens)}`,
    r.cost.totalUsd !== null ? `$${r.cost.totalUsd.toFixed(4)}${r.cost.estimated ? ' (est.)' : ''}` : r.cost.missing > 0 ? 'cost unknown' : '$0',
  ]
  if (r.durationMs !== null) parts.push(`${(r.durationMs / 1000).toFixed(1)} s`)
  if (r.diagnostics.length + r.diagnosticsDropped > 0) parts.push(`${r.diagnostics.length + r.diagnosticsDropped} diagnostics`)
  return parts.join(' · ')
}

/** The plain (uncoloured) multi-line summary of one run. @since 0.1.0 */
export const plainSummary = (r: RunResult, label: string): string => {
  const lines = [
    `${label}: ${describeEnding(r.ending)}${r.inferred ? ' (inferred)' : ''}  [${r.format}${r.finishReason !== null ? `, ${oneLine(r.finishReason, 40)}` : ''}]`,
  ]
  if (r.response !== null && r.response !== '') lines.push(`  “${oneLine(r.response, 160)}”`)
  lines.push(`  ${figures(r)}`)
  if (r.children.length > 0) lines.push(`  ${r.children.length} subagent${r.children.length === 1 ? '' : 's'}`)
  return `${lines.join('\n')}\n`
}
