/**
 * The CLI's commands. Each command lives in its own module; add one line here per command.
 * @module
 */
import type { CliIO } from './io.js'
import { replayCommand } from './replayCommand.js'
import { statsCommand } from './statsCommand.js'
import { watchCommand } from './watchCommand.js'

/** A CLI command: a one-line summary for `--help` and its entry function (returns the exit status, never throws). @since 0.1.0 */
export interface Command {
  readonly summary: string
  readonly run: (argv: ReadonlyArray<string>, io: CliIO) => Promise<number>
}

/** Every command by name. @since 0.1.0 */
export const commands: Readonly<Record<string, Command>> = {
  replay: { summary: 'replay recorded logs and print how each run ended', run: replayCommand },
  consume: { summary: 'fold agent sessions from NATS JetStream into a KV bucket (scale-out worker)', run: async (argv, io) => (await import('./consumeCommand.js')).consumeCommand(argv, io) },
  watch: { summary: 'follow a live agent stream; print each run as it ends', run: watchCommand },
  stats: { summary: 'summarise how the runs under some paths ended and what they cost', run: statsCommand },
  // commands: add one line per command
}
