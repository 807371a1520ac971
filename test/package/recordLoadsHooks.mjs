// The loader hooks of test/package/recordLoads.mjs: each resolved module URL, one a line, appended to `out`.
import { appendFileSync } from 'node:fs'

let out
export const initialize = (data) => {
  out = data.out
}
export const resolve = async (specifier, context, next) => {
  const resolved = await next(specifier, context)
  appendFileSync(out, `${resolved.url}\n`)
  return resolved
}
