/**
 * What `replay`, `watch` and `stats` share about costs and skipped files: `--prices FILE` / `--no-estimate` into
 * estimate settings, and how many skipped files are named on stderr.
 * @module
 */
import { readFile } from 'node:fs/promises'
import * as E from 'fp-ts/lib/Either.js'
import { decodePriceTable, type PriceTable } from '../core/prices.js'
import type { EstimateSettings } from '../prices/genaiPrices.js'
import type { CliIO } from './io.js'
import { forTerminal } from './sanitize.js'

/** How many skipped files are named on stderr (the rest are counted); the same rule as `replay`. @since 0.2.0 */
export const SKIPPED_NAMED = 5

const readPrices = async (command: string, file: string, io: CliIO): Promise<PriceTable | undefined> => {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch (e) {
    const code = (e as { code?: unknown }).code
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : typeof code === 'string'
              ? code
              : 'read error'
    io.stderr.write(`run-outcome ${command}: cannot read the price table ${forTerminal(file)}: ${why}\n`)
    return undefined
  }
  let json: unknown
  try {
    // a byte order mark before the JSON (an editor's) is no error, as in a log
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
  } catch {
    io.stderr.write(`run-outcome ${command}: the price table ${forTerminal(file)} is not valid JSON\n`)
    return undefined
  }
  const decoded = decodePriceTable(json)
  if (E.isLeft(decoded)) {
    io.stderr.write(`run-outcome ${command}: ${forTerminal(file)}: ${decoded.left}\n`)
    return undefined
  }
  return decoded.right
}

/**
 * The estimate settings of `--prices FILE` / `--no-estimate`, or `undefined` after reporting a problem. Shared by
 * `replay`, `watch` and `stats`.
 * @since 0.2.0
 */
export const estimateSettings = async (
  command: string,
  prices: string | undefined,
  estimate: boolean | undefined,
  io: CliIO,
): Promise<EstimateSettings | undefined> => {
  if (prices !== undefined && estimate === false) {
    io.stderr.write(`run-outcome ${command}: --prices and --no-estimate contradict each other (--prices estimates costs); give one\n`)
    return undefined
  }
  if (estimate === false) return { enabled: false }
  if (prices === undefined) return { enabled: true }
  const table = await readPrices(command, prices, io)
  if (table === undefined) return undefined
  return { enabled: true, table, tableFile: prices }
}
