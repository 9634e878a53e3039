package pgrst

import (
	"context"
	"net/http"
	"strings"

	"github.com/kejanest/kejanest/rest/pgrst/exec"
	"github.com/kejanest/kejanest/rest/pgrst/parse"
	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/plan"
	"github.com/kejanest/kejanest/rest/pgrst/schemacache"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// mutate answers POST, PATCH, PUT and DELETE on a table.
func (x *call) mutate() (*Response, error) {
	t, err := x.table()
	if err != nil {
		return nil, err
	}
	rep := x.req.Prefs.Return == "representation"
	mt := parse.MediaType{Type: parse.MTJSON}
	if rep {
		if mt, err = x.negotiate(); err != nil {
			return nil, err
		}
	} else if x.cfg.PlanEnabled {
		// Without a representation only the plan type is negotiated
		// (x.negotiate notes it); any other Accept goes unread.
		_, _ = x.negotiate()
	}
	m, err := plan.Mutate(x.c, t, x.req, plan.MutateOptions{SafeUpdate: x.cfg.SafeUpdate, Seen: x.h.seen})
	if err != nil {
		return nil, err
	}
	out := sqlgen.Output{Handler: sqlgen.HandlerNone}
	var read *plan.ReadPlan
	if rep {
		out = outputFor(mt, false)
		if read, err = plan.Read(x.c, t, x.req, plan.RootMutation, x.planOptions()); err != nil {
			return nil, err
		}
	}
	location := x.req.Action == parse.ActInsert && x.req.Prefs.Return == "headers-only"
	main, err := sqlgen.Mutate(m, read, out, location)
	if err != nil {
		return nil, err
	}
	pre, err := x.preRequest()
	if err != nil {
		return nil, err
	}
	rollback, _ := x.txRollback()
	tx := exec.Tx{Preamble: x.preamble(false, nil), PreRequest: pre, Main: main, Rollback: rollback,
		CustomPlan: plan.CustomPlan(m.Where) || read.CustomPlan()}
	strictMax := x.req.Prefs.Strict() && x.req.Prefs.HasMax
	if strictMax || mt.Type == parse.MTObject {
		tx.After = func(_ context.Context, _ exec.Querier, r *exec.Result) error {
			if strictMax && r.PageTotal > x.req.Prefs.MaxAffected {
				return pgrsterr.MaxAffected(r.PageTotal)
			}
			if mt.Type == parse.MTObject && r.PageTotal != 1 {
				return pgrsterr.Singularity(r.PageTotal)
			}
			return nil
		}
	}
	res, err := x.run(tx)
	if err != nil {
		return nil, err
	}
	if x.plan != nil {
		return planResponse(*x.plan, res), nil
	}
	resp := &Response{}
	var total *int64
	if x.req.Prefs.Count != "" {
		n := res.PageTotal
		total = &n
	}
	switch x.req.Action {
	case parse.ActInsert:
		resp.Status = http.StatusCreated
		if m.OnConflict == "merge" && res.Inserted != nil && *res.Inserted == 0 {
			resp.Status = http.StatusOK
		}
		resp.set("Content-Range", contentRange(1, 0, total))
		if location && len(res.Location) > 0 {
			resp.set("Location", locationHeader(t.Name, res.Location))
		}
	case parse.ActUpsertPut:
		resp.Status = http.StatusNoContent
		if rep {
			resp.Status = http.StatusOK
			if res.Inserted != nil && *res.Inserted > 0 {
				resp.Status = http.StatusCreated
			}
		}
	case parse.ActUpdate:
		resp.Status = http.StatusNoContent
		if rep {
			resp.Status = http.StatusOK
		}
		resp.set("Content-Range", contentRange(0, res.PageTotal-1, total))
	case parse.ActDelete:
		resp.Status = http.StatusNoContent
		if rep {
			resp.Status = http.StatusOK
		}
		resp.set("Content-Range", contentRange(1, 0, total))
	}
	if rep {
		resp.set("Content-Type", contentType(mt))
		resp.Body = res.Body
	}
	x.preferenceApplied(resp, true)
	if err := applyGUCs(resp, res); err != nil {
		return nil, err
	}
	return resp, nil
}

// plannedCall is what a call's statement is built from.
type plannedCall struct {
	cp *plan.CallPlan
	// rt is the function's result as a table; read the filters, order
	// and limits over its rows.
	rt    *schemacache.Table
	read  *plan.ReadPlan
	mt    parse.MediaType
	exact bool
	out   sqlgen.Output
}

// planCall plans the call x asks for.
func (x *call) planCall() (*plannedCall, error) {
	cp, err := plan.Call(x.c, x.req)
	if err != nil {
		return nil, err
	}
	f := cp.Func
	mt, err := x.negotiate()
	if err != nil {
		return nil, err
	}
	if x.req.Prefs.Strict() && x.req.Prefs.HasMax && !f.RetSet {
		return nil, pgrsterr.MaxAffectedRPC()
	}
	rt := f.ResultTable(x.c)
	// Filters, order and limits apply to the function's rows; the query
	// string arguments (GET) are not filters.
	read, err := plan.Read(x.c, rt, x.req, plan.RootCall, x.planOptions())
	if err != nil {
		return nil, err
	}
	exact, _, err := x.counting(read)
	if err != nil {
		return nil, err
	}
	out := outputFor(mt, x.req.HeadersOnly || x.req.Prefs.Return == "minimal")
	out.Func = f
	return &plannedCall{cp: cp, rt: rt, read: read, mt: mt, exact: exact, out: out}, nil
}

// buildCall builds the statement of p with cp's arguments over the rows
// read.
func buildCall(p *plannedCall, cp *plan.CallPlan, read *plan.ReadPlan) (sqlgen.Query, error) {
	q, err := sqlgen.Call(cp, read, p.exact, p.out)
	return q.Encoded(), err
}

// callFn answers /rpc/{fn}.
func (x *call) call() (*Response, error) {
	p, err := x.planCall()
	if err != nil {
		return nil, err
	}
	f, mt, read := p.cp.Func, p.mt, p.read
	main, err := x.callStatement(p)
	if err != nil {
		return nil, err
	}
	pre, err := x.preRequest()
	if err != nil {
		return nil, err
	}
	readOnly := x.req.Method != "POST" || f.Volatility != 'v'
	rollback, _ := x.txRollback()
	var extra [][2]string
	for _, s := range f.Settings {
		if s[0] == "statement_timeout" || s[0] == "plan_filter.statement_cost_limit" || strings.HasPrefix(s[0], "pgrst.") {
			extra = append(extra, s)
		}
	}
	tx := exec.Tx{ReadOnly: readOnly, Preamble: x.preamble(readOnly, extra), PreRequest: pre, Main: main, Rollback: rollback,
		CustomPlan: read.CustomPlan()}
	strictMax := x.req.Prefs.Strict() && x.req.Prefs.HasMax
	if strictMax || (mt.Type == parse.MTObject && !readOnly) {
		tx.After = func(_ context.Context, _ exec.Querier, r *exec.Result) error {
			if strictMax && r.PageTotal > x.req.Prefs.MaxAffected {
				return pgrsterr.MaxAffected(r.PageTotal)
			}
			if mt.Type == parse.MTObject && r.PageTotal != 1 {
				return pgrsterr.Singularity(r.PageTotal)
			}
			return nil
		}
	}
	res, err := x.run(tx)
	if err != nil {
		return nil, err
	}
	if x.plan != nil {
		return planResponse(*x.plan, res), nil
	}
	if f.ReturnsVoid() {
		resp := &Response{Status: http.StatusNoContent}
		var total *int64
		if x.req.Prefs.Count != "" {
			total = res.Total
		}
		resp.set("Content-Range", contentRange(0, res.PageTotal-1, total))
		x.preferenceApplied(resp, false)
		if err := applyGUCs(resp, res); err != nil {
			return nil, err
		}
		return resp, nil
	}
	if !f.RetSet && mt.Type == parse.MTObject {
		// A single row or scalar is one object already.
		res.PageTotal = 1
	}
	// Every call answers a range, as a read does (PostgREST's
	// rangeStatusHeader over the call's rows): a scalar or single row is
	// 0-0, with its count when one was asked for.
	resp, err := x.readResponse(res, mt, read.Range, true, "")
	if err != nil {
		return nil, err
	}
	if x.req.Prefs.Return == "minimal" {
		resp.Body = nil
	}
	return resp, nil
}

// callStatement returns the statement of a planned call: from its
// shape's template when the shape is known (shapecache.go), else built,
// and the shape learnt.
func (x *call) callStatement(p *plannedCall) (sqlgen.Query, error) {
	build := func() (readStmts, error) {
		q, err := buildCall(p, p.cp, p.read)
		return readStmts{main: q}, err
	}
	fvals := slotValues(x.req)
	if anyInline(p.read) {
		s, err := build()
		return s.main, err
	}
	vals := append(fvals, callValues(p.cp)...)
	s, err := x.viaShape(callShapeKey(x.req, p.cp), vals, build, func(got readStmts) *readTemplates {
		// The filters' values are replaced in the request, the
		// arguments' in the call plan.
		probes := sentinels(len(vals))
		read := x.probeRead(p.rt, plan.RootCall, probes[:len(fvals)])
		if read == nil {
			return nil
		}
		probe, err := buildCall(p, withCallValues(p.cp, probes[len(fvals):]), read)
		if err != nil {
			return nil
		}
		return learnTemplates(got, readStmts{main: probe}, vals, boundProbes(x.req, probes))
	})
	return s.main, err
}

// info answers OPTIONS with the allowed methods.
func (x *call) info() (*Response, error) {
	resp := &Response{Status: http.StatusOK}
	switch {
	case x.req.Resource == "":
		resp.set("Allow", "OPTIONS,GET,HEAD")
	case x.req.IsRPC:
		fs := x.c.Functions(schemacache.QI{Schema: x.req.Schema, Name: x.req.Resource})
		if len(fs) == 0 {
			_, err := plan.Call(x.c, x.req)
			return nil, err
		}
		volatile := false
		for _, f := range fs {
			volatile = volatile || f.Volatility == 'v'
		}
		if volatile {
			resp.set("Allow", "OPTIONS,POST")
		} else {
			resp.set("Allow", "OPTIONS,GET,HEAD,POST")
		}
	default:
		t, err := x.table()
		if err != nil {
			return nil, err
		}
		allow := []string{"OPTIONS", "GET", "HEAD"}
		if t.Insertable {
			allow = append(allow, "POST")
		}
		if t.Insertable && t.Updatable && len(t.PK) > 0 {
			allow = append(allow, "PUT")
		}
		if t.Updatable {
			allow = append(allow, "PATCH")
		}
		if t.Deletable {
			allow = append(allow, "DELETE")
		}
		resp.set("Allow", strings.Join(allow, ","))
	}
	return resp, nil
}
