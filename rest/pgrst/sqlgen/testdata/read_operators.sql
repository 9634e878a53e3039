WITH pgrst_source AS ((SELECT "library"."books"."id" FROM "library"."books" WHERE ("library"."books"."price" >= $1 AND "library"."books"."title" ILIKE $2 AND "library"."books"."tags" @> $3 AND NOT "library"."books"."id" = ANY($4) AND "library"."books"."editor_id" IS NULL AND "library"."books"."published_on" < $5)) LIMIT 1000) SELECT null::bigint AS total_result_set, pg_catalog.count(*) AS page_total, coalesce(json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, null::bigint AS response_inserted, '[]'::text AS location FROM (SELECT * FROM pgrst_source) _postgrest_t;
-- $1 = "10"
-- $2 = "%o%"
-- $3 = "{kenya}"
-- $4 = "{\"9\",\"10\"}"
-- $5 = "2000-01-01"
