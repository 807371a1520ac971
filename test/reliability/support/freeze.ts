/** Deep freezing without recursion (so deep values cannot overflow the stack). */
export const deepFreeze = <T>(value: T): T => {
  const stack: Array<unknown> = [value]
  const seen = new Set<object>()
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v !== 'object' || v === null || seen.has(v)) continue
    seen.add(v)
    Object.freeze(v)
    for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k])
  }
  return value
}
