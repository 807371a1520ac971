/**
 * `run-outcome replay [FILE|DIR|-]… [--format F] [--json] [--accept KIND]…` (SPEC §1).
 * @module
 */
import { fileChunks, ReadBuffer } from '../node/fileChunks.js'
import { stat } from 'node:fs/promises'
import type { CostEstimator } from '../core/fold.js'
import { endingKinds, isEndingKind, isSuccess, type EndingKind } from '../core/RunEnding.js'
import { isProtocolError } from '../core/ProtocolError.js'
import type { RunResult } from '../core/RunResult.js'
import { SeenRecords } from '../formats/claudeCode/seen.js'
import { holdsNoRun } from './holdsNoRun.js'
import { formats } from '../formats/index.js'
import { attachSubagents, hasSubagentFilesSync } from '../node/claudeSubagents.js'
import { skippedSubagentEntriesSync } from '../node/claudeSubagentFiles.js'
import { LINE_CAP_TEXT } from '../io/lines.js'
import { ALREADY_READ, isReadWithNamedSession, listLogPaths, READ_WITH_SESSION } from '../node/files.js'
import { FILE_CHUNK_BYTES, ReplayError, replayStream } from '../node/replay.js'
import { checkAccept, checkFormat, commonOptions, parseCommand } from './args.js'
import { EXIT, outputWidth, safeJson, worst, type CliIO } from './io.js'
import { findLogHomes, homeOf, tilde } from '../node/homes.js'
import { estimatorOf, PRICE_PACKAGE, priceDataOf } from '../prices/genaiPrices.js'
import { escapeC1, forTerminal } from './sanitize.js'
import { estimateSettings, SKIPPED_NAMED } from './estimates.js'
import { colorEnabled, makeStyle } from './style.js'
import { briefLine, formatRun, oneLine } from './summary.js'
import { fitHelp, helpWidth } from './helpText.js'
import { notThereLine } from './usualPlaces.js'

/** Help text of `replay`. @since 0.1.0 */
export const replayHelp = (): string => `Usage: run-outcome replay [FILE|DIR|-]... [options]

Replays recorded agent logs and prints how each run ended.

Inputs: files (also .gz), directories (every .jsonl/.ndjson/.json/.log/.txt under them,
one result per run), or - for standard input (read when no input is given and a log is
piped in).
A line over the line cap (${LINE_CAP_TEXT}) is skipped with a
note naming its line and size, never parsed: memory stays bounded by the cap.

With no input and nothing piped in (a terminal, or /dev/null as from cron), it reads the
usual places, as run-outcome stats does: ~/.claude/projects, ~/.config/claude/projects,
the projects folder of each directory in CLAUDE_CONFIG_DIR, $CODEX_HOME/sessions and
archived_sessions (CODEX_HOME: ~/.codex), and the chats folders under ~/.gemini/tmp.

Options:
  --brief          one line per run: ending, tokens, cost, duration, file and run #
  --only KIND      print only the runs that ended so (repeatable: --only failed
                   --only stopped); the exit status still counts every run
  --format F       auto (default) or one of: ${formats.map((f) => f.name).join(', ')}
  --json           print one JSON object per run (JSONL), shaped as SPEC §3; an
                   estimated cost carries cost.priceData { source, version, file }
  --accept KIND    also count this ending kind as success for the exit status
                   (repeatable; e.g. --accept cut_off --accept suspended)
  --prices FILE    a JSON price table (USD per million tokens: input, output,
                   cachedInput, cacheWrite per model) over the bundled prices of
                   ${PRICE_PACKAGE} (see stats --help)
  --no-estimate    no estimates, only the costs the logs report (estimates are marked ~)
  --message-id ID  native logs only: report just the run that answers the message ID,
                   from the agent/inbox/spliced event that inserts it to the next idle
  --color, --no-color  force colours on or off (default: on a terminal, unless NO_COLOR)
  -h, --help       show this help

Exit status: 0 every run answered (or accepted); 1 some run ended otherwise;
2 usage error, unreadable file or undetectable format; 3 protocol error.

Examples:
  run-outcome replay examples/claude-code/claude.jsonl
  run-outcome replay --brief --only failed --only stopped ~/.claude/projects
  run-outcome replay --json ~/.codex/sessions
  claude -p "fix the test" --output-format stream-json --verbose | run-outcome replay -
`

interface Options {
  readonly format: string
  readonly json: boolean
  readonly brief: boolean
  readonly only: ReadonlyArray<EndingKind>
  readonly accept: ReadonlyArray<EndingKind>
  readonly messageId?: string
  readonly estimate?: CostEstimator
  readonly priceData: ReturnType<typeof priceDataOf>
  /** The output's width (`outputWidth`) for `--brief` lines and run summaries, when known. */
  readonly width?: number
  /** Skipped files named so far in this invocation (the rest are counted). */
  readonly skips: { named: number; more: number }
  /** Runs read and runs printed so far in this invocation (`--only` prints some of them). */
  readonly tally: { runs: number; printed: number }
  /** Files (`dev:ino`) read so far in this invocation: one reached again through another input is read once. */
  readonly seenFiles: Set<string>
  /** Every path given: a subagent transcript whose session is among them is read with it, not on its own. */
  readonly inputs: ReadonlyArray<string>
  /**
   * The Claude Code records read so far from the folders of this invocation: a session copied from one folder to
   * another (`~/.claude/projects` and `~/.config/claude/projects`, or two folders given) counts once (K15).
   */
  readonly records: SeenRecords
  /**
   * With no input given: the usual places read, shown with `~` for the home folder (as `stats` shows them), and
   * what to say of those not there if these hold no log.
   */
  readonly usual?: { readonly home: string; readonly inputs: ReadonlySet<string>; readonly notThere: string }
}

/** An input path as messages show it (one line, controls visible). */
const display = (p: string): string => forTerminal(p)

/** Names a skipped file, the first {@link SKIPPED_NAMED} of an invocation; later ones are counted (the rule `stats` follows). */
const noteSkipped = (io: CliIO, options: Options, label: string, why: string): void => {
  if (options.skips.named < SKIPPED_NAMED) {
    options.skips.named++
    io.stderr.write(`run-outcome replay: skipped ${display(label)}: ${why}\n`)
  } else options.skips.more++
}

/** Writes how many skipped files were not named since the last count (`… and N more skipped`), and resets it. */
const flushMoreSkipped = (io: CliIO, options: Options): void => {
  if (options.skips.more === 0) return
  io.stderr.write(`run-outcome replay: … and ${options.skips.more} more skipped\n`)
  options.skips.more = 0
}

/** Runs `replay`; returns the exit status. Never throws. @since 0.1.0 */
export const replayCommand = async (argv: ReadonlyArray<string>, io: CliIO): Promise<number> => {
  const parsed = parseCommand(
    'replay',
    argv,
    {
      ...commonOptions,
      'message-id': { type: 'string' as const },
      brief: { type: 'boolean' as const, default: false },
      only: { type: 'string' as const, multiple: true as const, default: [] as Array<string> },
      prices: { type: 'string' as const },
      estimate: { type: 'boolean' as const },
    },
    io,
  )
  if (parsed === undefined) return EXIT.usage
  const v = parsed.values
  if (v.help) {
    io.stdout.write(fitHelp(replayHelp(), helpWidth(io.stdout, io.env)))
    return EXIT.ok
  }
  const format = v.format ?? 'auto'
  if (!checkFormat('replay', format, io)) return EXIT.usage
  const accept = checkAccept('replay', v.accept, io)
  if (accept === undefined) return EXIT.usage
  const only: Array<EndingKind> = []
  for (const k of v.only ?? []) {
    if (!isEndingKind(k)) {
      io.stderr.write(`run-outcome replay: --only takes an ending kind (${endingKinds.join(', ')}), not "${forTerminal(k.slice(0, 40))}"\n`)
      return EXIT.usage
    }
    only.push(k)
  }
  if (v.brief === true && v.json === true) {
    io.stderr.write(`run-outcome replay: --brief and --json are two ways of printing; give one\n`)
    return EXIT.usage
  }
  const settings = await estimateSettings('replay', v.prices, v.estimate, io)
  if (settings === undefined) return EXIT.usage
  const estimate = estimatorOf(settings)
  const width = outputWidth(io.stdout, io.env)
  let options: Options = {
    format,
    json: v.json ?? false,
    brief: v.brief === true,
    only,
    accept,
    ...(v['message-id'] !== undefined ? { messageId: v['message-id'] } : {}),
    ...(estimate !== undefined ? { estimate } : {}),
    priceData: priceDataOf(settings),
    ...(width !== undefined ? { width } : {}),
    skips: { named: 0, more: 0 },
    tally: { runs: 0, printed: 0 },
    seenFiles: new Set<string>(),
    inputs: [],
    records: new SeenRecords(),
  }
  let inputs = parsed.positionals.length > 0 ? parsed.positionals : ['-']
  if (inputs.includes('-') && (io.stdin.isTTY === true || io.stdinPiped === false) && parsed.positionals.length === 0) {
    // nothing piped in (a terminal, or /dev/null from cron or CI): the usual places, as stats reads them
    const all = await findLogHomes(io.env)
    const homes = all.filter((h) => h.folders.length > 0)
    const home = homeOf(io.env)
    if (homes.length === 0) {
      // the same words as stats for the same case: which places were looked at, and what to give instead
      io.stderr.write(
        `run-outcome replay: no input given, and none of the usual places exists:\n${all.map((h) => `  ${forTerminal(tilde(h.path, home))}\n`).join('')}Give a log file or directory, or pipe a log into standard input (see 'run-outcome replay --help').\n`,
      )
      return EXIT.usage
    }
    inputs = homes.flatMap((h) => h.folders)
    io.stderr.write(`run-outcome replay: no input given; reading the usual places:\n${homes.map((h) => `  ${forTerminal(tilde(h.path, home))}\n`).join('')}`)
    options = { ...options, usual: { home, inputs: new Set(inputs), notThere: notThereLine(all, home) } }
  }
  let code: number = EXIT.ok
  options = { ...options, inputs }
  for (const input of inputs) code = worst(code, await replayInput(input, options, io))
  flushMoreSkipped(io, options)
  // the usual places held no log: what was not there, and what to do (as stats says it)
  if (options.usual !== undefined && options.tally.runs === 0)
    io.stderr.write(`${options.usual.notThere}Give a log file or directory, or pipe a log into standard input (see 'run-outcome replay --help').\n`)
  // --only that matched nothing says so: an empty output alone reads like nothing was read
  if (options.only.length > 0 && options.tally.runs > 0 && options.tally.printed === 0)
    io.stderr.write(`run-outcome replay: none of the ${options.tally.runs} run(s) read ended ${options.only.join(' or ')} (--only)\n`)
  return code
}

const replayInput = async (input: string, options: Options, io: CliIO): Promise<number> => {
  if (input === '-') return replayOne(io.stdin, '-', null, options, io, true)
  let isDir = false
  try {
    const st = await stat(input)
    isDir = st.isDirectory()
    if (!isDir) {
      const id = `${st.dev}:${st.ino}`
      if (options.seenFiles.has(id)) {
        noteSkipped(io, options, input, ALREADY_READ)
        return EXIT.ok
      }
      // `replay s.jsonl s/subagents/a.jsonl`: the session's replay reads it as its child; on its own it would count twice
      if (isReadWithNamedSession(input, options.inputs)) {
        noteSkipped(io, options, input, READ_WITH_SESSION)
        return EXIT.ok
      }
      options.seenFiles.add(id)
    }
  } catch (e) {
    io.stderr.write(
      `run-outcome replay: cannot read ${display(input)}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or directory' : 'not readable'}\n`,
    )
    return EXIT.usage
  }
  if (!isDir) return replayOne(fileChunks(input, { chunkBytes: FILE_CHUNK_BYTES }), input, input, options, io, true, hasSubagentFilesSync(input))
  let again = 0
  const files = await listLogPaths(input, (p, why) => noteSkipped(io, options, p, why), {
    seen: options.seenFiles,
    onDuplicate: (p) => {
      again++
      noteSkipped(io, options, p, ALREADY_READ)
    },
    // `replay proj/*` names `s.jsonl` and `s/`: the subagent files in `s/` are read with `s.jsonl`, silently
    inputs: options.inputs,
    onReadWithSession: () => {
      again++
    },
  })
  // every file was read already through an earlier input (`d ./d`), or is read with its session: nothing new, and nothing wrong
  if (files.length === 0 && again > 0) return EXIT.ok
  if (files.length === 0) {
    const shown = options.usual?.inputs.has(input) === true ? forTerminal(tilde(input, options.usual.home)) : display(input)
    io.stderr.write(`run-outcome replay: no log files under ${shown} (looked for .jsonl, .ndjson, .json, .log, .txt and their .gz)\n`)
    return EXIT.usage
  }
  let code: number = EXIT.ok
  // the files of the directories read share their records: a resumed or forked session's copies count once (K15)
  const seen = { read: 0, records: options.records }
  // the files are read one after another, into one buffer
  const readBuffer = new ReadBuffer()
  for (const f of files)
    code = worst(
      code,
      await replayOne(
        fileChunks(f.path, { chunkBytes: FILE_CHUNK_BYTES, reuse: readBuffer }),
        f.label,
        f.label,
        options,
        io,
        false,
        typeof f.path === 'string' && hasSubagentFilesSync(f.path),
        seen,
      ),
    )
  if (seen.read === 0) {
    // every file was skipped: nothing was read, which is an input error, not an empty success (the skips not
    // named yet are counted first, so that the count sits with the names it continues)
    flushMoreSkipped(io, options)
    io.stderr.write(
      `run-outcome replay: none of the ${files.length} file(s) under ${display(input)} could be read as a log; name the format with --format if they are one\n`,
    )
    return worst(code, EXIT.usage)
  }
  return code
}

const replayOne = async (
  source: AsyncIterable<Uint8Array | string>,
  label: string,
  file: string | null,
  options: Options,
  io: CliIO,
  named: boolean,
  hasSubagents = false,
  seen: { read: number; records?: SeenRecords } = { read: 0 },
): Promise<number> => {
  let code: number = EXIT.ok
  let count = 0
  const style = makeStyle(colorEnabled(io.stdout, io.env))
  // A Claude Code session with subagent files: its runs are held until the subagents are attached to them.
  const held: Array<RunResult> = []
  const print = (r: RunResult): void => {
    count++
    options.tally.runs++
    code = worst(code, isSuccess(r.ending, { accept: options.accept }) ? EXIT.ok : EXIT.notSuccess)
    // --message-id whose message no event inserts: the run is empty, and a note says why (not a silent unfinished)
    if (options.messageId !== undefined && holdsNoRun(r))
      io.stderr.write(
        `run-outcome replay: ${display(label)}: the run of message ${oneLine(options.messageId, 120)} (--message-id) is empty: no agent/inbox/spliced event inserts it, or nothing followed it\n`,
      )
    if (options.only.length > 0 && !options.only.includes(r.ending.kind)) return
    options.tally.printed++
    if (options.json)
      io.stdout.write(
        `${safeJson((r.cost.estimated === true && options.priceData !== null ? { ...r, cost: { ...r.cost, priceData: options.priceData } } : r) as unknown as Record<string, unknown>)}\n`,
      )
    else if (options.brief) io.stdout.write(briefLine(r, `${label} #${count}`, style, options.width))
    else io.stdout.write(formatRun(r, `${label} #${count}`, style, options.width))
  }
  // Across the files of a directory (`seen.records`), a file whose records all repeat those of a file read before
  // it (a resumed or forked Claude Code session's copy, K15) holds no run of its own: its first run waits for a
  // second one or for the file's end, so that the placeholder run of such a file is not printed as unfinished.
  const copiesBefore = seen.records?.copies ?? 0
  let first: RunResult | undefined
  const printFirst = (): void => {
    if (first === undefined) return
    const r = first
    first = undefined
    print(r)
  }
  const onRun = (r: RunResult): void => {
    if (hasSubagents && r.format === 'claude-code') held.push(r)
    else if (seen.records !== undefined && count === 0 && first === undefined) first = r
    else {
      printFirst()
      print(r)
    }
  }
  /** The file's runs were one placeholder and it held copies: a note instead of the run. */
  const onlyCopies = (runs: ReadonlyArray<RunResult>): boolean => {
    if (runs.length !== 1 || (seen.records?.copies ?? 0) === copiesBefore || !holdsNoRun(runs[0] as RunResult)) return false
    io.stderr.write(
      `run-outcome replay: ${display(label)}: no run of its own: its records repeat those of a file read before it (a resumed or forked session's copy)\n`,
    )
    return true
  }
  try {
    const outcome = await replayStream(source, onRun, {
      format: options.format,
      file,
      ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
      ...(options.estimate !== undefined ? { estimate: options.estimate } : {}),
      ...(seen.records !== undefined ? { seen: seen.records } : {}),
    })
    seen.read++
    if (first !== undefined && !onlyCopies([first])) printFirst()
    first = undefined
    // a copy's placeholder is judged before its subagents are attached (they would make it a run of children)
    if (held.length > 0 && file !== null && !onlyCopies(held)) {
      let runs: ReadonlyArray<RunResult> = held
      try {
        runs = await attachSubagents(held, file, {
          ...(options.estimate !== undefined ? { estimate: options.estimate } : {}),
          onNote: (note) => io.stderr.write(`run-outcome replay: ${display(label)}: ${forTerminal(note)}\n`),
          ...(seen.records !== undefined ? { seen: seen.records } : {}),
        })
      } catch {
        io.stderr.write(`run-outcome replay: ${display(label)}: could not read its subagent files; runs printed without them\n`)
      }
      for (const r of runs) print(r)
    }
    for (const note of outcome.notes) io.stderr.write(`run-outcome replay: ${display(label)}: ${forTerminal(note)}\n`)
    // a session named on its own: subagent entries that cannot be read are named (a folder replay's listing does it)
    if (named && file !== null && outcome.format === 'claude-code')
      for (const p of skippedSubagentEntriesSync(file))
        io.stderr.write(`run-outcome replay: ${display(label)}: skipped its subagent entry ${display(p)}: not a regular file\n`)
    if (outcome.error !== undefined) {
      const e = outcome.error
      io.stderr.write(`run-outcome replay: protocol error: ${forTerminal(e.message)}\n`)
      if (options.json) io.stderr.write(`${escapeC1(JSON.stringify(e.toJSON()))}\n`)
      return EXIT.protocol
    }
    return code
  } catch (e) {
    // a run read before the failure is printed, as it would have been without the wait
    printFirst()
    if (isProtocolError(e)) {
      seen.read++
      io.stderr.write(`run-outcome replay: protocol error: ${forTerminal(e.message)}\n`)
      if (options.json) io.stderr.write(`${escapeC1(JSON.stringify(e.toJSON()))}\n`)
      return EXIT.protocol
    }
    if (e instanceof ReplayError) {
      if (e.code === 'undetected' && !named) {
        noteSkipped(io, options, label, 'format not recognised')
        return code
      }
      io.stderr.write(`run-outcome replay: ${forTerminal(e.message)}\n`)
      return worst(code, EXIT.usage)
    }
    const err = e as NodeJS.ErrnoException
    const why =
      err.code === 'ENOENT'
        ? 'no such file or directory'
        : err.code === 'EISDIR'
          ? 'is a directory'
          : err.code === 'EACCES'
            ? 'permission denied'
            : 'read failed'
    io.stderr.write(`run-outcome replay: cannot read ${display(label)}: ${why}\n`)
    return worst(code, EXIT.usage)
  }
}
