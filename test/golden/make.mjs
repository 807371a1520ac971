// Writes test/golden/golden.json: `run-outcome replay --json` of every fixture file and folder, as the built CLI
// prints it (exit code, one parsed result per run, stderr lines). `node test/golden/make.mjs` after `npm run build`;
// the golden test compares the current CLI against it. Regenerate only for an intended change, and review the diff.
import { spawnSync } from 'node:child_process'
import { readdirSync, statSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const bin = join(root, 'dist/cli/bin.js')
const SKIP = /(\.md|expected\.json|conformance\.json|make\.mjs)$/

/** Every input the golden file covers: fixture and example files, and the fixture folders. */
export const goldenInputs = () => {
  const out = []
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name)
      if (statSync(p).isDirectory()) {
        if (name === 'vocabularies' || name === 'golden') continue
        out.push(relative(root, p) + '/')
        walk(p)
      } else if (!SKIP.test(name)) out.push(relative(root, p))
    }
  }
  walk(join(root, 'test/fixtures'))
  walk(join(root, 'examples'))
  return out
}

/** The CLI's answer for one input. */
export const replayOf = (input) => {
  const r = spawnSync(process.execPath, [bin, 'replay', '--json', input], {
    cwd: root,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, NO_COLOR: '1' },
  })
  return {
    code: r.status,
    runs: r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
    stderr: r.stderr.split('\n').filter(Boolean),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const golden = {}
  for (const input of goldenInputs()) golden[input] = replayOf(input)
  writeFileSync(join(root, 'test/golden/golden.json'), `${JSON.stringify(golden, null, 1)}\n`)
  console.log(`${Object.keys(golden).length} inputs`)
}
