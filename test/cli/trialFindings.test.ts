/**
 * What a new user's trial on a clean clone found (2026-12-02), each held here:
 * - `replay --brief` sized its lines by the terminal only, while `stats` also took `COLUMNS` (one rule now:
 *   `outputWidth`, the terminal's width, else `COLUMNS`);
 * - `stats` cut the paths of skipped files in the middle to fit the width, so two skipped files could read the
 *   same and neither could be found;
 * - `replay --only KIND` that matched no run printed nothing at all (exit 0), as if nothing had been read;
 * - `replay` with nothing piped in and no usual place said only "no input", where `stats` lists the places tried;
 * - `--help` ignored `COLUMNS` off a terminal;
 * - the summaries of `replay` and `watch` were never fitted: headers of 84–117 columns, the first diagnostic up to
 *   114, on an 80-column terminal;
 * - `stats --by session` at 60–69 columns printed its 116-column table (no layout kept the last-activity column).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

/** The CLI in-process (stdout no terminal, nothing cached: the tests run from the sources). */
const cli = (argv: ReadonlyArray<string>, env: Record<string, string>, stdinPiped?: boolean) =>
  runCli(argv, '', env, stdinPiped !== undefined ? { stdinPiped } : {})

const widest = (text: string): number => Math.max(0, ...text.split('\n').map((l) => l.length))

describe('findings of the new-user trial', () => {
  it('replay --brief fits COLUMNS when stdout is no terminal, as stats does', async () => {
    const wide = await cli(['replay', '--brief', 'test/fixtures/claude-code-transcript'], {})
    expect(widest(wide.stdout)).toBeGreaterThan(100)
    const narrow = await cli(['replay', '--brief', 'test/fixtures/claude-code-transcript'], { COLUMNS: '80' })
    expect(narrow.stdout.split('\n').filter(Boolean)).toHaveLength(wide.stdout.split('\n').filter(Boolean).length)
    expect(widest(narrow.stdout)).toBeLessThanOrEqual(80)
  })

  it('stats names a skipped file by its whole path, whatever the width', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'run-outcome-trial-'))
    const deep = join(dir, 'a-folder-with-a-rather-long-name', 'and-another-one-below-it')
    mkdirSync(deep, { recursive: true })
    writeFileSync(join(deep, 'expected.json'), '{"not": "a log"}\n')
    writeFileSync(join(dir, 'expected.json'), '{"not": "a log either"}\n')
    writeFileSync(join(dir, 'run.jsonl'), `${JSON.stringify({ type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } })}\n`)
    const r = await cli(['stats', dir], { COLUMNS: '40' })
    expect(r.stderr).toContain(`run-outcome stats: skipped ${join(deep, 'expected.json')}: format not recognised\n`)
    expect(r.stderr).toContain(`run-outcome stats: skipped ${join(dir, 'expected.json')}: format not recognised\n`)
  })

  it('replay --only that matches no run says so on stderr (the exit status still counts every run)', async () => {
    const r = await cli(['replay', '--only', 'cut_off', '--only', 'failed', 'examples/claude-code/claude.jsonl'], {})
    expect([r.code, r.stdout]).toStrictEqual([0, ''])
    expect(r.stderr).toBe('run-outcome replay: none of the 1 run(s) read ended cut_off or failed (--only)\n')
    const some = await cli(['replay', '--only', 'cut_off', 'examples/native/session.jsonl'], {})
    expect(some.code).toBe(1)
    expect(some.stdout).toContain('cut off: max_tokens')
    expect(some.stderr).toBe('')
  })

  it('replay with nothing piped in and no usual place lists the places it looked at, as stats does', async () => {
    const home = mkdtempSync(join(tmpdir(), 'run-outcome-trial-home-'))
    const r = await cli(['replay'], { HOME: home }, false)
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      [
        'run-outcome replay: no input given, and none of the usual places exists:',
        '  ~/.claude/projects',
        '  ~/.config/claude/projects',
        '  ~/.codex/sessions',
        '  ~/.codex/archived_sessions',
        '  ~/.gemini/tmp',
        "Give a log file or directory, or pipe a log into standard input (see 'run-outcome replay --help').",
        '',
      ].join('\n'),
    )
  })

  it('--help fits COLUMNS off a terminal', async () => {
    for (const command of ['replay', 'stats', 'watch', 'events']) {
      const r = await cli([command, '--help'], { COLUMNS: '60' })
      expect(r.code).toBe(0)
      // one line may hold a single word longer than the width (a path in an example)
      expect(r.stdout.split('\n').filter((l) => l.length > 60 && /\S\s+\S/.test(l.trim().replace(/ \\$/, '')))).toStrictEqual([])
    }
  })

  it('replay summaries fit the width: the label below a long header, whole; long figures break between parts', async () => {
    for (const width of [60, 80]) {
      const r = await cli(['replay', 'examples', 'test/fixtures/claude-code-transcript', 'test/fixtures/codex-rollout'], { COLUMNS: String(width) })
      const lines = r.stdout.split('\n')
      // a label line (a path, never cut) may be wider; every other line fits
      const labels = lines.filter((l) => /^ {2}(examples|test)\/.* #\d+ · [a-z-]+$/.test(l))
      expect(labels.length).toBeGreaterThan(0)
      expect(lines.filter((l) => !labels.includes(l) && [...l].length > width)).toStrictEqual([])
      expect(r.stdout).toContain('\n  examples/claude-code/claude-error.jsonl #1 · claude-code\n')
    }
    const narrow = await cli(['replay', 'test/fixtures/claude-code-stream-json/result-usage-without-model-usage.jsonl'], { COLUMNS: '60' })
    expect(narrow.stdout).toContain('  tokens       14 in · 31,000 cache read · 4,300 cache write\n               520 out\n')
  })

  it('stats --by session fits 60 to 69 columns (dropping the last-activity column only when nothing else fits)', async () => {
    for (const width of [60, 64, 68, 69]) {
      const r = await cli(['stats', '--by', 'session', 'test/fixtures/claude-code-transcript', 'test/fixtures/codex-rollout'], { COLUMNS: String(width) })
      expect(r.code).toBe(0)
      expect(widest(r.stdout), `${width} columns`).toBeLessThanOrEqual(width)
    }
    const wide = await cli(['stats', '--by', 'session', 'test/fixtures/claude-code-transcript'], { COLUMNS: '80' })
    expect(wide.stdout).toMatch(/│ last {7}│/)
  })
})
