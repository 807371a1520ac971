/**
 * The human summary of a run, as `replay` and `watch` print it without `--json`: a header with the ending
 * (who/why), then aligned lines for the response excerpt, activity, tokens, cost, duration and diagnostics.
 * @module
 */
import type { RunEnding } from '../core/RunEnding.js'
import type { RunResult } from '../core/RunResult.js'
import { forTerminal } from './sanitize.js'
import { makeStyle, type Style } from './style.js'

/** Thousands-separated integer. @since 0.1.0 */
export const num = (x: number): string => Math.round(x).toLocaleString('en-US')

/** Collapses whitespace (and control characters) and cuts a text to `max` characters. @since 0.1.0 */
export const oneLine = (s: string, max: number): string => {
  // whitespace runs collapse; every other control is shown as an escape (cli/sanitize.ts)
  const t = forTerminal(s.replace(/[\t\n\r\f\v ]+/g, ' ').trim())
  return t.length > max ? `${t.slice(0, max - 1)}…` : t
}

/** One line describing an ending: kind plus who/why. @since 0.1.0 */
export const describeEnding = (e: RunEnding): string => {
  switch (e.kind) {
    case 'answered':
      return 'answered'
    case 'cut_off':
      return `cut off: ${oneLine(e.finishReason, 40)}`
    case 'limit': {
      const figures = e.limit !== undefined ? ` (limit ${e.limit}${e.actual !== undefined && e.actual !== null ? `, reached ${e.actual}` : ''})` : ''
      return `limit: ${oneLine(e.reason, 40)}${figures}`
    }
    case 'stopped':
      return `stopped by ${oneLine(e.by, 20)}${e.reason !== undefined ? `: ${oneLine(e.reason, 80)}` : ''}`
    case 'suspended': {
      const first = e.pending[0]
      const what = first === undefined ? '' : ` (${oneLine(first.kind, 20)}${first.toolName !== undefined ? ` for ${oneLine(first.toolName, 40)}` : ''})`
      return `suspended: waiting on ${e.pending.length} item${e.pending.length === 1 ? '' : 's'}${what}`
    }
    case 'blocked':
      return `blocked${e.guardrail !== undefined ? ` by ${oneLine(e.guardrail, 40)}` : ''}${e.phase !== undefined ? ` (${e.phase})` : ''}${e.reason !== undefined ? `: ${oneLine(e.reason, 80)}` : ''}`
    case 'failed':
      return `failed: ${oneLine(e.reason, 30)}${e.phase !== undefined ? ` in ${oneLine(e.phase, 20)}` : ''}${e.error !== undefined ? ` — ${oneLine(e.error.message, 100)}` : ''}`
    case 'unfinished':
      return `unfinished${e.lastEventType !== undefined ? ` (last record: ${oneLine(e.lastEventType, 40)})` : ''}`
  }
}

/** `$0.0123`, `cost unknown (3 unpriced)`, or `$0.0123 (est.)`. @since 0.1.0 */
export const costText = (r: RunResult): string => {
  if (r.cost.totalUsd === null) return r.cost.missing > 0 ? `unknown (${r.cost.missing} unpriced response${r.cost.missing === 1 ? '' : 's'})` : 'unknown'
  return `$${r.cost.totalUsd.toFixed(4)}${r.cost.estimated ? ' (estimated)' : ''}`
}

/** `12.3 s`, `2 min 5 s`, or `—`. @since 0.1.0 */
export const durationText = (ms: number | null): string => {
  if (ms === null || !Number.isFinite(ms)) return '—'
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const m = Math.floor(ms / 60_000)
  return m < 60 ? `${m} min ${Math.round((ms % 60_000) / 1000)} s` : `${Math.floor(m / 60)} h ${m % 60} min`
}

/** `1,234 in · 5,678 cache read · 90 out`. @since 0.1.0 */
export const tokensText = (r: RunResult): string => {
  const u = r.usage
  const parts = [`${num(u.inputTokens)} in`]
  if (u.cacheReadTokens > 0) parts.push(`${num(u.cacheReadTokens)} cache read`)
  if (u.cacheWriteTokens > 0) parts.push(`${num(u.cacheWriteTokens)} cache write`)
  parts.push(`${num(u.outputTokens)} out${u.reasoningTokens > 0 ? ` (${num(u.reasoningTokens)} reasoning)` : ''}`)
  return parts.join(' · ')
}

/** A one-line figure summary (for status lines and the plain fallback). @since 0.1.0 */
export const figures = (r: RunResult): string =>
  [
    `${num(r.turns)} turn${r.turns === 1 ? '' : 's'}`,
    `${num(r.toolCalls)} tool call${r.toolCalls === 1 ? '' : 's'}`,
    `${num(r.usage.inputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens)} in / ${num(r.usage.outputTokens)} out tokens`,
    r.cost.totalUsd === null ? 'cost unknown' : `$${r.cost.totalUsd.toFixed(4)}`,
  ].join(' · ')

/**
 * The multi-line, aligned summary of one run; coloured when `style` is enabled.
 * @since 0.1.0
 */
export const formatRun = (r: RunResult, label: string, style: Style = makeStyle(false)): string => {
  const k = r.ending.kind
  const header = `${style.mark(k)} ${style.ending(k, style.bold(describeEnding(r.ending)))}${r.inferred ? style.dim(' (inferred)') : ''}  ${style.dim(`${label} · ${r.format}`)}`
  const rows: Array<[string, string]> = []
  // the source's own terminal word, as written (it can say "success" next to an error flag: SPEC §2 rule 4)
  if (r.finishReason !== null) rows.push(['recorded as', style.dim(oneLine(r.finishReason, 60))])
  if (r.response !== null && r.response !== '') rows.push(['response', `“${oneLine(r.response, 120)}”`])
  if (r.ending.kind === 'suspended') {
    for (const p of r.ending.pending.slice(0, 3)) rows.push(['pending', `${oneLine(p.kind, 20)} ${p.toolName !== undefined ? oneLine(p.toolName, 40) : ''} ${style.dim(oneLine(p.id, 40))}`.trim()])
  }
  const activity = [`${num(r.turns)} turn${r.turns === 1 ? '' : 's'}`, `${num(r.toolCalls)} tool call${r.toolCalls === 1 ? '' : 's'}`]
  if (r.children.length > 0) activity.push(`${r.children.length} subagent${r.children.length === 1 ? '' : 's'}`)
  if (r.permissionDenials.length > 0) activity.push(`${r.permissionDenials.length} permission denial${r.permissionDenials.length === 1 ? '' : 's'}`)
  rows.push(['activity', activity.join(' · ')])
  rows.push(['tokens', tokensText(r)])
  rows.push(['cost', costText(r)])
  rows.push(['duration', durationText(r.durationMs)])
  const diag = r.diagnostics.length + r.diagnosticsDropped
  if (diag > 0) rows.push(['diagnostics', `${diag}${r.diagnostics[0] !== undefined ? style.dim(` (first: ${r.diagnostics[0].line !== undefined ? `line ${r.diagnostics[0].line}: ` : ''}${oneLine(r.diagnostics[0].message, 80)})`) : ''}`])
  const width = Math.max(...rows.map(([key]) => key.length))
  return `${header}\n${rows.map(([key, v]) => `  ${style.dim(key.padEnd(width))}  ${v}`).join('\n')}\n`
}

/** The uncoloured summary (kept for callers that want plain text). @since 0.1.0 */
export const plainSummary = (r: RunResult, label: string): string => formatRun(r, label)
