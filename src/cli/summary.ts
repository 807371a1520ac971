/**
 * The human summary of a run, as `replay` and `watch` print it without `--json`: a header with the ending
 * (who/why), then aligned lines for the response excerpt, activity, tokens, cost, duration and diagnostics.
 * @module
 */
import type { RunEnding } from '../core/RunEnding.js'
import { NO_MODEL, type RunResult } from '../core/RunResult.js'
import { forTerminal } from './sanitize.js'
import { cut, textWidth, withoutLogExtension, wrapParts } from './stats/table.js'
import { makeStyle, type Style } from './style.js'

/** Thousands-separated integer. @since 0.1.0 */
export const num = (x: number): string => Math.round(x).toLocaleString('en-US')

/** `18.5M`, `651k`, `9,303`: a token count in at most 6 columns (stats' narrow tables, watch's narrow status line). */
export const shortNumber = (n: number): string => {
  if (n < 10_000) return num(n)
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 100_000 ? 1 : 0)}k`
  if (n < 1_000_000_000) return `${(n / 1e6).toFixed(n < 10_000_000 ? 2 : 1)}M`
  return `${(n / 1e9).toFixed(1)}B`
}

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

/**
 * A USD amount: two decimals from $1 up (`$9.97`), four below (`$0.0456`), so small runs do not read as $0.00.
 * @example usdText(9.9713) // => '$9.97'
 * @since 0.2.0
 */
export const usdText = (x: number): string => `$${Math.abs(x) >= 1 ? x.toFixed(2) : x.toFixed(4)}`

/**
 * `$0.0123` (reported), `~$0.0123 (estimated)`, or `unknown (3 unpriced responses)`: an estimate keeps its `~`
 * wherever a cost is printed.
 * @since 0.1.0
 */
export const costText = (r: RunResult): string => {
  if (r.cost.totalUsd === null) {
    const models = Object.keys(r.usage.byModel)
    if (models.length === 1 && models[0] === NO_MODEL && r.cost.missing > 0) return 'unknown (the log names no model to price)'
    return r.cost.missing > 0 ? `unknown (${r.cost.missing} unpriced response${r.cost.missing === 1 ? '' : 's'})` : 'unknown'
  }
  return r.cost.estimated ? `~$${r.cost.totalUsd.toFixed(4)} (estimated)` : `$${r.cost.totalUsd.toFixed(4)}`
}

/** `$0.0456`, `~$0.0932` (estimated) or `—` (unknown): a run's cost in a column. @since 0.2.0 */
export const shortCost = (r: RunResult): string => (r.cost.totalUsd === null ? '—' : `${r.cost.estimated ? '~' : ''}${usdText(r.cost.totalUsd)}`)

/** A source's terminal words that claim success (`success`, `completed`, `end_turn`, `stop`, …). */
const SUCCESS_WORDS =
  /^(success|succeeded|completed?|complete|end_turn|stop|done|finished|ok|turn\.completed|task_complete|turn_complete|response\.completed)$/i

/**
 * What the log's own terminal word says, as the `recorded as` row shows it: the word as written; when it claims
 * success but the run did not answer, the word and why it is not believed (SPEC §2 rule 4: an error flag, a
 * later error record or a stop outweighs the word).
 * @example recordedAs({ kind: 'failed', reason: 'provider_error' }, 'success') // => '“success”, not believed: the log also records an error (provider_error)'
 * @since 0.2.0
 */
export const recordedAs = (e: RunEnding, finishReason: string): string => {
  const word = oneLine(finishReason, 40)
  if (e.kind === 'answered' || e.kind === 'cut_off' || !SUCCESS_WORDS.test(finishReason.trim())) return word
  const because =
    e.kind === 'failed'
      ? `the log also records an error (${oneLine(e.reason, 30)})`
      : e.kind === 'stopped'
        ? `the run was stopped by ${oneLine(e.by, 20)}`
        : e.kind === 'blocked'
          ? 'a guardrail blocked the run'
          : e.kind === 'limit'
            ? `the run hit a limit (${oneLine(e.reason, 30)})`
            : e.kind === 'suspended'
              ? 'the run waits on an answer'
              : 'the run has no terminal record after its last activity'
  return `“${word}”, not believed: ${because}`
}

/** `12.3 s`, `2 min 5 s`, or `—`. @since 0.1.0 */
export const durationText = (ms: number | null): string => {
  if (ms === null || !Number.isFinite(ms)) return '—'
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`
  const m = Math.floor(ms / 60_000)
  return m < 60 ? `${m} min ${Math.round((ms % 60_000) / 1000)} s` : `${Math.floor(m / 60)} h ${m % 60} min`
}

/** `1,234 in · 5,678 cache read · 90 out` (tokens), or `none reported` when the log gave the run no usage. @since 0.1.0 */
export const tokensText = (r: RunResult): string => {
  const u = r.usage
  // no usage item at all (every reported one has a byModel entry, `unknown` when it names no model): not zero
  if (!reportsUsage(r)) return 'none reported'
  const parts = [`${num(u.inputTokens)} in`]
  if (u.cacheReadTokens > 0) parts.push(`${num(u.cacheReadTokens)} cache read`)
  if (u.cacheWriteTokens > 0) parts.push(`${num(u.cacheWriteTokens)} cache write`)
  parts.push(`${num(u.outputTokens)} out${u.reasoningTokens > 0 ? ` (${num(u.reasoningTokens)} reasoning)` : ''}`)
  return parts.join(' · ')
}

/** Whether the log reported any usage for the run (a usage item, even one of 0 tokens, names its model in `byModel`). */
const reportsUsage = (r: RunResult): boolean => {
  for (const _ in r.usage.byModel) return true
  return false
}

/** A one-line figure summary (for status lines and the plain fallback). @since 0.1.0 */
export const figures = (r: RunResult): string =>
  [
    `${num(r.turns)} turn${r.turns === 1 ? '' : 's'}`,
    `${num(r.toolCalls)} tool call${r.toolCalls === 1 ? '' : 's'}`,
    `${num(r.usage.inputTokens + r.usage.cacheReadTokens + r.usage.cacheWriteTokens)} in / ${num(r.usage.outputTokens)} out tokens`,
    r.cost.totalUsd === null ? 'cost unknown' : `${r.cost.estimated ? '~' : ''}$${r.cost.totalUsd.toFixed(4)}`,
  ].join(' · ')

/**
 * The multi-line, aligned summary of one run; coloured when `style` is enabled. With `width` (the output's
 * columns, see `outputWidth`) of 60 or more every line fits it (narrower, the rows keep a minimum room and may
 * pass it; the cost row is never cut): the label moves below a header that would not fit, and the
 * ending's words, the response excerpt and the first diagnostic are cut with `…` (the response at 120 columns
 * at most, whatever the width). The label (a path the user may need) is never cut; a terminal wraps it.
 * @since 0.1.0
 */
export const formatRun = (r: RunResult, label: string, style: Style = makeStyle(false), width?: number): string => {
  const k = r.ending.kind
  // the mark is one column wide except ⛔ (blocked), which a terminal draws in two
  const markWidth = k === 'blocked' ? 2 : 1
  const inferred = r.inferred ? ' (inferred)' : ''
  const where = `${forTerminal(label)} · ${forTerminal(r.format)}`
  let ending = describeEnding(r.ending)
  let header = `${style.mark(k)} ${style.ending(k, style.bold(ending))}${r.inferred ? style.dim(inferred) : ''}  ${style.dim(where)}`
  if (width !== undefined && markWidth + 1 + textWidth(ending) + inferred.length + 2 + textWidth(where) > width) {
    // the ending on its own line (cut to fit), the label below it
    ending = cut(ending, Math.max(10, width - markWidth - 1 - inferred.length), 'end')
    header = `${style.mark(k)} ${style.ending(k, style.bold(ending))}${r.inferred ? style.dim(inferred) : ''}\n  ${style.dim(where)}`
  }
  const rows: Array<readonly [string, (room: number) => string]> = []
  // the source's own terminal word, as written (it can say "success" next to an error flag: SPEC §2 rule 4)
  if (r.finishReason !== null) {
    const said = recordedAs(r.ending, r.finishReason)
    // why a word is not believed is the point of the line: it wraps under itself rather than being cut
    rows.push(['recorded as', (room) => style.dim(wrapParts(said.split(' '), room, '', ' '))])
  }
  if (r.response !== null && r.response !== '') {
    const response = r.response
    rows.push(['response', (room) => `“${cut(oneLine(response, 120), Math.min(120, room - 2), 'end')}”`])
  }
  if (r.ending.kind === 'suspended') {
    for (const p of r.ending.pending.slice(0, 3)) {
      const text = `${oneLine(p.kind, 20)} ${p.toolName !== undefined ? oneLine(p.toolName, 40) : ''}`
      rows.push(['pending', (room) => `${text} ${style.dim(cut(oneLine(p.id, 40), Math.max(8, room - textWidth(text) - 1), 'end'))}`.trim()])
    }
  }
  const activity = [`${num(r.turns)} turn${r.turns === 1 ? '' : 's'}`, `${num(r.toolCalls)} tool call${r.toolCalls === 1 ? '' : 's'}`]
  if (r.children.length > 0) activity.push(`${r.children.length} subagent${r.children.length === 1 ? '' : 's'}`)
  if (r.permissionDenials.length > 0) activity.push(`${r.permissionDenials.length} permission denial${r.permissionDenials.length === 1 ? '' : 's'}`)
  rows.push(['activity', (room) => wrapParts(activity, room)])
  const tokens = tokensText(r)
  rows.push(['tokens', (room) => wrapParts(tokens.split(' · '), room)])
  const cost = costText(r)
  rows.push(['cost', () => cost])
  const duration = durationText(r.durationMs)
  rows.push(['duration', () => duration])
  const diag = r.diagnostics.length + r.diagnosticsDropped
  const first = r.diagnostics[0]
  if (diag > 0)
    rows.push([
      'diagnostics',
      (room) => {
        if (first === undefined) return `${diag}`
        const head = `${diag} (first: ${first.line !== undefined ? `line ${first.line}: ` : ''}`
        const message = oneLine(first.message, 80)
        // the message cut so that the line, closing parenthesis included, fits
        return `${diag}${style.dim(` ${head.slice(`${diag} `.length)}${cut(message, Math.max(10, room - textWidth(head) - 1), 'end')})`)}`
      },
    ])
  const keyWidth = Math.max(...rows.map(([key]) => key.length))
  // room for a value: the width less the indent, the key column and the gap (unbounded without a width)
  const room = width === undefined ? Number.POSITIVE_INFINITY : Math.max(20, width - 2 - keyWidth - 2)
  // a value that breaks (parts joined by ` · `) continues under itself
  const below = `\n${' '.repeat(2 + keyWidth + 2)}`
  return `${header}\n${rows.map(([key, value]) => `  ${style.dim(key.padEnd(keyWidth))}  ${value(room).split('\n').join(below)}`).join('\n')}\n`
}

/** The uncoloured summary (kept for callers that want plain text). @since 0.1.0 */
export const plainSummary = (r: RunResult, label: string): string => formatRun(r, label)

/**
 * A `--brief` label (`PATH #n`) too long for `room` columns: the file's name with as many of its folders as fit,
 * whole, after `…/`; else the name alone; else the name without its extension (`claude-error #1`: cut from its
 * start, `.jsonl #1` told no two files apart); else that cut from its start (`…`), since the end of a rollout's or a
 * transcript's name is its id, which tells files apart.
 */
const labelWithin = (text: string, room: number): string => {
  const sep = Math.max(text.lastIndexOf('/'), text.lastIndexOf('\\'))
  const base = text.slice(sep + 1)
  let best: string | undefined
  for (let i = sep; i > 0; i = Math.max(text.lastIndexOf('/', i - 1), text.lastIndexOf('\\', i - 1))) {
    const tailText = `…${text.slice(i)}`
    if (textWidth(tailText) > room) break
    best = tailText
  }
  if (best !== undefined) return best
  if (textWidth(base) <= room) return base
  const bare = withoutLogExtension(base)
  return textWidth(bare) <= room ? bare : cut(bare, room, 'start')
}

/** A duration in at most 7 columns (`16.8 s`, `6m 15s`, `2h 05m`, `—`): a narrow `--brief` line's or table's. @since 0.3.0 */
export const shortDuration = (ms: number | null): string => {
  if (ms === null || !Number.isFinite(ms) || ms < 60_000) return durationText(ms)
  const s = Math.round(ms / 1000)
  const m = Math.floor(s / 60)
  return m < 60 ? `${m}m ${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`
}

/** The least room a `--brief` label keeps: below it, the other columns take their narrow form. */
const BRIEF_LABEL_MIN = 24

/**
 * One line per run for `replay --brief`: mark and ending kind, total tokens (every bucket: input, cache read,
 * cache write, output), cost (`~` estimated, `—` unknown), duration, then the run's label (`file #n`): when
 * `width` (terminal columns) is given and the label does not fit, the file's name without its folders, or without
 * its extension, or cut from its start, so the line never wraps. Where the columns would leave the label under
 * 24 columns (a terminal under 80), they take a narrow form (`75.5k tok`, less padding), so the label keeps room.
 * @example briefLine(run, 'examples/claude-code/claude.jsonl #1') // => '✔ answered        75,517 tok   $0.0456      16.8 s  examples/claude-code/claude.jsonl #1'
 * @since 0.2.0
 */
export const briefLine = (r: RunResult, label: string, style: Style = makeStyle(false), width?: number): string => {
  const k = r.ending.kind
  const u = r.usage
  // a run whose log reported no usage shows a dash, not 0 tokens
  const total = u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens
  const wide = `${k.padEnd(10)}  ${reportsUsage(r) ? `${num(total).padStart(11)} tok` : '—'.padStart(15)}  ${shortCost(r).padStart(9)}  ${durationText(r.durationMs).padStart(11)}  `
  // the mark is one column wide except ⛔ (blocked), which a terminal draws in two
  const markWidth = k === 'blocked' ? 2 : 1
  const narrow = width !== undefined && width - markWidth - 1 - wide.length < BRIEF_LABEL_MIN
  const fixed = narrow
    ? `${k.padEnd(10)} ${reportsUsage(r) ? `${shortNumber(total).padStart(6)} tok` : '—'.padStart(10)} ${shortCost(r).padStart(8)} ${shortDuration(r.durationMs).padStart(7)}  `
    : wide
  const text = forTerminal(label)
  const room = width === undefined ? undefined : width - markWidth - 1 - fixed.length
  const shown = room === undefined || textWidth(text) <= room ? text : room < 8 ? '' : labelWithin(text, room)
  const line =
    shown === ''
      ? `${style.mark(k)} ${style.ending(k, k.padEnd(10))}${fixed.slice(10).trimEnd()}`
      : `${style.mark(k)} ${style.ending(k, k.padEnd(10))}${fixed.slice(10)}${style.dim(shown)}`
  return `${line}\n`
}
