WITH pgrst_source AS (DELETE FROM "library"."book_genres" WHERE "library"."book_genres"."book_id" = $1 AND "library"."book_genres"."genre_id" = ANY($2) RETURNING 1) SELECT null::bigint AS total_result_set, pg_catalog.count(*) AS page_total, ''::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, null::bigint AS response_inserted, '[]'::text AS location FROM (SELECT * FROM pgrst_source) _postgrest_t;
-- $1 = "1"
-- $2 = "{\"1\",\"2\"}"
