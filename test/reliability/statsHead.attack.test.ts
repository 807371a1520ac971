/**
 * Attack on `stats`' synchronous reads (issue 15, src/node/fileChunks.ts): the format of a file is detected from
 * its head (its first lines, up to 256 KiB: src/node/replay.ts), and `stats` must detect what `replay` detects.
 * The head is read chunk by chunk and ends with the chunk that passes 256 KiB, so it depends on the chunk size:
 * `replay` reads 256 KiB chunks, `stats` now 1 MiB ones. A Claude Code transcript whose first line is a
 * `summary` of 261,712 bytes (no format is known from it alone) and whose second line, the first user record,
 * ends just past 256 KiB: `replay` sees only the summary and cannot detect the format, while `stats` (its first
 * chunk holds the whole file) reads it as Claude Code. Whichever answer is kept, the two commands must agree.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const bin = new URL('../../dist/cli/bin.js', import.meta.url).pathname
const transcript = new URL('../fixtures/claude-code-transcript/small.jsonl', import.meta.url).pathname

/** A summary line of `size` bytes (without its newline). */
const summaryLine = (size: number): string => {
  const bare = JSON.stringify({ type: 'summary', summary: '' })
  return JSON.stringify({ type: 'summary', summary: 's'.repeat(size - bare.length) })
}

const file = (): string => {
  const lines = readFileSync(transcript, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
  const first = lines.find((l) => l.includes('"cwd"')) as string
  const rest = lines.filter((l) => l !== first)
  // the first user record's newline at byte 262,144 (256 KiB): past the first 256 KiB chunk
  const summary = summaryLine(262_144 - first.length - 1)
  const path = join(mkdtempSync(join(tmpdir(), 'run-outcome-stats-head-')), 'session.jsonl')
  writeFileSync(path, `${summary}\n${first}\n${rest.join('\n')}\n`)
  return path
}

describe.skipIf(!existsSync(bin))('stats detects the format from the same head as replay', () => {
  it('a 256 KiB summary line before the first record: stats reads the file exactly when replay detects its format', () => {
    const path = file()
    const replay = spawnSync(process.execPath, [bin, 'replay', '--json', path], { encoding: 'utf8' })
    const stats = spawnSync(process.execPath, [bin, 'stats', '--json', path], { encoding: 'utf8' })
    // replay today: exit 2, 'could not detect the format' (it sees the summary line alone)
    const replayDetected = !replay.stderr.includes('could not detect the format')
    const statsDetected = !stats.stderr.includes('format not recognised')
    expect({ replay: replayDetected, stats: statsDetected }).toStrictEqual({ replay: replayDetected, stats: replayDetected })
    expect(stats.status).toBe(replayDetected ? 0 : 2)
  })
})
