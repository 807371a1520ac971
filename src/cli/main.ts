/**
 * The CLI entry function `main(argv, io)`: thin, streams injected, every failure an exit status (SPEC §1).
 * @module
 */
import { commands } from './commands.js'
import { EXIT, type CliIO } from './io.js'

const VERSION = '0.1.0'

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
      if (first === 'help' && rest[0] !== undefined && commands[rest[0]] !== undefined) return await (commands[rest[0]] as { run: (a: ReadonlyArray<string>, i: CliIO) => Promise<number> }).run(['--help'], io)
      io.stdout.write(mainHelp())
      return first === undefined ? EXIT.usage : EXIT.ok
    }
    if (first === '--version' || first === '-V') {
      io.stdout.write(`${VERSION}\n`)
      return EXIT.ok
    }
    const command = Object.hasOwn(commands, first) ? commands[first] : undefined
    if (command === undefined) {
      io.stderr.write(`run-outcome: unknown command "${first.slice(0, 40)}". Commands: ${Object.keys(commands).join(', ')}.\nTry 'run-outcome --help'.\n`)
      return EXIT.usage
    }
    return await command.run(rest, io)
  } catch (e) {
    io.stderr.write(`run-outcome: internal error: ${e instanceof Error ? e.message.slice(0, 200) : 'unknown'}\n`)
    return EXIT.usage
  }
}
