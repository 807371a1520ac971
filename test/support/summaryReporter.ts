/**
 * A vitest reporter that ends the run with the plain line `N passed, N failed` (CI reads that line, not
 * vitest's own summary). Failed modules (a file that could not load) count as failed tests.
 */
import type { Reporter, TestModule } from 'vitest/node'

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const m of testModules) {
      let any = false
      for (const t of m.children.allTests()) {
        any = true
        const state = t.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
        else skipped++
      }
      if (!any && m.state() === 'failed') failed++
    }
    failed += unhandledErrors.length
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`)
  }
}
