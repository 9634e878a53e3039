package pgrst

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
)

// openAPI answers GET / with a Swagger 2.0 description of the schema, as
// PostgREST's OpenAPI.hs does; with follow-privileges it lists only what
// the request's role may use.
func (x *call) openAPI() (*Response, error) {
	if x.cfg.OpenAPIMode == OpenAPIDisabled {
		return nil, pgrsterr.OpenAPIDisabled()
	}
	mt, err := negotiate(x.req.Accept, true, false)
	if err != nil {
		return nil, err
	}
	tables := x.c.Tables(x.req.Schema)
	funcs := x.c.AllFunctions(x.req.Schema)
	if x.cfg.OpenAPIMode == OpenAPIFollowPrivileges {
		if tables, funcs, err = x.visible(tables, funcs); err != nil {
			return nil, err
		}
	}
	doc := openAPIDoc(x.req.Schema, tables, funcs, x.r.Header("Host"))
	body, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	resp := &Response{Status: http.StatusOK}
	resp.set("Content-Type", contentType(mt))
	if !x.req.HeadersOnly {
		resp.Body = body
	}
	return resp, nil
}

// visible keeps the tables and functions the request's role has any
// privilege on, asked of the database under that role.
func (x *call) visible(tables []*schemacache.Table, funcs []*schemacache.Function) ([]*schemacache.Table, []*schemacache.Function, error) {
	conn, err := x.h.pool.Acquire(x.ctx)
	if err != nil {
		return nil, nil, pgrsterr.Unavailable("")
	}
	defer conn.Release()
	var tnames, fnames []string
	err = pgx.BeginTxFunc(x.ctx, conn, pgx.TxOptions{AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		pre := x.preamble(true, nil)
		if _, err := tx.Conn().PgConn().ExecParams(x.ctx, pre.SQL, pre.Params, nil, nil, nil).Close(); err != nil {
			return err
		}
		rows, err := tx.Query(x.ctx, `select c.relname::text from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
			where n.nspname = $1 and (has_table_privilege(c.oid, 'SELECT') or has_table_privilege(c.oid, 'INSERT') or has_table_privilege(c.oid, 'UPDATE') or has_table_privilege(c.oid, 'DELETE'))`, x.req.Schema)
		if err != nil {
			return err
		}
		if tnames, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		rows, err = tx.Query(x.ctx, `select p.proname::text from pg_catalog.pg_proc p join pg_catalog.pg_namespace n on n.oid = p.pronamespace
			where n.nspname = $1 and has_function_privilege(p.oid, 'EXECUTE')`, x.req.Schema)
		if err != nil {
			return err
		}
		fnames, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read privileges: %w", err)
	}
	keepT := map[string]bool{}
	for _, n := range tnames {
		keepT[n] = true
	}
	keepF := map[string]bool{}
	for _, n := range fnames {
		keepF[n] = true
	}
	var ts []*schemacache.Table
	for _, t := range tables {
		if keepT[t.Name] {
			ts = append(ts, t)
		}
	}
	var fs []*schemacache.Function
	for _, f := range funcs {
		if keepF[f.Name] {
			fs = append(fs, f)
		}
	}
	return ts, fs, nil
}

type oaObj = map[string]any

// swaggerType maps a PostgreSQL type to Swagger's type and format.
func swaggerType(c *schemacache.Column) oaObj {
	p := oaObj{"format": c.Type}
	base := strings.TrimPrefix(c.BaseType, "_")
	t := "string"
	switch base {
	case "int2", "int4", "int8":
		t = "integer"
	case "float4", "float8", "numeric":
		t = "number"
	case "bool":
		t = "boolean"
	case "json", "jsonb":
		t = ""
	}
	if c.IsArray {
		item := oaObj{}
		if t != "" {
			item["type"] = t
		}
		p["type"], p["items"] = "array", item
	} else if t != "" {
		p["type"] = t
	}
	if c.Description != "" {
		p["description"] = c.Description
	}
	if c.Default != "" {
		p["default"] = c.Default
	}
	if c.MaxLength > 0 {
		p["maxLength"] = c.MaxLength
	}
	if len(c.Enum) > 0 {
		p["enum"] = c.Enum
	}
	return p
}

func openAPIDoc(schema string, tables []*schemacache.Table, funcs []*schemacache.Function, host string) oaObj {
	defs := oaObj{}
	paths := oaObj{"/": oaObj{"get": oaObj{"tags": []string{"Introspection"}, "summary": "OpenAPI description (this document)",
		"produces": []string{"application/openapi+json", "application/json"}, "responses": oaObj{"200": oaObj{"description": "OK"}}}}}
	rowFilter := func(t *schemacache.Table) []any {
		var ps []any
		for _, c := range t.Columns {
			ps = append(ps, oaObj{"$ref": "#/parameters/rowFilter." + t.Name + "." + c.Name})
		}
		return ps
	}
	params := oaObj{
		"preferParams": oaObj{"name": "Prefer", "in": "header", "type": "string", "enum": []string{"params=single-object"}},
		"preferReturn": oaObj{"name": "Prefer", "in": "header", "type": "string", "enum": []string{"return=representation", "return=minimal", "return=none"}},
		"preferCount":  oaObj{"name": "Prefer", "in": "header", "type": "string", "enum": []string{"count=none"}},
		"preferPost":   oaObj{"name": "Prefer", "in": "header", "type": "string", "enum": []string{"return=representation", "return=minimal", "return=none", "resolution=ignore-duplicates", "resolution=merge-duplicates"}},
		"select":       oaObj{"name": "select", "in": "query", "type": "string", "description": "Filtering Columns"},
		"on_conflict":  oaObj{"name": "on_conflict", "in": "query", "type": "string", "description": "On Conflict"},
		"order":        oaObj{"name": "order", "in": "query", "type": "string", "description": "Ordering"},
		"range":        oaObj{"name": "Range", "in": "header", "type": "string", "description": "Limiting and Pagination"},
		"rangeUnit":    oaObj{"name": "Range-Unit", "in": "header", "type": "string", "default": "items", "description": "Limiting and Pagination"},
		"offset":       oaObj{"name": "offset", "in": "query", "type": "string", "description": "Limiting and Pagination"},
		"limit":        oaObj{"name": "limit", "in": "query", "type": "string", "description": "Limiting and Pagination"},
	}
	for _, t := range tables {
		props := oaObj{}
		var required []string
		for _, c := range t.Columns {
			p := swaggerType(c)
			if slices.Contains(t.PK, c.Name) {
				d, _ := p["description"].(string)
				p["description"] = strings.TrimSpace(d + "\n\nNote:\nThis is a Primary Key.<pk/>")
			}
			props[c.Name] = p
			if !c.Nullable && c.Default == "" && !c.Identity && !c.Generated {
				required = append(required, c.Name)
			}
			params["rowFilter."+t.Name+"."+c.Name] = oaObj{"name": c.Name, "in": "query", "type": "string", "required": false, "format": c.Type}
		}
		def := oaObj{"type": "object", "properties": props}
		if len(required) > 0 {
			def["required"] = required
		}
		if t.Description != "" {
			def["description"] = t.Description
		}
		defs[t.Name] = def
		params["body."+t.Name] = oaObj{"name": t.Name, "in": "body", "required": false, "description": t.Name, "schema": oaObj{"$ref": "#/definitions/" + t.Name}}
		ok := oaObj{"200": oaObj{"description": "OK", "schema": oaObj{"type": "array", "items": oaObj{"$ref": "#/definitions/" + t.Name}}}, "206": oaObj{"description": "Partial Content"}}
		item := oaObj{"get": oaObj{"tags": []string{t.Name}, "summary": t.Description,
			"parameters": append(rowFilter(t), oaObj{"$ref": "#/parameters/select"}, oaObj{"$ref": "#/parameters/order"}, oaObj{"$ref": "#/parameters/range"},
				oaObj{"$ref": "#/parameters/rangeUnit"}, oaObj{"$ref": "#/parameters/offset"}, oaObj{"$ref": "#/parameters/limit"}, oaObj{"$ref": "#/parameters/preferCount"}),
			"responses": ok}}
		if t.Insertable {
			item["post"] = oaObj{"tags": []string{t.Name}, "parameters": []any{oaObj{"$ref": "#/parameters/body." + t.Name}, oaObj{"$ref": "#/parameters/select"}, oaObj{"$ref": "#/parameters/preferPost"}},
				"responses": oaObj{"201": oaObj{"description": "Created"}}}
		}
		if t.Updatable {
			item["patch"] = oaObj{"tags": []string{t.Name}, "parameters": append(rowFilter(t), oaObj{"$ref": "#/parameters/body." + t.Name}, oaObj{"$ref": "#/parameters/preferReturn"}),
				"responses": oaObj{"204": oaObj{"description": "No Content"}}}
		}
		if t.Deletable {
			item["delete"] = oaObj{"tags": []string{t.Name}, "parameters": append(rowFilter(t), oaObj{"$ref": "#/parameters/preferReturn"}),
				"responses": oaObj{"204": oaObj{"description": "No Content"}}}
		}
		paths["/"+t.Name] = item
	}
	seen := map[string]bool{}
	for _, f := range funcs {
		if seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		props := oaObj{}
		var required []string
		for _, p := range f.Params {
			if p.Name == "" {
				continue
			}
			props[p.Name] = swaggerType(&schemacache.Column{Name: p.Name, Type: p.Type, BaseType: p.BaseType, IsArray: strings.HasPrefix(p.BaseType, "_")})
			if p.Required {
				required = append(required, p.Name)
			}
		}
		args := oaObj{"type": "object", "properties": props}
		if len(required) > 0 {
			args["required"] = required
		}
		post := oaObj{"tags": []string{"(rpc) " + f.Name}, "summary": f.Description, "produces": []string{"application/json", "application/vnd.pgrst.object+json"},
			"parameters": []any{oaObj{"name": "args", "in": "body", "required": true, "schema": args}, oaObj{"$ref": "#/parameters/preferParams"}},
			"responses":  oaObj{"200": oaObj{"description": "OK"}}}
		item := oaObj{"post": post}
		if f.Volatility != 'v' {
			var qp []any
			for _, p := range f.Params {
				if p.Name != "" {
					qp = append(qp, oaObj{"name": p.Name, "in": "query", "required": p.Required, "type": "string", "format": p.Type})
				}
			}
			item["get"] = oaObj{"tags": []string{"(rpc) " + f.Name}, "summary": f.Description, "parameters": qp, "responses": oaObj{"200": oaObj{"description": "OK"}}}
		}
		paths["/rpc/"+f.Name] = item
	}
	if host == "" {
		host = "localhost"
	}
	return oaObj{
		"swagger":      "2.0",
		"info":         oaObj{"title": "PostgREST API", "description": "KejaNest REST API, schema " + schema, "version": "12.2.0"},
		"host":         host,
		"basePath":     "/",
		"schemes":      []string{"http"},
		"consumes":     []string{"application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"},
		"produces":     []string{"application/json", "application/vnd.pgrst.object+json;nulls=stripped", "application/vnd.pgrst.object+json", "text/csv"},
		"paths":        paths,
		"definitions":  defs,
		"parameters":   params,
		"externalDocs": oaObj{"description": "PostgREST Documentation", "url": "https://postgrest.org/en/v12/references/api.html"},
	}
}
