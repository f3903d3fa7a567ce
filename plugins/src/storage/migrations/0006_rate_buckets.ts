import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Rate-limit token buckets the server processes share (on PostgreSQL), and the one statement that
 * takes a token: it locks the named buckets in name order (so concurrent takes cannot deadlock),
 * refills them for the time passed, and takes one token from each when every one of them holds at
 * least one. It answers the emptiest bucket's tokens before the take.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE rate_buckets (
    name text PRIMARY KEY,
    tokens double precision NOT NULL,
    at bigint NOT NULL
  )`
  yield* sql.unsafe(`CREATE FUNCTION umo_take_token(names text[], capacity double precision,
      per_ms double precision, now_ms bigint) RETURNS double precision LANGUAGE plpgsql AS $$
    DECLARE
      lowest double precision := capacity;
      level double precision;
    BEGIN
      INSERT INTO rate_buckets (name, tokens, at)
        SELECT n, capacity, now_ms FROM unnest(names) n ORDER BY n ON CONFLICT (name) DO NOTHING;
      FOR level IN
        SELECT least(capacity, tokens + greatest(now_ms - at, 0) * per_ms) FROM rate_buckets
        WHERE name = ANY(names) ORDER BY name FOR UPDATE
      LOOP
        lowest := least(lowest, level);
      END LOOP;
      IF lowest >= 1 THEN
        UPDATE rate_buckets
          SET tokens = least(capacity, tokens + greatest(now_ms - at, 0) * per_ms) - 1, at = greatest(at, now_ms)
          WHERE name = ANY(names);
      END IF;
      RETURN lowest;
    END
  $$`)
})
