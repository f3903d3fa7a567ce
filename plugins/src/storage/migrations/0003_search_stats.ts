import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * BM25's statistics kept up to date instead of recounted by every query: for each account, how
 * many memories hold each stemmed term, and how many memories and terms it holds in all. A
 * trigger on `memories` keeps them, so every path that adds or removes a memory does.
 *
 * Lock order: the term rows in lexeme order, then the account's totals, and only then (in the
 * store's transaction) the ledger head. Every writer takes them in that order, so concurrent
 * captures and deletes in one account wait for each other but never deadlock.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE search_terms (
    account_id uuid NOT NULL REFERENCES accounts ON DELETE CASCADE,
    lexeme text NOT NULL,
    documents integer NOT NULL,
    PRIMARY KEY (account_id, lexeme)
  )`
  yield* sql`CREATE TABLE search_totals (
    account_id uuid PRIMARY KEY REFERENCES accounts ON DELETE CASCADE,
    documents bigint NOT NULL,
    lexemes bigint NOT NULL
  )`
  yield* sql.unsafe(`CREATE FUNCTION memories_search_stats() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP = 'INSERT' THEN
        INSERT INTO search_terms (account_id, lexeme, documents)
          SELECT NEW.account_id, u.lexeme, 1 FROM unnest(NEW.search) u ORDER BY u.lexeme
          ON CONFLICT (account_id, lexeme) DO UPDATE SET documents = search_terms.documents + 1;
        INSERT INTO search_totals (account_id, documents, lexemes) VALUES (NEW.account_id, 1, length(NEW.search))
          ON CONFLICT (account_id) DO UPDATE SET documents = search_totals.documents + 1,
            lexemes = search_totals.lexemes + excluded.lexemes;
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
      RETURN OLD;
    END
  $$`)
  yield* sql`CREATE TRIGGER memories_search_stats AFTER INSERT OR DELETE ON memories
    FOR EACH ROW EXECUTE FUNCTION memories_search_stats()`
  // Memories stored before this migration.
  yield* sql`INSERT INTO search_terms (account_id, lexeme, documents)
    SELECT m.account_id, u.lexeme, count(*) FROM memories m, unnest(m.search) u GROUP BY 1, 2`
  yield* sql`INSERT INTO search_totals (account_id, documents, lexemes)
    SELECT account_id, count(*), sum(length(search)) FROM memories GROUP BY 1`
})
