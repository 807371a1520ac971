/**
 * Line readers and document readers made from a format's `Translator`: each runs the one pipeline (translator →
 * fold), so every format's `replay`, `watch` and `stats` results come from the same fold.
 *
 * @module
 * @internal
 */
import { Pipeline } from '../core/pipeline.js'
import type { RunResult } from '../core/RunResult.js'
import type { Translator } from '../core/translator.js'
import { DECLINE, skimKernel, skimLine, skimMinBytes, skimOf, skimRecords } from './skim/skim.js'
import type { LineReader, LinesRead, ReaderFactory, ReaderOptions } from './types.js'

const pipelineOf = <S>(translator: Translator<S>, options: ReaderOptions): Pipeline<S> =>
  new Pipeline(translator, {
    file: options.file ?? null,
    ...(options.live === true ? { live: true } : {}),
    ...(options.messageId !== undefined ? { messageId: options.messageId } : {}),
    ...(options.onEvent !== undefined ? { onEvent: options.onEvent } : {}),
    ...(options.estimate !== undefined ? { estimate: options.estimate } : {}),
  })

/** A line reader over the pipeline of `translator`: runs handed to `emit` as they end, notes to `options.note`. @internal */
export const readerFrom =
  <S>(translator: Translator<S>): ReaderFactory =>
  (emit, options): LineReader => {
    const p = pipelineOf(translator, options)
    const flush = (): void => {
      if (p.hasResults) for (const r of p.takeResults()) emit(r)
      if (p.hasNotes) for (const n of p.takeNotes()) options.note?.(n.line, n.message)
    }
    // skim lines given as bytes when the translator declares what it reads (never with onEvent: events carry
    // record fields the skim leaves out)
    const skim = options.onEvent === undefined ? skimOf(translator) : undefined
    const from = options.skim === 'all' ? 0 : skimMinBytes()
    return {
      line(text, lineNo, unterminated) {
        const err = p.textLine(text, lineNo, unterminated)
        flush()
        if (err === undefined) return undefined
        return options.file ? err.at(lineNo, options.file) : err.at(lineNo)
      },
      parsed(value, lineNo) {
        const err = p.record(value, lineNo)
        flush()
        if (err === undefined) return undefined
        return options.file ? err.at(lineNo, options.file) : err.at(lineNo)
      },
      ...(skim !== undefined && (options.skim === true || options.skim === 'all')
        ? {
            lineBytes(line: Buffer, lineNo: number, unterminated: boolean) {
              const spec = line.length >= from ? skim(p.translatorState as S) : undefined
              const v = spec !== undefined ? skimLine(line, spec) : DECLINE
              const err = v !== DECLINE ? p.record(v, lineNo) : p.textLine(line.toString('utf8'), lineNo, unterminated)
              flush()
              if (err === undefined) return undefined
              return options.file ? err.at(lineNo, options.file) : err.at(lineNo)
            },
          }
        : {}),
      ...(skim !== undefined && (options.skim === true || options.skim === 'all') && skimKernel()?.skimLines !== undefined
        ? {
            lineRun(buf: Buffer, from: number, lineNo: number, limit: number): LinesRead {
              // lines taken so far, and where the next call starts
              let taken = 0
              let at = from
              for (;;) {
                const spec = skim(p.translatorState as S)
                const run = spec !== undefined ? skimRecords(buf, at, spec, limit) : undefined
                if (run === undefined) return { next: at, lines: taken }
                const { records, meta } = run
                for (let k = 0; k < records.length; k++) {
                  const n = lineNo + taken + (meta[2 * k] as number)
                  const err = p.record(records[k], n)
                  flush()
                  const through = { next: meta[2 * k + 1] as number, lines: taken + (meta[2 * k] as number) + 1 }
                  if (err !== undefined) return { ...through, error: options.file ? err.at(n, options.file) : err.at(n) }
                  // the record changed what the translator reads (its shape): the lines after it are read again
                  if (k + 1 < records.length && skim(p.translatorState as S) !== spec) return through
                }
                taken += run.lines
                at = run.next
                // `more` with no line taken would call again from the same place: stop, the splitter reads on
                if (!run.more || run.lines === 0) return { next: at, lines: taken }
              }
            },
          }
        : {}),
      end() {
        p.end()
        flush()
      },
      failed() {
        p.failed()
        flush()
      },
      snapshot: () => p.snapshot(),
      quiet() {
        p.quiet()
        flush()
      },
    }
  }

/** A document reader over the pipeline of `translator` (the format must read documents). @internal */
export const documentReaderFrom =
  <S>(translator: Translator<S>) =>
  (doc: unknown, options: ReaderOptions): ReadonlyArray<RunResult> => {
    const p = pipelineOf(translator, options)
    const out: Array<RunResult> = []
    p.document(doc)
    p.end()
    out.push(...p.takeResults())
    return out
  }
