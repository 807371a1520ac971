/**
 * `run-outcome events [FILE|DIR|-]… [--format F]`: a log of any format as native `SessionEvent`s (SPEC §4,
 * protocol 2), one JSON object per line — the normalised stream that can be stored, diffed or sent on, and that
 * `replay --format native` folds to the same runs as the original.
 * @module
 */
import { fileChunks, ReadBuffer } from '../node/fileChunks.js'
import { stat } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { SessionEvent } from '../core/events.js'
import { isProtocolError } from '../core/ProtocolError.js'
import { formats } from '../formats/index.js'
import { subagentFilesOfSync } from '../node/claudeSubagentFiles.js'
import { LINE_CAP_TEXT } from '../io/lines.js'
import { ALREADY_READ, listLogPaths } from '../node/files.js'
import { EMPTY_INPUT_NOTE, FILE_CHUNK_BYTES, ReplayError, replayStream } from '../node/replay.js'
import { checkFormat, parseCommand } from './args.js'
import { EXIT, safeJson, worst, type CliIO } from './io.js'
import { forTerminal } from './sanitize.js'
import { fitHelp, helpWidth } from './helpText.js'

/** Help text of `events`. @since 0.2.0 */
export const eventsHelp = (): string => `Usage: run-outcome events [FILE|DIR|-]... [options]

Prints a log of any format as run-outcome's native events (SPEC §4), one JSON object per
line: what the log's records state, in one vocabulary. Each event keeps the line of the
record it came from ("line"; 0 for a run boundary stated between records) and the
record's own type ("recordType"). 'run-outcome replay --format native' of this output
gives the same runs as replaying the original, with one exception: a Claude Code
session's subagent files (<session>/subagents/*.jsonl) are attached by 'replay' after
the fold; 'events' prints the session file's own records and says on stderr when such
files exist (give them as inputs to see their events).

Inputs: files (also .gz), directories (every log under them, in order), or - for
standard input (the default when no input is given).
A line over the line cap (${LINE_CAP_TEXT}) is skipped with a
note naming its line and size, never parsed: memory stays bounded by the cap.

Options:
  --format F    auto (default) or one of: ${formats.map((f) => f.name).join(', ')}
  -h, --help    show this help

Exit status: 0 the input was read; 2 usage error, unreadable file or undetectable format;
3 protocol error (a malformed native log: the events before it are printed).

Examples:
  run-outcome events examples/claude-code/claude.jsonl
  run-outcome events examples/codex/stream-output-2.jsonl | run-outcome replay --format native -
`

/** The event as a JSON line: the envelope in a fixed order, with the record's line when the event has none. */
/** A session file's subagent files; none when their folder cannot be listed (the note is only a pointer). */
const listedSubagents = (file: string): ReadonlyArray<string> => {
  try {
    return subagentFilesOfSync(file)
  } catch {
    return []
  }
}

const lineOf = (ev: SessionEvent, line: number | undefined): string => {
  const out: Record<string, unknown> = { type: ev.type, sessionId: ev.sessionId }
  if (ev.seq !== undefined) out['seq'] = ev.seq
  if (ev.time !== undefined) out['time'] = ev.time
  const l = ev.line ?? line
  if (l !== undefined) out['line'] = l
  if (ev.recordType !== undefined) out['recordType'] = ev.recordType
  out['data'] = ev.data
  return `${safeJson(out)}\n`
}

/** Runs `events`; returns the exit status. Never throws. @since 0.2.0 */
export const eventsCommand = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  const parsed = parseCommand(
    'events',
    argv,
    { format: { type: 'string' as const, default: 'auto' }, help: { type: 'boolean' as const, short: 'h', default: false } },
    io,
  )
  if (parsed === undefined) return EXIT.usage
  if (parsed.values.help) {
    io.stdout.write(fitHelp(eventsHelp(), helpWidth(io.stdout, io.env)))
    return EXIT.ok
  }
  const format = parsed.values.format ?? 'auto'
  if (!checkFormat('events', format, io)) return EXIT.usage
  const inputs = parsed.positionals.length > 0 ? parsed.positionals : ['-']
  if (parsed.positionals.length === 0 && io.stdin.isTTY === true) {
    io.stderr.write(`run-outcome events: no input. Give a log file or directory, or pipe a log into standard input.\nTry 'run-outcome events --help'.\n`)
    return EXIT.usage
  }
  let code: number = EXIT.ok
  const seen = new Set<string>()
  for (const input of inputs) code = worst(code, await eventsInput(input, format, io, seen))
  return code
}

/** One input; `seen` holds the files (`dev:ino`) printed so far, so one reached again through another path is printed once. */
const eventsInput = async (input: string, format: string, io: CliIO, seen: Set<string>): Promise<number> => {
  if (input === '-') return eventsOne(io.stdin, '-', null, format, io, true)
  let isDir = false
  try {
    const st = await stat(input)
    isDir = st.isDirectory()
    if (!isDir) {
      if (seen.has(`${st.dev}:${st.ino}`)) {
        io.stderr.write(`run-outcome events: skipped ${forTerminal(input)}: ${ALREADY_READ}\n`)
        return EXIT.ok
      }
      seen.add(`${st.dev}:${st.ino}`)
    }
  } catch (e) {
    io.stderr.write(
      `run-outcome events: cannot read ${forTerminal(input)}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : 'not readable'}\n`,
    )
    return EXIT.usage
  }
  if (!isDir) return eventsOne(fileChunks(input, { chunkBytes: FILE_CHUNK_BYTES }), input, input, format, io, true)
  let again = 0
  const skipped = (p: string, why: string): void => {
    io.stderr.write(`run-outcome events: skipped ${forTerminal(p)}: ${forTerminal(why)}\n`)
  }
  const files = await listLogPaths(input, skipped, {
    seen,
    onDuplicate: (p) => {
      again++
      skipped(p, ALREADY_READ)
    },
  })
  if (files.length === 0 && again > 0) return EXIT.ok
  if (files.length === 0) {
    io.stderr.write(`run-outcome events: no log files under ${forTerminal(input)}\n`)
    return EXIT.usage
  }
  let code: number = EXIT.ok
  const read = { files: 0 }
  // the files are read one after another, into one buffer
  const readBuffer = new ReadBuffer()
  for (const f of files)
    code = worst(code, await eventsOne(fileChunks(f.path, { chunkBytes: FILE_CHUNK_BYTES, reuse: readBuffer }), f.label, f.label, format, io, false, read))
  if (read.files === 0) {
    // every file was skipped: nothing was read, an input error as in replay and stats, not an empty success
    io.stderr.write(
      `run-outcome events: none of the ${files.length} file(s) under ${forTerminal(input)} could be read as a log; name the format with --format if they are one\n`,
    )
    return worst(code, EXIT.usage)
  }
  return code
}

const eventsOne = async (
  source: AsyncIterable<Uint8Array | string>,
  rawLabel: string,
  file: string | null,
  format: string,
  io: CliIO,
  named: boolean,
  read: { files: number } = { files: 0 },
): Promise<number> => {
  const label = forTerminal(rawLabel)
  try {
    const outcome = await replayStream(source, () => {}, { format, file, onEvent: (ev, line) => io.stdout.write(lineOf(ev, line)) })
    read.files++
    // events prints no runs: the empty input's note says what was printed instead
    for (const note of outcome.notes)
      io.stderr.write(
        `run-outcome events: ${label}: ${note === EMPTY_INPUT_NOTE ? 'the input holds no records (empty or blank): no events' : forTerminal(note)}\n`,
      )
    if (file !== null && outcome.format === 'claude-code') {
      // listed synchronously, as replay and stats do: a listing through the thread pool costs far more per file
      const sub = listedSubagents(file)
      if (sub.length > 0)
        io.stderr.write(
          `run-outcome events: ${label}: note: ${sub.length} subagent file${sub.length === 1 ? '' : 's'} beside it (${forTerminal(dirname(sub[0] as string))}) not printed; replay attaches them as children\n`,
        )
    }
    if (outcome.error !== undefined) {
      io.stderr.write(`run-outcome events: protocol error: ${forTerminal(outcome.error.message)}\n`)
      return EXIT.protocol
    }
    return EXIT.ok
  } catch (e) {
    if (isProtocolError(e)) {
      read.files++
      io.stderr.write(`run-outcome events: protocol error: ${forTerminal(e.message)}\n`)
      return EXIT.protocol
    }
    if (e instanceof ReplayError) {
      if (e.code === 'undetected' && !named) {
        io.stderr.write(`run-outcome events: skipped ${label}: format not recognised\n`)
        return EXIT.ok
      }
      io.stderr.write(`run-outcome events: ${forTerminal(e.message)}\n`)
      return EXIT.usage
    }
    const err = e as NodeJS.ErrnoException
    const why = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EACCES' ? 'permission denied' : 'read failed'
    io.stderr.write(`run-outcome events: cannot read ${label}: ${why}\n`)
    return EXIT.usage
  }
}
