WITH pgrst_source AS ((SELECT "library"."books"."id" FROM "library"."books" WHERE ("library"."books"."title" LIKE ANY($1) AND "library"."books"."id" = ALL($2))) LIMIT 1000) SELECT null::bigint AS total_result_set, pg_catalog.count(*) AS page_total, coalesce(json_agg(_postgrest_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS response_headers, nullif(current_setting('response.status', true), '') AS response_status, null::bigint AS response_inserted, '[]'::text AS location FROM (SELECT * FROM pgrst_source) _postgrest_t;
-- $1 = "{Weep%,Arrow%}"
-- $2 = "{1}"
