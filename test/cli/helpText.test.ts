/**
 * Help fitted to the terminal (src/cli/helpText.ts): every command's `--help` fits 80 columns when not on a
 * terminal and the terminal's width on one (60 to 100), loses no word, and keeps what already fits as written.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { consumeHelp } from '../../src/cli/consumeCommand.js'
import { eventsHelp } from '../../src/cli/eventsCommand.js'
import { fitHelp, helpWidth } from '../../src/cli/helpText.js'
import { mainHelp } from '../../src/cli/main.js'
import { replayHelp } from '../../src/cli/replayCommand.js'
import { statsHelp } from '../../src/cli/statsCommand.js'
import { watchHelp } from '../../src/cli/watchCommand.js'
import { runCli } from '../support/cli.js'

const helps: ReadonlyArray<readonly [string, () => string]> = [
  ['run-outcome', mainHelp],
  ['replay', replayHelp],
  ['stats', statsHelp],
  ['events', eventsHelp],
  ['watch', watchHelp],
  ['consume', consumeHelp],
]

/** The words of a text, as a sorted multiset, leaving out what fitting adds (` \` continuations, `#` marks). */
const words = (text: string): Array<string> =>
  text
    .split(/\s+/)
    .filter((w) => w !== '' && w !== '\\' && w !== '#')
    .sort()

/** Lines over `width` that are not one word standing alone (after its indentation and any `# ` or ` \`). */
const overlong = (text: string, width: number): Array<string> =>
  text.split('\n').filter((l) => l.length > width && /\S\s+\S/.test(l.trim().replace(/^# /, '').replace(/ \\$/, '')))

describe('help fitted to the width', () => {
  it.each(helps)('%s --help: within 60, 80 and 100 columns, every word kept', (_name, help) => {
    const text = help()
    for (const width of [60, 80, 100]) {
      const fitted = fitHelp(text, width)
      expect(overlong(fitted, width), `${width} columns`).toStrictEqual([])
      expect(words(fitted)).toStrictEqual(words(text))
    }
    // what fits is kept as written
    expect(fitHelp(text, 1000)).toBe(text)
  })

  it('an option entry wraps under its description; a shell example wraps with a continuation, its comment above', () => {
    const text = [
      'Options:',
      '  --since WHEN     only runs that started at or after WHEN, a date or a month or a local time',
      '',
      'Examples:',
      '  run-outcome stats --by month --breakdown ~/.claude/projects    # per model inside each month',
    ].join('\n')
    expect(fitHelp(text, 60).split('\n')).toStrictEqual([
      'Options:',
      '  --since WHEN     only runs that started at or after WHEN,',
      '                   a date or a month or a local time',
      '',
      'Examples:',
      '  # per model inside each month',
      '  run-outcome stats --by month --breakdown \\',
      '      ~/.claude/projects',
    ])
  })

  it('unindented lines join into a paragraph up to a sentence end; a new sentence on its own line stays there', () => {
    const text = 'A first sentence that the author wrapped by hand at a\nwide width. A second one.\nA third, on its own line, stays on its own line.'
    expect(fitHelp(text, 40).split('\n')).toStrictEqual([
      'A first sentence that the author wrapped',
      'by hand at a wide width. A second one.',
      'A third, on its own line, stays on its',
      'own line.',
    ])
  })

  it('the width: the terminal’s, else COLUMNS, held within 40 and 100; else 80', () => {
    expect(helpWidth({})).toBe(80)
    expect(helpWidth({ isTTY: false, columns: 200 })).toBe(80)
    expect(helpWidth({ isTTY: false }, { COLUMNS: '60' })).toBe(60)
    expect(helpWidth({ isTTY: false }, { COLUMNS: 'wide' })).toBe(80)
    expect(helpWidth({ isTTY: true, columns: 72 }, { COLUMNS: '60' })).toBe(72)
    expect(helpWidth({ isTTY: true, columns: 20 })).toBe(40)
    expect(helpWidth({ isTTY: true, columns: 300 })).toBe(100)
  })

  it('a closing bracket stays with the word before it; a short quoted phrase is not broken', () => {
    expect(fitHelp('Prints cost.priceData { source, version, file } per run.', 45).split('\n')).toStrictEqual([
      'Prints cost.priceData { source, version,',
      'file } per run.',
    ])
    expect(fitHelp("or follows a growing FILE like a real tool does, as in 'tail -F'; a pipe", 56).split('\n')).toStrictEqual([
      'or follows a growing FILE like a real tool does, as in',
      "'tail -F'; a pipe",
    ])
  })

  it.each([undefined, 72])('stats --help through the CLI (terminal columns %s)', async (columns) => {
    const { code, stdout: out } = await runCli(['stats', '--help'], '', {}, columns !== undefined ? { stdout: { isTTY: true, columns } } : {})
    expect(code).toBe(0)
    expect(overlong(out, columns ?? 80)).toStrictEqual([])
    expect(out).toContain('--no-cache')
    expect(words(out)).toStrictEqual(words(statsHelp()))
  })

  it('any text: no word lost, no line over the width but a lone long word, never a throw', () => {
    const word = fc.stringMatching(/^[a-z.:#\\-]{1,14}$/)
    const line = fc.oneof(
      fc.array(word, { minLength: 1, maxLength: 16 }).map((ws) => ws.join(' ')),
      fc.tuple(fc.integer({ min: 1, max: 6 }), fc.array(word, { minLength: 1, maxLength: 16 })).map(([n, ws]) => `${' '.repeat(n)}${ws.join(' ')}`),
      fc
        .tuple(fc.integer({ min: 1, max: 4 }), word, fc.integer({ min: 2, max: 12 }), fc.array(word, { minLength: 1, maxLength: 16 }))
        .map(([n, term, gap, ws]) => `${' '.repeat(n)}-${term}${' '.repeat(gap)}${ws.join(' ')}`),
      fc.constant(''),
      fc.constant('Examples:'),
    )
    fc.assert(
      fc.property(fc.array(line, { maxLength: 24 }), fc.integer({ min: 30, max: 120 }), (lines, width) => {
        const text = lines.join('\n')
        const fitted = fitHelp(text, width)
        expect(words(fitted)).toStrictEqual(words(text))
        expect(overlong(fitted, width)).toStrictEqual([])
      }),
    )
  })
})
