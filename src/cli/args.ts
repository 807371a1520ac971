/**
 * Argument parsing shared by the commands (`node:util` `parseArgs`), with the checks every command makes
 * (`--format`, `--accept`) and error messages that say what to do next.
 * @module
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { endingKinds, isEndingKind, type EndingKind } from '../core/RunEnding.js'
import { formats } from '../formats/index.js'
import type { CliIO } from './io.js'

/** Options most commands take. @since 0.1.0 */
export const commonOptions = {
  format: { type: 'string' as const, default: 'auto' },
  json: { type: 'boolean' as const, default: false },
  accept: { type: 'string' as const, multiple: true as const, default: [] as Array<string> },
  help: { type: 'boolean' as const, short: 'h', default: false },
}

type Options = NonNullable<ParseArgsConfig['options']>
type Config<O extends Options> = { args: Array<string>; allowPositionals: true; strict: true; options: O }

/** Parses `argv` for `command`, or reports the error (with a pointer to `--help`) and returns `undefined`. @since 0.1.0 */
export const parseCommand = <O extends Options>(
  command: string,
  argv: ReadonlyArray<string>,
  options: O,
  io: CliIO,
): ReturnType<typeof parseArgs<Config<O>>> | undefined => {
  try {
    return parseArgs<Config<O>>({ args: [...argv], allowPositionals: true, strict: true, options })
  } catch (e) {
    io.stderr.write(`run-outcome ${command}: ${argumentProblem(e, argv, options)}\nTry 'run-outcome ${command} --help'.\n`)
    return undefined
  }
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
 * `--` for positionals, which is never what was meant here); other errors keep Node's message.
 */
const argumentProblem = (e: unknown, argv: ReadonlyArray<string>, options: Options): string => {
  const code = (e as { code?: unknown } | null)?.code
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const longs = Object.keys(options)
    const shorts = new Map(Object.entries(options).flatMap(([k, o]) => (o.short !== undefined ? [[o.short, k] as const] : [])))
    const bad = argv.find((a) => {
      if (!a.startsWith('-') || a === '-' || a === '--') return false
      if (a.startsWith('--')) return !longs.includes(a.slice(2).split('=')[0] as string)
      return [...a.slice(1)].some((c) => !shorts.has(c))
    })
    const name = bad === undefined ? undefined : bad.startsWith('--') ? (bad.slice(2).split('=')[0] as string) : bad.slice(1)
    if (name !== undefined) {
      const best = longs
        .map((k) => ({ k, d: distance(name, k) }))
        .filter((x) => x.d <= Math.max(1, Math.floor(x.k.length / 3)) || (name.length >= 2 && x.k.startsWith(name)))
        .sort((x, y) => x.d - y.d)[0]
      const shown = bad?.startsWith('--') ? `--${name}` : `-${name}`
      return `unknown option ${shown.slice(0, 40)}${best !== undefined ? ` (did you mean --${best.k}?)` : ''}`
    }
  }
  return e instanceof Error ? e.message : 'bad arguments'
}

/** `true` when `format` is `auto` or a known format; otherwise reports it. @since 0.1.0 */
export const checkFormat = (command: string, format: string, io: CliIO): boolean => {
  if (format === 'auto' || formats.some((f) => f.name === format)) return true
  io.stderr.write(`run-outcome ${command}: unknown --format "${format.slice(0, 40)}"; use auto or one of: ${formats.map((f) => f.name).join(', ')}\n`)
  return false
}

/** The `--accept` kinds, or `undefined` after reporting a value that is not an ending kind. @since 0.1.0 */
export const checkAccept = (command: string, values: ReadonlyArray<string> | undefined, io: CliIO): Array<EndingKind> | undefined => {
  const out: Array<EndingKind> = []
  for (const a of values ?? []) {
    if (!isEndingKind(a)) {
      io.stderr.write(`run-outcome ${command}: --accept takes an ending kind (${endingKinds.join(', ')}), not "${a.slice(0, 40)}"\n`)
      return undefined
    }
    out.push(a)
  }
  return out
}
