/**
 * The contract between input formats and the replay machinery: a `FormatModule` recognises its format from
 * the first parsed lines (or the top-level shape of a JSON document) and reads it into `RunResult`s.
 *
 * Line readers get one line at a time (no newline, no `\r`, BOM removed) and hand each finished run to
 * `emit` as soon as it ends, so a live stream shows results before EOF and memory stays flat. Vendor formats
 * are lenient: a record they do not know, or whose fields have unexpected types, is a diagnostic, never an
 * error; only the native format returns a `ProtocolError`.
 *
 * @module
 */
import type { SessionEvent } from '../core/events.js'
import type { CostEstimator } from '../core/fold.js'
import type { ProtocolError } from '../core/ProtocolError.js'
import type { FormatName, RunResult } from '../core/RunResult.js'
import type { Translator } from '../core/translator.js'
import type { SeenRecords } from './claudeCode/seen.js'
import type { SkimMode } from './skim/skim.js'
import type { LinesTaken } from '../io/lines.js'

/** Options every reader takes. @since 0.1.0 @category Formats */
export interface ReaderOptions {
  /** The file being read, for `RunResult.source.file` (`null` for stdin / in-memory input). */
  readonly file?: string | null
  /** Seed 002's owned interval (native only). */
  readonly messageId?: string
  /**
   * Receives diagnostics that belong to no open run, e.g. a late duplicate Claude Code `result` after its run
   * was emitted (bug kind K7). `watch` prints them on stderr. Optional: without it they are dropped silently
   * only if the reader cannot attach them to a later run.
   */
  readonly note?: (line: number | undefined, message: string) => void
  /**
   * A live stream (`watch`): hand each run out the moment its terminal record arrives. Without it a reader may
   * hold a finished run until the next record shows nothing else belongs to it (so a late duplicate terminal
   * record lands in that run's diagnostics, SPEC §1); when live, such a late record goes to `note` instead.
   */
  readonly live?: boolean
  /**
   * Receives every native event the format's translator produces, with the line of the record it came from
   * (`run-outcome events`). Only formats with a translator call it.
   */
  readonly onEvent?: (event: SessionEvent, line: number | undefined) => void
  /** Estimates the cost of a model request whose source gives none (see `PipelineOptions.estimate`). */
  readonly estimate?: CostEstimator
  /**
   * Records the files of one input share (K15): pass the same set to the reader of every file of a directory, and
   * a Claude Code transcript record that an earlier file holds too (a resumed or forked session's copy: the same
   * record `uuid`, or `message.id` + `requestId`) counts only where it was read first. Only the Claude Code
   * reader uses it.
   */
  readonly seen?: SeenRecords
  /**
   * Skim lines given as bytes (`LineReader.lineBytes`) for formats that declare what they read
   * (`src/formats/skim/skim.ts`): the same results without decoding the bulk of each record. `true`: long lines;
   * `'all'`: every line; `false` (default): none.
   */
  readonly skim?: SkimMode
}

/** What {@link LineReader.lineRun} read: how far, and the protocol error that stopped it, if any. @since 0.2.0 @category Formats */
export interface LinesRead extends LinesTaken {
  readonly error?: ProtocolError
}

/**
 * A stateful reader of one input (one file or stream). Not reusable across inputs.
 * @since 0.1.0
 * @category Formats
 */
export interface LineReader {
  /**
   * Reads one line. `lineNo` is 1-based; `unterminated` is true only for a last line that had no newline
   * (a log cut while being written). Blank lines are never passed. Returns a `ProtocolError` only in the
   * native format; after one, the caller stops feeding this reader.
   */
  line(text: string, lineNo: number, unterminated: boolean): ProtocolError | undefined
  /**
   * Optional: reads one line given as bytes (a Node `Buffer` view of exactly the line, starting with `{`), as
   * `line` would read its UTF-8 text — a reader that skims records decodes only the fields it needs. Present only
   * when the reader skims; a caller without bytes uses `line`.
   */
  lineBytes?(line: Buffer, lineNo: number, unterminated: boolean): ProtocolError | undefined
  /**
   * Optional: reads a run of whole lines of `buf` from the offset `from` on at once (the first is line `lineNo`),
   * as `lineBytes` would read them one by one, and says how far it went (see `OnLineRun` in `src/io/lines.ts`: it
   * stops before a line it leaves to `lineBytes`, and before any line of `limit` bytes or more). With `error`,
   * the `ProtocolError` of a line it read (the caller stops feeding this reader). Present only when the reader
   * skims with the native kernel.
   */
  lineRun?(buf: Buffer, from: number, lineNo: number, limit: number): LinesRead
  /**
   * Optional: reads one line whose text the caller has already parsed (`value` is `JSON.parse` of exactly the text
   * `line` would get, e.g. a line the replay parsed to detect the format), as `line` would read it — without
   * parsing it again.
   */
  parsed?(value: unknown, lineNo: number, unterminated: boolean): ProtocolError | undefined
  /** The input ended: emit the runs still open (the last one `unfinished` when it has no terminal record). */
  end(): void
  /**
   * Optional: the input failed while being read (a stream error) and nothing more will come: emit the runs whose
   * ending record had arrived (one held for late records, a boundary held until a pause), never the open run,
   * whose end is not known. The caller reports the failure after this.
   */
  failed?(): void
  /**
   * Optional: the open run as it stands now (a `RunResult` whose ending is `unfinished` until its terminal
   * record), for live status lines; `undefined` when no run is open.
   */
  snapshot?(): RunResult | undefined
  /**
   * Optional, live streams only: the input has paused (no new bytes for {@link QUIET_MS}). A reader that holds
   * a run whose ending record has arrived, waiting for late records of it, hands it out now; records that
   * would have joined it go to `note` (or, for usage, to the next run). Quiet is never an ending by itself.
   */
  quiet?(): void
}

/** How long a live input must pause before readers are told it is quiet (`LineReader.quiet`), ms. @since 0.2.0 @category Formats */
export const QUIET_MS = 250

/** Makes a reader; `emit` receives each run as soon as it ends, in order. @since 0.1.0 @category Formats */
export type ReaderFactory = (emit: (result: RunResult) => void, options: ReaderOptions) => LineReader

/**
 * One input format: its `--format` name, how to recognise it, and how to read it.
 * @since 0.1.0
 * @category Formats
 */
export interface FormatModule {
  readonly name: FormatName
  /** One line of what the format is (for `--help`). */
  readonly description: string
  /**
   * How sure (0 = not this format, 1 = certain) that a line-based input whose first lines parse to `values`
   * is this format. Non-JSON lines are passed as `undefined`.
   */
  readonly sniffLines?: (values: ReadonlyArray<unknown>) => number
  /** How sure that a whole-JSON-document input (an object or an array) is this format. */
  readonly sniffDocument?: (doc: unknown) => number
  /** Reads line-based input. */
  readonly reader?: ReaderFactory
  /**
   * Reads a whole JSON document (a Gemini session file, a RunState, a JSON array of chunks), already parsed
   * (the caller caps its size at 64 MB). Returns the runs in order.
   */
  readonly readDocument?: (doc: unknown, options: ReaderOptions) => ReadonlyArray<RunResult>
  /**
   * The format's front end (protocol 2): records → native `SessionEvent`s for the one fold. `reader` and
   * `readDocument` are made from it (`formats/fromTranslator.ts`); the run operators with `{ format }`, the
   * `events` command and checkpoints use it directly.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each format's translator has its own state type; the module erases it
  readonly translator?: Translator<any>
}
