/**
 * USD amounts: the one rounding of every cost the library sums, takes the difference of or reports.
 * @module
 * @internal
 */

/** The decimal places a USD amount is kept to (1e-12 USD: far below any token's price, far above float noise). @internal */
export const USD_DECIMALS = 12

/**
 * `x` (USD) rounded to `decimals` places (default {@link USD_DECIMALS}), so float noise from adding or
 * differencing never shows (`0.1 + 0.2` → `0.3`). It goes through `toFixed` and back to a number: the result is
 * the double nearest the decimal figure, which prints as that figure (`Math.round(x * 1e12) / 1e12` can land one
 * ulp off and print `0.33115095000000005`). A figure too large to round (|x| ≥ 1e15 USD), `NaN` or an infinity
 * is returned as it is. Never throws.
 * @example roundUsd(0.1 + 0.2) // => 0.3
 * @example roundUsd(1.23456789, 6) // => 1.234568
 * @internal
 */
export const roundUsd = (x: number, decimals: number = USD_DECIMALS): number => (Math.abs(x) < 1e15 ? Number(x.toFixed(decimals)) : x)
