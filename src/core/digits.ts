/**
 * Whole numbers written for people, without `Intl`: the first `toLocaleString` of a process loads ICU's locale
 * data (~10 ms), which a constant computed at import would make every import pay.
 * @module
 * @internal
 */

/**
 * `n` with a comma between each group of three digits, as `n.toLocaleString('en-US')` writes an integer
 * (`1000000` → `1,000,000`; a fraction keeps its digits after the point ungrouped). Never throws.
 * @example groupDigits(1_000_000) // => '1,000,000'
 * @internal
 */
export const groupDigits = (n: number): string => {
  const [whole = '', fraction] = String(n).split('.')
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',')
  return fraction === undefined ? grouped : `${grouped}.${fraction}`
}
