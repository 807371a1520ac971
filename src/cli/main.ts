/**
 * The CLI entry function `main(argv, io)`: thin, streams injected, every failure an exit status (SPEC §1).
 * @module
 */
import { readFileSync } from 'node:fs'
import { commands } from './commands.js'
import { EXIT, type CliIO } from './io.js'
import { forTerminal } from './sanitize.js'
import { fitHelp, helpWidth } from './helpText.js'

/** The package's version, read from its package.json (one source for `--version`). @since 0.2.0 */
export const VERSION: string = (() => {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' ? pkg.version : 'unknown'
  } catch {
    return 'unknown'
  }
})()

const commandOf = (name: string | undefined) => (name !== undefined && Object.hasOwn(commands, name) ? commands[name] : undefined)

/** Top-level help. @since 0.1.0 */
export const mainHelp = (): string => {
  const names = Object.keys(commands)
  const width = Math.max(...names.map((n) => n.length))
  return `run-outcome ${VERSION} — how did this agent run end, and what did it produce?

Usage: run-outcome <command> [options]

Commands:
${names.map((n) => `  ${n.padEnd(width)}  ${commands[n]?.summary ?? ''}`).join('\n')}

Run 'run-outcome <command> --help' for a command's options and examples.

Examples:
  run-outcome replay examples/claude-code/claude.jsonl
  run-outcome replay --json ~/.claude/projects
`
}

/**
 * Runs the CLI with `argv` (without `node` and the script) against injected streams, and resolves with the
 * exit status (0, 1, 2 or 3; SPEC §1). Never rejects: an unexpected failure is reported in one line on stderr
 * (no stack trace) with status 2.
 * @since 0.1.0
 */
export const main = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  try {
    const [first, ...rest] = argv
    if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
      if (first === 'help' && rest[0] !== undefined) {
        const c = commandOf(rest[0])
        if (c !== undefined) return await c.run(['--help'], io)
        io.stderr.write(`run-outcome: unknown command "${forTerminal(rest[0].slice(0, 40))}". Commands: ${Object.keys(commands).join(', ')}.\n`)
        return EXIT.usage
      }
      io.stdout.write(fitHelp(mainHelp(), helpWidth(io.stdout, io.env)))
      return first === undefined ? EXIT.usage : EXIT.ok
    }
    // --version / -v / -V, alone or after a command (`run-outcome replay --version`)
    if (
      first === '--version' ||
      first === '-V' ||
      first === '-v' ||
      (rest.length === 1 && (rest[0] === '--version' || rest[0] === '-v') && commandOf(first) !== undefined)
    ) {
      io.stdout.write(`${VERSION}\n`)
      return EXIT.ok
    }
    const command = commandOf(first)
    if (command === undefined) {
      // an option before any command (`run-outcome --json file`) is not a command name
      const what = first.startsWith('-')
        ? `an option before a command: "${forTerminal(first.slice(0, 40))}"`
        : `unknown command "${forTerminal(first.slice(0, 40))}"`
      io.stderr.write(`run-outcome: ${what}. Commands: ${Object.keys(commands).join(', ')}.\nTry 'run-outcome --help'.\n`)
      return EXIT.usage
    }
    return await command.run(rest, io)
  } catch (e) {
    io.stderr.write(`run-outcome: internal error: ${e instanceof Error ? forTerminal(String(e.message).slice(0, 200)) : 'unknown'}\n`)
    return EXIT.usage
  }
}
