/**
 * Argument parsing shared by the commands (`node:util` `parseArgs`), with the checks every command makes
 * (`--format`, `--accept`) and error messages that say what to do next.
 * @module
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { endingKinds, isEndingKind, type EndingKind } from '../core/RunEnding.js'
import { FORMAT_NAMES } from '../formats/names.js'
import type { CliIO } from './io.js'
import { forTerminal } from './sanitize.js'

/** Options most commands take. @since 0.1.0 */
export const commonOptions = {
  format: { type: 'string' as const, default: 'auto' },
  json: { type: 'boolean' as const, default: false },
  accept: { type: 'string' as const, multiple: true as const, default: [] as Array<string> },
  help: { type: 'boolean' as const, short: 'h', default: false },
}

/** `--color` / `--no-color`, which every command takes (see {@link parseCommand}). @since 0.2.0 */
export const colorOption = { color: { type: 'boolean' as const } }

type Options = NonNullable<ParseArgsConfig['options']>
type Config<O extends Options> = { args: Array<string>; allowPositionals: true; allowNegative: true; strict: true; options: O & typeof colorOption }

/**
 * The `--color` / `--no-color` choice of the command last parsed for a stream, keyed by the stream object (so
 * {@link colorChoice} can answer for `io.stdout` / `io.stderr` without every command passing it on).
 */
const colorChoices = new WeakMap<object, boolean>()

/**
 * The `--color` (`true`) / `--no-color` (`false`) choice made for the command writing to `sink`, or `undefined`
 * when neither was given (then the environment decides: `style.ts` `colorEnabled`).
 * @since 0.2.0
 */
export const colorChoice = (sink: object): boolean | undefined => colorChoices.get(sink)

/**
 * Parses `argv` for `command`, or reports the error in our words (with a pointer to `--help`) and returns
 * `undefined`. Every command also takes `--color` / `--no-color`, and a boolean option `--x` can be turned off
 * with `--no-x` (`--no-estimate`). The colour choice is recorded for `io.stdout` and `io.stderr`.
 * @since 0.1.0
 */
export const parseCommand = <O extends Options>(
  command: string,
  argv: ReadonlyArray<string>,
  options: O,
  io: CliIO,
): ReturnType<typeof parseArgs<Config<O>>> | undefined => {
  const all = { ...colorOption, ...options } as O & typeof colorOption
  try {
    const parsed = parseArgs<Config<O>>({ args: [...argv], allowPositionals: true, allowNegative: true, strict: true, options: all })
    const color = (parsed.values as { color?: unknown }).color
    for (const sink of [io.stdout, io.stderr]) {
      if (typeof sink !== 'object' || sink === null) continue
      if (typeof color === 'boolean') colorChoices.set(sink, color)
      else colorChoices.delete(sink)
    }
    return parsed
  } catch (e) {
    reportArgumentError(command, e, argv, all, io)
    return undefined
  }
}

/**
 * Reports an error `parseArgs` threw for `command` (given `argv` and its `options`): one line in our words, then a
 * pointer to `--help`. Node's own message is never printed: it spans lines (`Option '--lease' argument is
 * ambiguous.` then two more), which the one-line sanitiser would show as literal `\n`. Commands that call
 * `parseArgs` themselves (`consume`) report through this too.
 * @since 0.3.0
 */
export const reportArgumentError = (command: string, e: unknown, argv: ReadonlyArray<string>, options: Options, io: CliIO): void => {
  io.stderr.write(`run-outcome ${command}: ${forTerminal(argumentProblem(e, argv, options))}\nTry 'run-outcome ${command} --help'.\n`)
}

/** Edit distance between two short strings (option names), for "did you mean". */
const distance = (a: string, b: string): number => {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    prev = row
  }
  return prev[b.length] as number
}

/**
 * `parseArgs`'s error in our words: an unknown option names the closest known one (Node's own text suggests
 * `--` for positionals, which is never what was meant here); an option without its value, with a value it does
 * not take, or whose value looks like an option, says so plainly. Node's raw message is never shown.
 */
const argumentProblem = (e: unknown, argv: ReadonlyArray<string>, options: Options): string => {
  const code = (e as { code?: unknown } | null)?.code
  const message = e instanceof Error ? e.message : ''
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    // Node: "Option '-f, --format <value>' argument missing" / "Option '--json' does not take an argument" /
    // "Option '--format' argument is ambiguous."
    const name = /--([A-Za-z0-9-]+)/.exec(message)?.[1]
    const shown = name !== undefined ? `--${name}` : 'an option'
    if (/argument missing/.test(message)) return `${shown} needs a value (e.g. ${shown} ${exampleValue(name)})`
    if (/does not take an argument/.test(message)) {
      // the negated form given a value (`--no-cache=1`): named as it was typed
      if (name !== undefined && argv.some((a) => a.startsWith(`--no-${name}=`))) return `--no-${name} takes no value (write --no-${name} alone)`
      return `${shown} takes no value (write ${shown} alone, or --no-${name ?? 'x'} to turn it off)`
    }
    if (/ambiguous/.test(message)) return `${shown} needs a value, and the next word starts with "-"; to give such a value write ${shown}=VALUE`
    return `${shown}: bad value`
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return 'this command takes no file or folder arguments'
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const longs = Object.keys(options)
    const shorts = new Map(Object.entries(options).flatMap(([k, o]) => (o.short !== undefined ? [[o.short, k] as const] : [])))
    const bad = argv.find((a) => {
      if (!a.startsWith('-') || a === '-' || a === '--') return false
      if (a.startsWith('--')) {
        const long = a.slice(2).split('=')[0] as string
        // --no-x turns a boolean option x off
        return !longs.includes(long) && !(long.startsWith('no-') && options[long.slice(3)]?.type === 'boolean')
      }
      return [...a.slice(1)].some((c) => !shorts.has(c))
    })
    const name = bad === undefined ? undefined : bad.startsWith('--') ? (bad.slice(2).split('=')[0] as string) : bad.slice(1)
    if (name !== undefined) {
      const negations = longs.filter((k) => options[k]?.type === 'boolean').map((k) => `no-${k}`)
      const best = [...longs, ...negations]
        .map((k) => ({ k, d: distance(name, k) }))
        .filter((x) => x.d <= Math.max(1, Math.floor(x.k.length / 3)) || (name.length >= 2 && x.k.startsWith(name)))
        .sort((x, y) => x.d - y.d)[0]
      const shown = bad?.startsWith('--') ? `--${name}` : `-${name}`
      return `unknown option ${forTerminal(shown.slice(0, 40))}${best !== undefined ? ` (did you mean --${best.k}?)` : ''}`
    }
    const named = /'([^']{1,40})'/.exec(message)?.[1]
    return `unknown option${named !== undefined ? ` ${forTerminal(named)}` : ''}`
  }
  return 'bad arguments'
}

/** An example value for an option that was given without one. */
const exampleValue = (name: string | undefined): string => {
  switch (name) {
    case 'format':
      return 'codex'
    case 'accept':
    case 'only':
      return 'cut_off'
    case 'by':
      return 'day'
    case 'since':
    case 'until':
      return '2025-09-24'
    case 'timezone':
      return 'Europe/Paris'
    case 'order':
      return 'desc'
    case 'prices':
      return 'prices.json'
    case 'jobs':
      return '4'
    case 'server':
      return 'nats://127.0.0.1:4222'
    default:
      return 'VALUE'
  }
}

/** `true` when `format` is `auto` or a known format; otherwise reports it. @since 0.1.0 */
export const checkFormat = (command: string, format: string, io: CliIO): boolean => {
  if (format === 'auto' || FORMAT_NAMES.includes(format)) return true
  io.stderr.write(`run-outcome ${command}: unknown --format "${forTerminal(format.slice(0, 40))}"; use auto or one of: ${FORMAT_NAMES.join(', ')}\n`)
  return false
}

/** The `--accept` kinds, or `undefined` after reporting a value that is not an ending kind. @since 0.1.0 */
export const checkAccept = (command: string, values: ReadonlyArray<string> | undefined, io: CliIO): Array<EndingKind> | undefined => {
  const out: Array<EndingKind> = []
  for (const a of values ?? []) {
    if (!isEndingKind(a)) {
      io.stderr.write(`run-outcome ${command}: --accept takes an ending kind (${endingKinds.join(', ')}), not "${forTerminal(a.slice(0, 40))}"\n`)
      return undefined
    }
    out.push(a)
  }
  return out
}
