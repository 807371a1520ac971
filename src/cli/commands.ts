/**
 * The CLI's commands. Each command lives in its own module, loaded only when it runs (start-up stays short:
 * `stats` alone needs the table and progress libraries, `consume` the NATS clients). Add one line per command.
 * @module
 */
import type { CliIO } from './io.js'

/** A CLI command: a one-line summary for `--help` and its entry function (returns the exit status, never throws). @since 0.1.0 */
export interface Command {
  readonly summary: string
  readonly run: (argv: ReadonlyArray<string>, io: CliIO) => Promise<number>
}

/** Every command by name. @since 0.1.0 */
export const commands: Readonly<Record<string, Command>> = {
  replay: {
    summary: 'replay recorded logs and print how each run ended',
    run: async (argv, io) => (await import('./replayCommand.js')).replayCommand(argv, io),
  },
  watch: {
    summary: 'follow a live agent stream; print each run as it ends',
    run: async (argv, io) => (await import('./watchCommand.js')).watchCommand(argv, io),
  },
  events: {
    summary: 'print a log of any format as native events, one JSON object per line',
    run: async (argv, io) => (await import('./eventsCommand.js')).eventsCommand(argv, io),
  },
  stats: {
    summary: 'summarise how the runs under some paths ended and what they cost',
    run: async (argv, io) => (await import('./statsCommand.js')).statsCommand(argv, io),
  },
  consume: {
    summary: 'fold agent sessions from NATS JetStream into a KV bucket (scale-out worker)',
    run: async (argv, io) => (await import('./consumeCommand.js')).consumeCommand(argv, io),
  },
  // commands: add one line per command
}
