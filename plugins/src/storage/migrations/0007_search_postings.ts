import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * BM25's postings: one row per (memory, stemmed term) with the term's count in the memory and the
 * memory's length, keyed by term, so a query reads the few hundred postings of its rare terms from
 * the primary key instead of unnesting the tsvector of every memory that holds them (which cost
 * 50–90 ms at 10k memories). Migration 0003's trigger keeps them with the term statistics, in the
 * same lock order. The GIN index over `memories.search` served only those lookups, so it goes.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE search_postings (
    account_id uuid NOT NULL,
    lexeme text NOT NULL,
    umo_id uuid NOT NULL,
    occurrences integer NOT NULL,
    memory_lexemes integer NOT NULL,
    PRIMARY KEY (account_id, lexeme, umo_id)
  )`
  yield* sql.unsafe(`CREATE OR REPLACE FUNCTION memories_search_stats() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO search_terms (account_id, lexeme, documents)
          SELECT NEW.account_id, u.lexeme, 1 FROM unnest(NEW.search) u ORDER BY u.lexeme
          ON CONFLICT (account_id, lexeme) DO UPDATE SET documents = search_terms.documents + 1;
        INSERT INTO search_totals (account_id, documents, lexemes) VALUES (NEW.account_id, 1, length(NEW.search))
          ON CONFLICT (account_id) DO UPDATE SET documents = search_totals.documents + 1,
            lexemes = search_totals.lexemes + excluded.lexemes;
        INSERT INTO search_postings (account_id, lexeme, umo_id, occurrences, memory_lexemes)
          SELECT NEW.account_id, u.lexeme, NEW.umo_id, coalesce(array_length(u.positions, 1), 1), length(NEW.search)
          FROM unnest(NEW.search) u;
        RETURN NEW;
      END IF;
      PERFORM 1 FROM search_terms t
        WHERE t.account_id = OLD.account_id AND t.lexeme IN (SELECT u.lexeme FROM unnest(OLD.search) u)
        ORDER BY t.lexeme FOR UPDATE;
      UPDATE search_terms t SET documents = t.documents - 1
        WHERE t.account_id = OLD.account_id AND t.lexeme IN (SELECT u.lexeme FROM unnest(OLD.search) u);
      DELETE FROM search_terms t WHERE t.account_id = OLD.account_id AND t.documents <= 0
        AND t.lexeme IN (SELECT u.lexeme FROM unnest(OLD.search) u);
      UPDATE search_totals SET documents = documents - 1, lexemes = lexemes - length(OLD.search)
        WHERE account_id = OLD.account_id;
      DELETE FROM search_postings p WHERE p.account_id = OLD.account_id AND p.umo_id = OLD.umo_id
        AND p.lexeme IN (SELECT u.lexeme FROM unnest(OLD.search) u);
      RETURN OLD;
    END
  $$`)
  // Memories stored before this migration.
  yield* sql`INSERT INTO search_postings (account_id, lexeme, umo_id, occurrences, memory_lexemes)
    SELECT m.account_id, u.lexeme, m.umo_id, coalesce(array_length(u.positions, 1), 1), length(m.search)
    FROM memories m, unnest(m.search) u`
  yield* sql`DROP INDEX IF EXISTS memories_search`
})
