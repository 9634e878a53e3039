WITH pgrst_source AS (SELECT pgrst_call.pgrst_scalar FROM LATERAL (SELECT "library"."add"("a" := $1::integer, "b" := $2::integer) pgrst_scalar) pgrst_call) SELECT null::bigint AS total_result_set, 1::bigint AS page_total, coalesce(json_agg(_postgrest_t.pgrst_scalar)->0, 'null')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, null::bigint AS response_inserted, '[]'::text AS location FROM (SELECT * FROM pgrst_source) _postgrest_t;
-- $1 = "1"
-- $2 = "2"
