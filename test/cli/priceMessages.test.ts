/**
 * `--prices FILE` problems name the cause (found by the new-user trial: a missing file said only "cannot read",
 * and a table with a string price said "a price table is an object" of an object). No value is echoed.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as E from 'fp-ts/lib/Either.js'
import { afterAll, describe, expect, it } from 'vitest'
import { decodePriceTable } from '../../src/core/prices.js'
import { runCli } from '../support/cli.js'

const dir = mkdtempSync(join(tmpdir(), 'ro-prices-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const table = (json: string): string => {
  const p = join(dir, `t${Math.random().toString(36).slice(2)}.json`)
  writeFileSync(p, json)
  return p
}

describe('price table messages', () => {
  it('name the entry and field that is wrong, never its value', () => {
    expect(decodePriceTable({ 'gpt-5-codex': { input: 'x', output: 1 } })).toStrictEqual(
      E.left('the price of "gpt-5-codex" needs "input" as a number of USD per million tokens'),
    )
    expect(decodePriceTable({ m: { input: 1 } })).toStrictEqual(E.left('the price of "m" needs "output" as a number of USD per million tokens'))
    expect(decodePriceTable({ m: { input: 1, output: 2, cacheWrite: 'secret' } })).toStrictEqual(
      E.left('the price of "m" needs "cacheWrite" as a number of USD per million tokens (or no such key)'),
    )
    expect(decodePriceTable({ m: 3 })).toStrictEqual(
      E.left('the price of "m" must be an object: { "model-id": { "input": 3, "cachedInput": 0.3, "output": 15 } } (USD per million tokens)'),
    )
    expect(E.isLeft(decodePriceTable([1]))).toBe(true)
    expect(decodePriceTable({ 'a\u001b[2Jb': { input: -1, output: 1 } })).toStrictEqual(E.left('the price of "a?[2Jb" must be finite, non-negative numbers'))
  })
  it('a file that cannot be read says why; exit 2', async () => {
    const missing = await runCli(['stats', '--prices', join(dir, 'nope.json'), 'test/fixtures/codex-rollout'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(`run-outcome stats: cannot read the price table ${join(dir, 'nope.json')}: no such file\n`)
    const folder = await runCli(['replay', '--prices', dir, 'test/fixtures/codex-rollout'])
    expect(folder.code).toBe(2)
    expect(folder.stderr).toContain(`cannot read the price table ${dir}: it is a directory`)
    const bad = await runCli(['stats', '--prices', table('{"gpt-5-codex":{"input":"x","output":1}}'), 'test/fixtures/codex-rollout'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('needs "input" as a number of USD per million tokens')
    expect(bad.stderr).not.toContain('"x"')
  })
})
