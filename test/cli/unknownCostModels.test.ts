/**
 * The headline's `unknown cost:` line names the models whose runs have no cost, six of them and a count of the
 * rest; a seventh is named, never `1 more model` (a fresh-user walkthrough found the one model left unnamed, in the
 * place its name would take).
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runCli } from '../support/cli.js'

/** A native log of one run per model, each with usage and no cost (`--no-estimate` prices none). */
const logOf = (models: number): string => {
  const dir = mkdtempSync(join(tmpdir(), 'ro-unknown-cost-'))
  const line = (type: string, data: Record<string, unknown>): string => JSON.stringify({ type, sessionId: 's', data })
  const runs = Array.from({ length: models }, (_, i) =>
    [
      line('turn/start', {}),
      line('usage/add', { model: `model-${i + 1}`, usage: { inputTokens: 10 * (models - i), outputTokens: 1 } }),
      line('turn/end', { reason: { kind: 'completed' } }),
      line('session/status', { status: 'idle' }),
    ].join('\n'),
  )
  writeFileSync(join(dir, 'runs.jsonl'), `${runs.join('\n')}\n`)
  return dir
}

const unknownLine = async (models: number): Promise<string> => {
  const r = await runCli(['stats', '--no-cache', '--no-estimate', logOf(models)], '', { COLUMNS: '400' }, { stdout: { isTTY: true, columns: 400 } })
  return r.stdout.split('\n').find((l) => l.startsWith('unknown cost:')) ?? ''
}

describe('stats: the unknown cost line', () => {
  it('seven models: all seven named', async () => {
    expect(await unknownLine(7)).toBe(`unknown cost: ${Array.from({ length: 7 }, (_, i) => `1 used model-${i + 1}`).join(' · ')}`)
  })
  it('eight models: six named, and 2 more models', async () => {
    expect(await unknownLine(8)).toBe(`unknown cost: ${Array.from({ length: 6 }, (_, i) => `1 used model-${i + 1}`).join(' · ')} · 2 more models`)
  })
})
