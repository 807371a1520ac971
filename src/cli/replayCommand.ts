/**
 * `run-outcome replay [FILE|DIR|-]… [--format F] [--json] [--accept KIND]…` (SPEC §1).
 * @module
 */
import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { isSuccess, type EndingKind } from '../core/RunEnding.js'
import { isProtocolError } from '../core/ProtocolError.js'
import type { RunResult } from '../core/RunResult.js'
import { formats } from '../formats/index.js'
import { attachSubagents, subagentFilesOf } from '../node/claudeSubagents.js'
import { listLogFiles } from '../node/files.js'
import { ReplayError, replayStream } from '../node/replay.js'
import { checkAccept, checkFormat, commonOptions, parseCommand } from './args.js'
import { EXIT, safeJson, worst, type CliIO } from './io.js'
import { colorEnabled, makeStyle } from './style.js'
import { formatRun } from './summary.js'

/** Help text of `replay`. @since 0.1.0 */
export const replayHelp = (): string => `Usage: run-outcome replay [FILE|DIR|-]... [options]

Replays recorded agent logs and prints how each run ended.

Inputs: files (also .gz), directories (every .jsonl/.ndjson/.json/.log/.txt under them,
one result per run), or - for standard input (the default when no input is given).

Options:
  --format F       auto (default) or one of: ${formats.map((f) => f.name).join(', ')}
  --json           print one JSON object per run (JSONL), shaped as SPEC §3
  --accept KIND    also count this ending kind as success for the exit status
                   (repeatable; e.g. --accept cut_off --accept suspended)
  --message-id ID  native logs only: report just the run that answers the message ID,
                   from the agent/inbox/spliced event that inserts it to the next idle
  -h, --help       show this help

Exit status: 0 every run answered (or accepted); 1 some run ended otherwise;
2 usage error, unreadable file or undetectable format; 3 protocol error.

Examples:
  run-outcome replay examples/claude-code/claude.jsonl
  run-outcome replay --json ~/.codex/sessions
  claude -p "fix the test" --output-format stream-json --verbose | run-outcome replay -
`

interface Options {
  readonly format: string
  readonly json: boolean
  readonly accept: ReadonlyArray<EndingKind>
  readonly messageId?: string
}

const display = (p: string): string => p

/** Runs `replay`; returns the exit status. Never throws. @since 0.1.0 */
export const replayCommand = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  const parsed = parseCommand('replay', argv, { ...commonOptions, 'message-id': { type: 'string' as const } }, io)
  if (parsed === undefined) return EXIT.usage
  const v = parsed.values
  if (v.help) {
    io.stdout.write(replayHelp())
    return EXIT.ok
  }
  const format = v.format ?? 'auto'
  if (!checkFormat('replay', format, io)) return EXIT.usage
  const accept = checkAccept('replay', v.accept, io)
  if (accept === undefined) return EXIT.usage
  const options: Options = {
    format,
    json: v.json ?? false,
    accept,
    ...(v['message-id'] !== undefined ? { messageId: v['message-id'] } : {}),
  }
  const inputs = parsed.positionals.length > 0 ? parsed.positionals : ['-']
  if (inputs.includes('-') && io.stdin.isTTY === true && parsed.positionals.length === 0) {
    io.stderr.write(`run-outcome replay: no input. Give a log file or directory, or pipe a log into standard input.\nTry 'run-outcome replay --help'.\n`)
    return EXIT.usage
  }
  let code: number = EXIT.ok
  for (const input of inputs) code = worst(code, await replayInput(input, options, io))
  return code
}

const replayInput = async (input: string, options: Options, io: CliIO): Promise<number> => {
  if (input === '-') return replayOne(io.stdin, '-', null, options, io, true)
  let isDir = false
  try {
    isDir = (await stat(input)).isDirectory()
  } catch (e) {
    io.stderr.write(`run-outcome replay: cannot read ${display(input)}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : 'not readable'}\n`)
    return EXIT.usage
  }
  if (!isDir) return replayOne(createReadStream(input, { highWaterMark: 256 * 1024 }), input, input, options, io, true, await subagentsOf(input))
  const files = await listLogFiles(input, (p, why) => io.stderr.write(`run-outcome replay: skipped ${display(p)}: ${why}\n`))
  if (files.length === 0) {
    io.stderr.write(`run-outcome replay: no log files under ${display(input)} (looked for .jsonl, .ndjson, .json, .log, .txt and their .gz)\n`)
    return EXIT.usage
  }
  let code: number = EXIT.ok
  const seen = { read: 0 }
  for (const f of files) code = worst(code, await replayOne(createReadStream(f, { highWaterMark: 256 * 1024 }), f, f, options, io, false, await subagentsOf(f), seen))
  if (seen.read === 0) {
    // every file was skipped: nothing was read, which is an input error, not an empty success
    io.stderr.write(
      `run-outcome replay: none of the ${files.length} file(s) under ${display(input)} could be read as a log; name the format with --format if they are one\n`,
    )
    return worst(code, EXIT.usage)
  }
  return code
}

/** `true` when a Claude Code session file has subagent files beside it (`<session>/subagents/`). */
const subagentsOf = async (file: string): Promise<boolean> => {
  try {
    return (await subagentFilesOf(file)).length > 0
  } catch {
    return false
  }
}

const replayOne = async (
  source: AsyncIterable<Uint8Array | string>,
  label: string,
  file: string | null,
  options: Options,
  io: CliIO,
  named: boolean,
  hasSubagents = false,
  seen: { read: number } = { read: 0 },
): Promise<number> => {
  let code: number = EXIT.ok
  let count = 0
  const style = makeStyle(colorEnabled(io.stdout, io.env))
  // A Claude Code session with subagent files: its runs are held until the subagents are attached to them.
  const held: Array<RunResult> = []
  const print = (r: RunResult): void => {
    count++
    code = worst(code, isSuccess(r.ending, { accept: options.accept }) ? EXIT.ok : EXIT.notSuccess)
    if (options.json) io.stdout.write(`${safeJson(r as unknown as Record<string, unknown>)}\n`)
    else io.stdout.write(formatRun(r, `${label} #${count}`, style))
  }
  const onRun = (r: RunResult): void => {
    if (hasSubagents && r.format === 'claude-code') held.push(r)
    else print(r)
  }
  try {
    const outcome = await replayStream(source, onRun, {
      format: options.format,
      file,
      ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
    })
    seen.read++
    if (held.length > 0 && file !== null) {
      let runs: ReadonlyArray<RunResult> = held
      try {
        runs = await attachSubagents(held, file)
      } catch {
        io.stderr.write(`run-outcome replay: ${label}: could not read its subagent files; runs printed without them\n`)
      }
      for (const r of runs) print(r)
    }
    for (const note of outcome.notes) io.stderr.write(`run-outcome replay: ${label}: ${note}\n`)
    if (outcome.error !== undefined) {
      const e = outcome.error
      io.stderr.write(`run-outcome replay: protocol error: ${e.message}\n`)
      if (options.json) io.stderr.write(`${JSON.stringify(e.toJSON())}\n`)
      return EXIT.protocol
    }
    return code
  } catch (e) {
    if (isProtocolError(e)) {
      seen.read++
      io.stderr.write(`run-outcome replay: protocol error: ${e.message}\n`)
      if (options.json) io.stderr.write(`${JSON.stringify(e.toJSON())}\n`)
      return EXIT.protocol
    }
    if (e instanceof ReplayError) {
      if (e.code === 'undetected' && !named) {
        io.stderr.write(`run-outcome replay: skipped ${display(label)}: format not recognised\n`)
        return code
      }
      io.stderr.write(`run-outcome replay: ${e.message}\n`)
      return worst(code, EXIT.usage)
    }
    const err = e as NodeJS.ErrnoException
    const why = err.code === 'ENOENT' ? 'no such file or directory' : err.code === 'EISDIR' ? 'is a directory' : err.code === 'EACCES' ? 'permission denied' : 'read failed'
    io.stderr.write(`run-outcome replay: cannot read ${display(label)}: ${why}\n`)
    return worst(code, EXIT.usage)
  }
}
