package tests

import (
	"testing"
)

// The schema rules of style.md §3, checked on the catalog: every table and
// function is documented; every SECURITY DEFINER function pins an empty
// search_path and is not executable by PUBLIC; the app's embed of
// profiles(full_name) from p2p_offers has exactly one foreign key to use;
// the dashboard's tables are published for Realtime.
func TestSchemaRules(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	checks := []struct {
		name string
		sql  string // returns offending names, one per row
	}{
		{"tables without a comment", `select c.relname::text from pg_class c join pg_namespace n on n.oid = c.relnamespace
			where n.nspname = 'public' and c.relkind = 'r' and obj_description(c.oid, 'pg_class') is null`},
		{"functions without a comment", `select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
			where n.nspname in ('public', 'app_private') and obj_description(p.oid, 'pg_proc') is null`},
		{"security definer without search_path = ''", `select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
			where n.nspname in ('public', 'app_private') and p.prosecdef
			  and not coalesce('search_path=""' = any(p.proconfig), false)`},
		{"security definer executable by PUBLIC", `select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
			where n.nspname in ('public', 'app_private') and p.prosecdef
			  and has_function_privilege('public', p.oid, 'execute')`},
		{"app_private executable by the API roles", `select p.oid::regprocedure::text || ' by ' || r from pg_proc p
			join pg_namespace n on n.oid = p.pronamespace cross join unnest(array['anon', 'authenticated', 'service_role']) r
			where n.nspname = 'app_private' and has_function_privilege(r, p.oid, 'execute')`},
		// Besides is_admin (RLS policies), get_listing_owner (0017): visitors
		// see the KYC-verified badge of a listing they can already see; it
		// returns the contact only to a signed-in caller, and nothing for a
		// listing RLS hides from them.
		{"definer functions anon may call", `select p.oid::regprocedure::text from pg_proc p join pg_namespace n on n.oid = p.pronamespace
			where n.nspname = 'public' and p.prosecdef and has_function_privilege('anon', p.oid, 'execute')
			  and p.proname not in ('is_admin', 'get_listing_owner')`},
		{"foreign keys p2p_offers -> profiles other than one", `select count(*)::text from pg_constraint
			where conrelid = 'public.p2p_offers'::regclass and confrelid = 'public.profiles'::regclass and contype = 'f'
			having count(*) <> 1`},
		{"dashboard tables missing from supabase_realtime", `select t from unnest(array['properties', 'products', 'profiles',
			'service_providers', 'kyc_verifications']) t
			where not exists (select 1 from pg_publication_tables p where p.pubname = 'supabase_realtime' and p.schemaname = 'public' and p.tablename = t)`},
	}
	for _, c := range checks {
		rows, err := e.super.Query(t.Context(), c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var bad []string
		for rows.Next() {
			var s string
			_ = rows.Scan(&s)
			bad = append(bad, s)
		}
		rows.Close()
		if len(bad) > 0 {
			t.Errorf("%s: %v", c.name, bad)
		}
	}
}
