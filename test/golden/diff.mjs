// Lists the inputs whose CLI output differs from golden.json, with the first differing paths (a review aid for
// an intended change; the golden test is the check). `node test/golden/diff.mjs` after `npm run build`.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { replayOf } from './make.mjs'

const golden = JSON.parse(readFileSync(fileURLToPath(new URL('./golden.json', import.meta.url)), 'utf8'))
const diffs = (a, b, path, out) => {
  if (JSON.stringify(a) === JSON.stringify(b)) return
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    if (JSON.stringify(Object.keys(a)) !== JSON.stringify(Object.keys(b)) && keys.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k])))
      out.push(`${path}: key order`)
    for (const k of keys) diffs(a[k], b[k], `${path}.${k}`, out)
    return
  }
  out.push(`${path}: ${JSON.stringify(b)?.slice(0, 150)} -> ${JSON.stringify(a)?.slice(0, 150)}`)
}
let n = 0
for (const input of Object.keys(golden)) {
  const out = []
  diffs(replayOf(input), golden[input], '', out)
  if (out.length === 0) continue
  n++
  console.log(`${input}`)
  for (const l of out.slice(0, Number(process.env.GOLDEN_DIFF_LIMIT ?? 12))) console.log(`   ${l}`)
  const LIMIT = Number(process.env.GOLDEN_DIFF_LIMIT ?? 12)
  if (out.length > LIMIT) console.log(`   … ${out.length - LIMIT} more`)
}
console.log(`${n} of ${Object.keys(golden).length} inputs differ`)
