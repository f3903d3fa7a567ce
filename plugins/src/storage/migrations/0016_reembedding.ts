import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * The vectors of a re-embedding, staged beside the ones searches read (see `SqlReembedding`): a
 * memory's chunks as the new `model` embeds them, with the `record_hash` they give the memory. A
 * memory deleted meanwhile takes its staged chunks with it. The switch moves them into `memory_chunks` in one transaction and empties this.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE memory_chunks_next (
    account_id uuid NOT NULL,
    umo_id uuid NOT NULL,
    chunk_index integer NOT NULL,
    start_offset integer NOT NULL,
    end_offset integer NOT NULL,
    embedding vector NOT NULL,
    model text NOT NULL,
    record_hash text NOT NULL,
    PRIMARY KEY (account_id, umo_id, chunk_index),
    FOREIGN KEY (account_id, umo_id) REFERENCES memories ON DELETE CASCADE
  )`
})
