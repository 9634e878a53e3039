package plan

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// MutateOptions are the configuration writes need.
type MutateOptions struct {
	// SafeUpdate refuses UPDATE and DELETE without a filter, as Supabase's
	// pg-safeupdate does.
	SafeUpdate bool
	// Seen is Options.Seen, for the write's filters.
	Seen *Sightings
}

// Mutate builds the MutatePlan of an insert, update, upsert or delete.
func Mutate(c *schemacache.Cache, t *schemacache.Table, req *parse.ApiRequest, opt MutateOptions) (*MutatePlan, error) {
	m := &MutatePlan{Table: t, Payload: req.Payload, Range: parse.All}
	b := &builder{c: c, schema: t.Schema, opt: Options{Seen: opt.Seen}}
	root := &ReadPlan{Table: t, From: t.QI()}

	switch req.Action {
	case parse.ActInsert, parse.ActUpsertPut:
		m.Kind = Insert
	case parse.ActUpdate:
		m.Kind = Update
	case parse.ActDelete:
		m.Kind = Delete
	}
	if m.Kind != Delete {
		keys := req.Payload.Keys
		if req.Query.Columns != nil {
			keys = req.Query.Columns
		}
		seen := map[string]bool{}
		for _, k := range keys {
			if seen[k] {
				continue
			}
			seen[k] = true
			col := t.Column(k)
			if col == nil {
				return nil, pgrsterr.ColumnNotFound(t.Name, k)
			}
			m.Columns = append(m.Columns, col)
		}
		m.ApplyDefaults = req.Prefs.Missing == "default"
	}

	// Root filters (update/delete; PUT checks them below).
	for _, f := range req.Query.Filters {
		if len(f.Path) != 0 {
			continue
		}
		l, err := b.resolveFilter(root, f.Filter, false)
		if err != nil {
			return nil, err
		}
		m.Where = append(m.Where, l)
	}
	for _, lg := range req.Query.Logic {
		if len(lg.Path) != 0 {
			continue
		}
		l, err := b.resolveLogic(root, lg.Tree, 0)
		if err != nil {
			return nil, err
		}
		m.Where = append(m.Where, l)
	}

	switch req.Action {
	case parse.ActInsert:
		m.Where = nil
		if r := req.Prefs.Resolution; r != "" {
			m.OnConflict = map[string]string{"merge-duplicates": "merge", "ignore-duplicates": "ignore"}[r]
			m.ConflictCols = req.Query.OnConflict
			if m.ConflictCols == nil {
				m.ConflictCols = t.PK
			}
			for _, cc := range m.ConflictCols {
				if t.Column(cc) == nil {
					return nil, pgrsterr.UndefinedColumn(t.Name, cc)
				}
			}
			if len(m.ConflictCols) == 0 {
				m.OnConflict = ""
			}
		}
	case parse.ActUpsertPut:
		if err := putChecks(t, req, m); err != nil {
			return nil, err
		}
	case parse.ActUpdate, parse.ActDelete:
		if opt.SafeUpdate && len(m.Where) == 0 {
			verb := "UPDATE"
			if req.Action == parse.ActDelete {
				verb = "DELETE"
			}
			return nil, pgrsterr.SafeUpdate(verb)
		}
	}

	switch req.Prefs.Return {
	case "representation":
		m.ReturnAll = true
	case "headers-only":
		m.Returning = slices.Clone(t.PK)
	}
	return m, nil
}

// putChecks enforces PUT's rules: filters are eq on exactly the primary key
// columns, the body is one object, and its key values match the filters.
func putChecks(t *schemacache.Table, req *parse.ApiRequest, m *MutatePlan) error {
	m.Where = nil
	if len(t.PK) == 0 || len(req.Query.Logic) > 0 {
		return pgrsterr.InvalidFilters()
	}
	vals := map[string]string{}
	for _, f := range req.Query.Filters {
		if len(f.Path) != 0 || f.Filter.Expr.Op != parse.OpEq || f.Filter.Expr.Not || f.Filter.Expr.Quant != "" || len(f.Filter.Field.JSONPath) > 0 ||
			!slices.Contains(t.PK, f.Filter.Field.Name) {
			return pgrsterr.InvalidFilters()
		}
		vals[f.Filter.Field.Name] = f.Filter.Expr.Value
	}
	if len(vals) != len(t.PK) {
		return pgrsterr.InvalidFilters()
	}
	obj := req.Payload.Object
	if obj == nil {
		var arr []map[string]json.RawMessage
		if err := json.Unmarshal(req.Payload.JSON, &arr); err != nil || len(arr) != 1 {
			return pgrsterr.PutMatchingPK()
		}
		obj = arr[0]
	}
	for _, k := range t.PK {
		raw, ok := obj[k]
		if !ok || jsonText(raw) != vals[k] {
			return pgrsterr.PutMatchingPK()
		}
	}
	m.OnConflict, m.ConflictCols = "merge", slices.Clone(t.PK)
	return nil
}

// jsonText renders a JSON scalar the way it appears in a query string.
func jsonText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
