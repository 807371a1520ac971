/**
 * Vitest global setup: every temporary folder of a test run lives under one folder of its own, removed when the
 * run ends. Tests make theirs with `mkdtempSync(join(tmpdir(), …))`, and many (spawned CLIs, killed workers) have
 * no reliable moment to clean up: a run used to leave ~950 `run-outcome-*` folders in /tmp. Setting TMPDIR before
 * the test processes start makes `os.tmpdir()` answer this folder in each of them and in every process they spawn.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'run-outcome-tests-'))
  const before = process.env['TMPDIR']
  process.env['TMPDIR'] = root
  return () => {
    if (before === undefined) delete process.env['TMPDIR']
    else process.env['TMPDIR'] = before
    rmSync(root, { recursive: true, force: true })
  }
}
