/**
 * A consumer of the built package, compiled against `dist/*.d.ts` with `skipLibCheck: false` by
 * test/types/declarations.test.ts: the published declarations must be complete (no stripped or missing types).
 */
import * as E from 'fp-ts/lib/Either.js'
import { from } from 'rxjs'
import { endingFrom, endingTo, foldEvents, isSuccess, matchEnding, reduceRun, replayFile, runResults, type RunEnding, type RunResult } from 'run-outcome'

const result = foldEvents([{ type: 'turn/end', sessionId: 's', data: { reason: { kind: 'completed' } } }])
if (E.isRight(result)) {
  const run: RunResult = result.right
  const ending: RunEnding = run.ending
  const label: string = matchEnding(ending, {
    answered: () => 'answered',
    cut_off: (e) => e.finishReason,
    limit: (e) => e.reason,
    stopped: (e) => e.by,
    suspended: (e) => String(e.pending.length),
    blocked: () => 'blocked',
    failed: (e) => e.reason,
    unfinished: () => 'unfinished',
  })
  console.log(label, isSuccess(ending), endingTo('acp', endingFrom('deputy', { stopReason: 'complete' })))
}
from([]).pipe(reduceRun()).subscribe()
from([])
  .pipe(runResults({ messageId: 'm' }))
  .subscribe()
void replayFile
