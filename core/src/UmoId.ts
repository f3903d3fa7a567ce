import { v7 } from "uuid"

/**
 * A new `umo_id`: a lowercase UUIDv7 (RFC 9562), time-ordered so ids sort by capture time.
 * `millis` is the capture time taken from Effect's Clock, so tests with a TestClock get ids that
 * agree with it.
 */
export const makeUmoId = (millis: number): string => v7({ msecs: millis })

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Whether a string is a lowercase UUID (any version), the form every umo_id has. */
export const isUmoId = (value: string): boolean => uuidPattern.test(value)
