WITH pgrst_source AS ((SELECT "library"."books"."id" FROM "library"."books" WHERE (("library"."books"."author_id" = $1 OR ("library"."books"."price" > $2 AND NOT "library"."books"."tags" @> $3)) AND NOT ("library"."books"."id" = $4 AND "library"."books"."price" < $5))) LIMIT 1000) SELECT null::bigint AS total_result_set, pg_catalog.count(*) AS page_total, coalesce(json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, null::bigint AS response_inserted, '[]'::text AS location FROM (SELECT * FROM pgrst_source) _postgrest_t;
-- $1 = "3"
-- $2 = "14"
-- $3 = "{nigeria}"
-- $4 = "5"
-- $5 = "10"
