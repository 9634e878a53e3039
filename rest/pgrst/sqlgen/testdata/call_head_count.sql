WITH pgrst_source AS (SELECT pgrst_call.* FROM LATERAL "library"."books_by"("author" := $1::integer) pgrst_call), pgrst_source_count AS (SELECT 1 FROM "pgrst_source" WHERE "pgrst_source"."price" > $2) SELECT (SELECT pg_catalog.count(*) FROM pgrst_source_count) AS total_result_set, pg_catalog.count(*) AS page_total, coalesce(json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, null::bigint AS response_inserted, '[]'::text AS location FROM ((SELECT "pgrst_source".* FROM "pgrst_source" WHERE "pgrst_source"."price" > $3) LIMIT 5) _postgrest_t;
-- $1 = "1"
-- $2 = "13"
-- $3 = "13"
