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
    io.stderr.write(`run-outcome ${command}: ${e instanceof Error ? e.message : 'bad arguments'}\nTry 'run-outcome ${command} --help'.\n`)
    return undefined
  }
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
