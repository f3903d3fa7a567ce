import { randomInt } from "node:crypto"
import { v7 } from "uuid"

// The last id's time and sequence, so ids made within one millisecond (or while the clock steps
// back) still sort in the order they were made.
let last = { msecs: Number.NEGATIVE_INFINITY, seq: 0 }

/**
 * A new `umo_id`: a lowercase UUIDv7 (RFC 9562), time-ordered so ids sort by capture time, and
 * monotonic within this process. `millis` is the capture time taken from Effect's Clock, so tests
 * with a TestClock get ids that agree with it.
 */
export const makeUmoId = (millis: number): string => {
  if (millis > last.msecs) last = { msecs: millis, seq: randomInt(0, 2 ** 30) }
  else if (last.seq + 1 < 2 ** 32) last = { msecs: last.msecs, seq: last.seq + 1 }
  else last = { msecs: last.msecs + 1, seq: randomInt(0, 2 ** 30) }
  return v7({ msecs: last.msecs, seq: last.seq })
}

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Whether a string is a lowercase UUID (any version), the form every umo_id has. */
export const isUmoId = (value: string): boolean => uuidPattern.test(value)
