import { Effect } from "effect"
import { SqlClient } from "effect/sql"

/**
 * Migration 0009's statement trigger again, account by account: for each account among the deleted
 * rows, its terms and postings are gathered into arrays and every statement names the account's
 * value. On one server this is the same work (a delete names one account in practice); under
 * Citus, where the trigger runs on the shard of that account, each statement is routed to the
 * colocated shards of the same node — the former joins of the deleted rows' table with the term
 * statistics named no single account and were refused there. Lock order is unchanged: the term
 * rows in lexeme order, then the account's totals.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql.unsafe(`CREATE OR REPLACE FUNCTION memories_search_forget() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE
      acct uuid;
      term_list text[];
      term_counts integer[];
      memories_gone bigint;
      lexemes_gone bigint;
      posting_terms text[];
      posting_memories uuid[];
    BEGIN
      FOR acct IN SELECT DISTINCT o.account_id FROM forgotten o ORDER BY 1 LOOP
        SELECT coalesce(array_agg(x.lexeme ORDER BY x.lexeme), '{}'), coalesce(array_agg(x.documents ORDER BY x.lexeme), '{}')
          INTO term_list, term_counts
          FROM (SELECT u.lexeme, count(*)::integer AS documents FROM forgotten o, unnest(o.search) u
                WHERE o.account_id = acct GROUP BY 1) x;
        SELECT count(*), coalesce(sum(length(o.search)), 0) INTO memories_gone, lexemes_gone
          FROM forgotten o WHERE o.account_id = acct;
        SELECT coalesce(array_agg(u.lexeme), '{}'), coalesce(array_agg(o.umo_id), '{}') INTO posting_terms, posting_memories
          FROM forgotten o, unnest(o.search) u WHERE o.account_id = acct;
        PERFORM 1 FROM search_terms t WHERE t.account_id = acct AND t.lexeme = ANY (term_list)
          ORDER BY t.lexeme FOR UPDATE;
        UPDATE search_terms t SET documents = t.documents - d.documents
          FROM unnest(term_list, term_counts) AS d(lexeme, documents)
          WHERE t.account_id = acct AND t.lexeme = d.lexeme;
        DELETE FROM search_terms t WHERE t.account_id = acct AND t.lexeme = ANY (term_list) AND t.documents <= 0;
        UPDATE search_totals s SET documents = s.documents - memories_gone, lexemes = s.lexemes - lexemes_gone
          WHERE s.account_id = acct;
        DELETE FROM search_postings p USING unnest(posting_terms, posting_memories) AS d(lexeme, umo_id)
          WHERE p.account_id = acct AND p.lexeme = d.lexeme AND p.umo_id = d.umo_id;
      END LOOP;
      RETURN NULL;
    END
  $$`)
})
