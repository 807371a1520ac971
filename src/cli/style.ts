/**
 * Terminal styling with Node's own `util.styleText`: colours only when the stream is a TTY and `NO_COLOR` is
 * not set (https://no-color.org), or when `FORCE_COLOR` is set; `--color` / `--no-color` override both.
 * @module
 */
import { styleText } from 'node:util'
import type { EndingKind } from '../core/RunEnding.js'
import { colorChoice } from './args.js'
import type { CliIO, TextSink } from './io.js'

type Format = Parameters<typeof styleText>[0]

/** A set of styling functions; all identity when colour is off. @since 0.1.0 */
export interface Style {
  readonly enabled: boolean
  readonly paint: (format: Format, text: string) => string
  readonly dim: (text: string) => string
  readonly bold: (text: string) => string
  readonly ending: (kind: EndingKind, text: string) => string
  readonly mark: (kind: EndingKind) => string
}

/**
 * `true` when colour should be used on `sink`: the command's `--color` / `--no-color` first (recorded by
 * `parseCommand` for `io.stdout` and `io.stderr`, or passed as `choice`), then `NO_COLOR` (off), `FORCE_COLOR`
 * (on unless `0`), then whether the sink is a terminal (and `TERM` is not `dumb`).
 * @since 0.1.0
 */
export const colorEnabled = (sink: TextSink, env: CliIO['env'], choice: boolean | undefined = colorChoice(sink)): boolean => {
  if (choice !== undefined) return choice
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return false
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0') return true
  return sink.isTTY === true && env['TERM'] !== 'dumb'
}

const endingColor: Readonly<Record<EndingKind, Format>> = {
  answered: 'green',
  cut_off: 'yellow',
  limit: 'yellow',
  stopped: 'magenta',
  suspended: 'cyan',
  blocked: 'red',
  failed: 'red',
  unfinished: 'gray',
}

const endingMark: Readonly<Record<EndingKind, string>> = {
  answered: '✔',
  cut_off: '✂',
  limit: '⏱',
  stopped: '■',
  suspended: '⏸',
  blocked: '⛔',
  failed: '✖',
  unfinished: '…',
}

/** Styling for one output stream. @since 0.1.0 */
export const makeStyle = (enabled: boolean): Style => {
  const paint = (format: Format, text: string): string => (enabled ? styleText(format, text, { validateStream: false }) : text)
  return {
    enabled,
    paint,
    dim: (t) => paint('dim', t),
    bold: (t) => paint('bold', t),
    ending: (kind, t) => paint(endingColor[kind], t),
    mark: (kind) => paint(endingColor[kind], endingMark[kind]),
  }
}
