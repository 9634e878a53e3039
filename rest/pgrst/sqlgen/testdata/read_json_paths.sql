WITH pgrst_source AS ((SELECT "library"."books"."id", "library"."books"."metadata"->>$1 AS "isbn", CAST("library"."books"."metadata"->$2 AS text) AS "edition" FROM "library"."books" WHERE "library"."books"."metadata"->$3 >= E'1' ORDER BY "library"."books"."metadata"->>$4 DESC NULLS LAST) LIMIT 1000) SELECT null::bigint AS total_result_set, pg_catalog.count(*) AS page_total, coalesce(json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, null::bigint AS response_inserted, '[]'::text AS location FROM (SELECT * FROM pgrst_source) _postgrest_t;
-- $1 = "isbn"
-- $2 = "edition"
-- $3 = "edition"
-- $4 = "isbn"
