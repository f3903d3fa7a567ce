import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * BM25's statistics kept for a delete of many memories at once (an erasure of a user's 10,000) by
 * one statement-level trigger reading the deleted rows as a transition table, instead of five
 * statements a row: the row trigger took 2.7 ms a memory at 1,000 and 13.6 ms at 10,000 (136 s for
 * one erasure on PGlite), each popular term's row updated once per memory that held it. Inserts
 * keep migration 0007's row trigger. Lock order is migration 0003's: the term rows in lexeme order,
 * then the account's totals.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP TRIGGER memories_search_stats ON memories`
  yield* sql`CREATE TRIGGER memories_search_stats AFTER INSERT ON memories
    FOR EACH ROW EXECUTE FUNCTION memories_search_stats()`
  yield* sql.unsafe(`CREATE FUNCTION memories_search_forget() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      CREATE TEMPORARY TABLE forgotten_terms ON COMMIT DROP AS
        SELECT o.account_id, u.lexeme, count(*)::integer AS documents
        FROM forgotten o, unnest(o.search) u GROUP BY 1, 2;
      PERFORM 1 FROM search_terms t
        WHERE (t.account_id, t.lexeme) IN (SELECT f.account_id, f.lexeme FROM forgotten_terms f)
        ORDER BY t.account_id, t.lexeme FOR UPDATE;
      UPDATE search_terms t SET documents = t.documents - f.documents
        FROM forgotten_terms f WHERE t.account_id = f.account_id AND t.lexeme = f.lexeme;
      DELETE FROM search_terms t USING forgotten_terms f
        WHERE t.account_id = f.account_id AND t.lexeme = f.lexeme AND t.documents <= 0;
      UPDATE search_totals s SET documents = s.documents - d.documents, lexemes = s.lexemes - d.lexemes
        FROM (SELECT account_id, count(*) AS documents, sum(length(search)) AS lexemes
              FROM forgotten GROUP BY 1) d
        WHERE s.account_id = d.account_id;
      -- Through each memory's terms, so every posting is found by its primary key.
      DELETE FROM search_postings p
        USING (SELECT o.account_id, u.lexeme, o.umo_id FROM forgotten o, unnest(o.search) u) d
        WHERE p.account_id = d.account_id AND p.lexeme = d.lexeme AND p.umo_id = d.umo_id;
      DROP TABLE forgotten_terms;
      RETURN NULL;
    END
  $$`)
  yield* sql`CREATE TRIGGER memories_search_forget AFTER DELETE ON memories
    REFERENCING OLD TABLE AS forgotten FOR EACH STATEMENT EXECUTE FUNCTION memories_search_forget()`
})
