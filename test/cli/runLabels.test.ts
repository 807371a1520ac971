/**
 * A run's label in `stats`' top tables (`folder/file.jsonl #n`) cut to its column: the file's extension goes first,
 * then the middle (a fresh-user walkthrough at 60 columns saw `agent-wo….jsonl #2` and `agent-wo….jsonl #1` for
 * two different files, `example-….jsonl #1` twice: cut in the middle, a label kept only what every label shares).
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cutLabel, renderTable, textWidth, withoutLogExtension } from '../../src/cli/stats/table.js'
import { makeStyle } from '../../src/cli/style.js'
import { runCli } from '../support/cli.js'

const home = fileURLToPath(new URL('../fixtures/homes/basic', import.meta.url))

describe('run labels cut to a width', () => {
  it('whole when it fits; else without the extension; else that cut in the middle', () => {
    const label = 'example-labs-monorepo-v2/rollout-2025-10-03T11-24-54-0199aa6d-64f0-7f73-91fc-095dda01c36e.jsonl #1'
    expect(cutLabel(label, 200)).toBe(label)
    expect(cutLabel('agent/full-session-two.jsonl #2', 26)).toBe('agent/full-session-two #2')
    expect(cutLabel(label, 33)).toBe('example-labs-mon…-095dda01c36e #1')
    expect(cutLabel('a/agent-workflow-one.jsonl #2', 18)).not.toBe(cutLabel('a/agent-workflow-two.jsonl #2', 18))
  })

  it('drops only a log extension before the run number', () => {
    expect(withoutLogExtension('x/s.jsonl #1')).toBe('x/s #1')
    expect(withoutLogExtension('x/s.json.gz #3')).toBe('x/s #3')
    expect(withoutLogExtension('x/s.JSONL #1')).toBe('x/s #1')
    expect(withoutLogExtension('x/s.jsonl.bak #1')).toBe('x/s.jsonl.bak #1')
    expect(withoutLogExtension('x/s.jsonl')).toBe('x/s.jsonl')
  })

  it('a table column of labels cuts them so', () => {
    const t = renderTable(
      [
        { head: 'slowest runs', align: 'left', shrink: 'label', min: 16 },
        { head: 'cost', align: 'right' },
      ],
      [
        ['agent-workflows-monorepo-v2/full-session-one.jsonl #1', '$1'],
        ['agent-workflows-monorepo-v2/full-session-two.jsonl #1', '$2'],
      ],
      { style: makeStyle(false), maxWidth: 36 },
    )
    expect(t?.split('\n').slice(2, 4)).toStrictEqual(['│ agent-workfl…ssion-one #1 │   $1 │', '│ agent-workfl…ssion-two #1 │   $2 │'])
  })

  it('under 80 columns the top tables give durations in their short form, so the labels keep the room', async () => {
    const at = async (columns: number): Promise<Array<string>> => {
      const r = await runCli(['stats', '--no-cache'], '', { HOME: home }, { stdinPiped: false, stdout: { isTTY: true, columns } })
      const lines = r.stdout.split('\n')
      expect(lines.every((l) => textWidth(l) <= columns)).toBe(true)
      return lines.slice(lines.findIndex((l) => l.includes('slowest runs')) + 1).slice(0, 1)
    }
    expect(await at(60)).toStrictEqual(['│ agent-wor…ion-two #2 │ stopped by… │  31m 05s │ ~$0.1282 │'])
    expect((await at(100))[0]).toContain('│ 31 min 5 s │')
  })
})
