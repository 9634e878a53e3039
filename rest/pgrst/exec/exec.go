// Package exec is the fourth stage of the PostgREST pipeline: it runs one
// request's statements in one transaction (PostgREST MainTx.hs). The first
// statement after BEGIN is the set_config preamble; reads run READ ONLY.
//
// Statements go through one protocol-level pipeline, so a read costs one
// round trip; writes that must inspect their result before committing (PUT,
// max-affected, single-object, tx=rollback, estimated counts) take a second
// one. The pipeline is driven through pgconn rather than pgx's Batch: a Batch
// prepares every statement before running any, which would parse the main
// statement as the login role, before the preamble has switched to the
// request's role (and that role's schema USAGE is what parsing needs).
// Here a statement is prepared, inside the pipeline, right after the
// preamble, and kept prepared on its connection for later requests. A
// transaction that needs nothing after its main statement is the
// pipeline's implicit transaction (no BEGIN or COMMIT statements); the
// caller puts ReadOnlySetting in the preamble of reads.
package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
	"github.com/kejanest/kejanest/rest/pgrst/sqlgen"
)

// Result is the main statement's single row.
type Result struct {
	// Total is the exact (or estimated) row count, when counted.
	Total *int64
	// PageTotal is the number of rows in the body.
	PageTotal int64
	Body      []byte
	// GUCHeaders and GUCStatus are response.headers and response.status as
	// the statement left them.
	GUCHeaders *string
	GUCStatus  *string
	// Inserted counts the rows an upsert inserted (rather than updated).
	Inserted *int64
	// Location holds "col=eq.value" pairs of a single inserted row.
	Location []string
	// PlannedRows is the planner's estimate (count=planned).
	PlannedRows *int64
	// Estimated reports that Tx.Estimate's row estimate replaced an exact
	// count above Tx.EstimateAbove.
	Estimated bool
}

// Querier runs extra statements inside the transaction, after the main
// one.
type Querier interface {
	// QueryText runs q and returns the first column of its first row as
	// text (nil for NULL or no row).
	QueryText(ctx context.Context, q sqlgen.Query) ([]byte, error)
}

// Tx describes one request's transaction.
type Tx struct {
	ReadOnly bool
	// Preamble is the request's settings (sqlgen.Preamble or
	// Settings.Query); Run may add one (see CustomPlan).
	Preamble   sqlgen.Query
	PreRequest *sqlgen.Query
	// Planned, when set, runs before Main; its EXPLAIN JSON gives
	// PlannedRows.
	Planned *sqlgen.Query
	Main    sqlgen.Query
	// After runs once Main has answered, before COMMIT; an error rolls
	// back and is returned. Nil (with Rollback false) commits in the same
	// round trip.
	After func(ctx context.Context, q Querier, r *Result) error
	// Rollback ends the transaction with ROLLBACK (Prefer: tx=rollback).
	Rollback bool
	// Authenticated selects 403 over 401 for SQLSTATE 42501.
	Authenticated bool
	// Estimate is the EXPLAIN (FORMAT JSON) of the count statement of a
	// read counted up to EstimateAbove + 1 (count=estimated): when Main's
	// Total passes EstimateAbove, the estimate (never less than
	// EstimateAbove) replaces it. Unless EstimateAlong, it runs after the
	// read's own implicit transaction, in a second one with the same
	// preamble, so a read whose count does not pass stays one round trip;
	// only an in-batch Tx (no After, no Rollback) uses it.
	Estimate      *sqlgen.Query
	EstimateAbove int64
	// EstimateAlong sends Estimate in the read's own pipeline, after Main,
	// rather than in a second round trip once the count is known to pass
	// EstimateAbove: the caller expects it to (the last read of its kind
	// did, Result.Estimated). The estimate is then planned in the read's
	// own transaction, as PostgREST plans it, and thrown away when the
	// count does not pass. One that fails there does not fail the read:
	// it is asked again on its own if the count passes, as without
	// EstimateAlong.
	EstimateAlong bool
	// CustomPlan plans Main for its parameter values on every execution
	// (plan_cache_mode force_custom_plan, set by the preamble); otherwise
	// PostgreSQL may settle on a generic plan.
	CustomPlan bool
	// Explain marks Main as an EXPLAIN of the request's statement
	// (Accept: application/vnd.pgrst.plan): its rows, joined by
	// newlines, are the Body.
	Explain bool
}

const (
	beginRO = "begin isolation level read committed read only"
	beginRW = "begin isolation level read committed read write"
)

// Run executes tx on a connection from pool.
func Run(ctx context.Context, pool *pgxpool.Pool, tx Tx) (*Result, error) {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return nil, connError(ctx, err)
	}
	defer conn.Release()
	pc := conn.Conn().PgConn()
	res, err := run(ctx, pc, tx)
	if !pc.IsClosed() && pc.TxStatus() != 'I' {
		if _, rerr := pc.Exec(context.WithoutCancel(ctx), "rollback").ReadAll(); rerr != nil {
			_ = pc.Close(context.WithoutCancel(ctx))
		}
	}
	if err != nil {
		return nil, mapError(ctx, err, tx.Authenticated)
	}
	return res, nil
}

// pending is what the pipeline will answer, in order.
type pending int

const (
	pPrepare pending = iota
	pDeallocate
	pExec    // a statement whose rows are ignored
	pPlanned // EXPLAIN (FORMAT JSON)
	pMain
	pExplain // the main statement's EXPLAIN, every row kept
)

func run(ctx context.Context, pc *pgconn.PgConn, tx Tx) (*Result, error) {
	cache := statements(pc)
	if err := checkPlanChoice(ctx, pc, cache); err != nil {
		return nil, err
	}
	// A transaction that ends with this pipeline needs no BEGIN/COMMIT:
	// everything before the Sync is one implicit transaction, committed
	// by the Sync, or rolled back if any statement fails. Its read-only
	// mode is set by the preamble (transaction_read_only). One that
	// continues after the pipeline (After, Rollback) begins explicitly.
	inBatch := tx.After == nil && !tx.Rollback
	preamble := tx.Preamble
	if tx.CustomPlan && cache.planChoice {
		preamble = sqlgen.WithSetting(preamble, "plan_cache_mode", "force_custom_plan")
	}
	along := inBatch && tx.Estimate != nil && tx.EstimateAlong
	res := &Result{}
	err := pipeline(ctx, pc, cache, res, func(send func(sqlgen.Query, pending)) {
		if !inBatch {
			begin := beginRW
			if tx.ReadOnly {
				begin = beginRO
			}
			send(sqlgen.Query{SQL: begin}, pExec)
		}
		send(preamble, pExec)
		if tx.PreRequest != nil {
			send(*tx.PreRequest, pExec)
		}
		if tx.Planned != nil {
			send(*tx.Planned, pPlanned)
		}
		if tx.Explain {
			send(tx.Main, pExplain)
		} else {
			send(tx.Main, pMain)
		}
		if along {
			send(*tx.Estimate, pPlanned)
		}
	})
	var late *afterMainError
	if err != nil && along && errors.As(err, &late) {
		// The estimate sent along failed once the read had answered. It
		// was sent on speculation, so the read stands, as if it had not
		// been sent: a count above the threshold asks for it again on
		// its own, below. The read's implicit transaction was read-only,
		// so rolling it back lost nothing.
		err, along, res.PlannedRows = nil, false, nil
	}
	if err != nil {
		return nil, err
	}
	if inBatch && tx.Estimate != nil {
		// Estimate and Planned are never both set (count=estimated against
		// count=planned), so PlannedRows is the estimate's plan.
		above := res.Total != nil && *res.Total > tx.EstimateAbove
		if above && !along {
			// The read committed in one round trip; the estimate takes a
			// second, only for a count above the threshold, under the same
			// role and claims (its own implicit, read-only transaction).
			err := pipeline(ctx, pc, cache, res, func(send func(sqlgen.Query, pending)) {
				send(preamble, pExec)
				send(*tx.Estimate, pPlanned)
			})
			if err != nil {
				return nil, err
			}
		}
		if above && res.PlannedRows != nil {
			n := max(*res.PlannedRows, tx.EstimateAbove)
			res.Total, res.Estimated = &n, true
		}
		// Used, or sent along and thrown away.
		res.PlannedRows = nil
	}
	if inBatch {
		return res, nil
	}
	if tx.After != nil {
		if err := tx.After(ctx, querier{pc}, res); err != nil {
			return nil, err
		}
	}
	end := "commit"
	if tx.Rollback {
		// Deferred constraints are checked as a commit would check them,
		// so a request answers the same whether or not it is rolled back
		// (PostgREST's optionalRollback).
		if _, err := pc.Exec(ctx, "set constraints all immediate").ReadAll(); err != nil {
			return nil, err
		}
		end = "rollback"
	}
	if _, err := pc.Exec(ctx, end).ReadAll(); err != nil {
		return nil, err
	}
	return res, nil
}

// pipeline sends what fill sends (each statement prepared once per
// connection) and a Sync, and reads every answer into res. On failure the
// statements whose Prepare did not complete are forgotten.
func pipeline(ctx context.Context, pc *pgconn.PgConn, cache *stmtCache, res *Result, fill func(send func(sqlgen.Query, pending))) error {
	pl := pc.StartPipeline(ctx)
	want := make([]step, 0, 8)
	fill(func(q sqlgen.Query, kind pending) {
		name, known, evicted := cache.lookup(q.SQL)
		for _, ev := range evicted {
			pl.SendDeallocate(ev)
			want = append(want, step{kind: pDeallocate})
		}
		if !known {
			pl.SendPrepare(name, q.SQL, nil)
			want = append(want, step{kind: pPrepare, name: name})
		}
		pl.SendQueryStatement(cache.description(name), q.Encoded().Params, nil, nil)
		want = append(want, step{kind: kind})
	})
	err := pl.Sync()
	failed := -1
	if err == nil {
		failed, err = readPipeline(pl, want, res, cache)
	}
	if cerr := pl.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err != nil {
		// The server skipped everything after the failure: statements
		// whose Prepare did not complete do not exist.
		for _, w := range want {
			if w.kind == pPrepare && !w.done {
				cache.drop(w.name)
			}
		}
		forget(ctx, pc, cache, err)
		if failed >= 0 && slices.ContainsFunc(want[:failed], func(w step) bool { return w.kind == pMain }) {
			err = &afterMainError{err}
		}
	}
	return err
}

// afterMainError is a pipeline's failure in a statement sent after the
// main one, which had answered (its Result is filled in).
type afterMainError struct{ err error }

func (e *afterMainError) Error() string { return e.err.Error() }
func (e *afterMainError) Unwrap() error { return e.err }

// Kept statements carry filter values as parameters. Under PostgreSQL's
// default plan_cache_mode (auto), a statement switches to its generic plan
// after five executions when that plan's estimated cost is no worse than
// the custom ones' average. That is right for most statements and saves
// planning every execution (measured: the newest-20 list at 91 % of the
// floor under auto, 58–66 % with every execution planned). It is wrong
// where the value decides the plan: a generic plan cannot see the value,
// so it cannot tell a rare word from a common one, and a statement first
// run with common values keeps a plan that is wrong for rare ones
// (measured: 0.5 s instead of 1.7 ms for a rare word on 100k listings).
// Such statements (Tx.CustomPlan, see plan.CustomPlan) are planned for
// their values on every execution: the preamble sets plan_cache_mode to
// force_custom_plan, local to the request's transaction, as one more of
// its settings.

// planChoiceSQL tells whether plan_cache_mode is at PostgreSQL's default
// on this connection. A mode set anywhere else (postgresql.conf, ALTER
// ROLE/DATABASE, the connection string) is the operator's, and wins.
const planChoiceSQL = `select source = 'default' from pg_catalog.pg_settings where name = 'plan_cache_mode'`

// checkPlanChoice runs planChoiceSQL once per connection, outside any
// request's transaction.
func checkPlanChoice(ctx context.Context, pc *pgconn.PgConn, cache *stmtCache) error {
	if cache.planChecked {
		return nil
	}
	res, err := pc.Exec(ctx, planChoiceSQL).ReadAll()
	if err != nil {
		return fmt.Errorf("read plan_cache_mode: %w", err)
	}
	cache.planChoice = len(res) == 1 && len(res[0].Rows) == 1 && string(res[0].Rows[0][0]) == "t"
	cache.planChecked = true
	return nil
}

// WarmUp is run once on each new connection: it makes the backend
// allocate and free one 1 MiB block. glibc serves a block that large with
// mmap, and freeing it raises the process's mmap threshold to its size and
// its heap-trim threshold to twice that (malloc's dynamic threshold).
// Without it, a backend whose heap happens to end in free memory gives the
// planner's memory back to the kernel after every statement planned for
// its values (a brk shrink, then page faults to take it back, and a TLB
// flush on every CPU), which is every request with a value rest binds
// rather than writes (plan.Sightings). Measured with restbench's many
// rare words after the rare word had run: about 15 page faults per
// request and 982 req/s; one or two and 1,176 req/s with this block; the
// same with a 4 MiB one (1,270–1,438 req/s), which took 40 ms to warm a
// connection where 1 MiB takes 16 ms (this machine's page faults are
// dear). Starting PostgreSQL with glibc.malloc.trim_threshold raised in
// GLIBC_TUNABLES does as much, but rest cannot do that for a server it
// only connects to. Other allocators just serve one block once.
func WarmUp(ctx context.Context, pc *pgconn.PgConn) error {
	if _, err := pc.Exec(ctx, warmUpSQL).ReadAll(); err != nil {
		return fmt.Errorf("warm up the connection: %w", err)
	}
	return nil
}

// warmUpSQL allocates the block as repeat's result: folded while planning
// or computed while executing, it is allocated and freed either way.
const warmUpSQL = "select pg_catalog.length(pg_catalog.repeat('x', 1048576))"

// ReadOnlySetting is the preamble setting that makes an implicit
// transaction read-only (what BEGIN … READ ONLY does for an explicit one).
var ReadOnlySetting = [2]string{"transaction_read_only", "on"}

// forget drops every kept statement when the server refused one as stale
// (the schema changed under it), so the next request prepares them again.
func forget(ctx context.Context, pc *pgconn.PgConn, cache *stmtCache, err error) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "0A000" {
		// "cached plan must not change result type": the schema changed
		// under a kept statement; drop them all.
		cache.reset()
		if pc.TxStatus() != 'I' {
			_, _ = pc.Exec(context.WithoutCancel(ctx), "rollback").ReadAll()
		}
		_, _ = pc.Exec(context.WithoutCancel(ctx), "deallocate all").ReadAll()
	}
}

// step is one expected pipeline answer; done records a completed Prepare.
type step struct {
	kind pending
	name string
	done bool
}

// readPipeline reads every answer of want, then the Sync. On failure it
// also returns the index of the step that failed (-1 for none: the Sync).
func readPipeline(pl *pgconn.Pipeline, want []step, res *Result, cache *stmtCache) (failed int, err error) {
	for i := range want {
		w := &want[i]
		r, err := pl.GetResults()
		if err != nil {
			return i, err
		}
		switch w.kind {
		case pPrepare:
			w.done = true
			if sd, ok := r.(*pgconn.StatementDescription); ok && len(sd.Fields) > 0 {
				cache.describe(w.name, sd)
			}
			continue
		case pDeallocate:
			continue
		}
		rr, ok := r.(*pgconn.ResultReader)
		if !ok {
			return i, fmt.Errorf("pipeline: unexpected %T", r)
		}
		if err := readResult(rr, w.kind, res); err != nil {
			return i, err
		}
	}
	r, err := pl.GetResults()
	if err != nil {
		return -1, err
	}
	if _, ok := r.(*pgconn.PipelineSync); !ok {
		return -1, fmt.Errorf("pipeline: expected sync, got %T", r)
	}
	return -1, nil
}

// readResult reads one statement's answer into res. Only the first row
// counts; the reader's buffers are reused, so what is kept is copied.
func readResult(rr *pgconn.ResultReader, kind pending, res *Result) error {
	first := true
	var derr error
	for rr.NextRow() {
		if kind == pExplain {
			if !first {
				res.Body = append(res.Body, '\n')
			}
			first = false
			if v := rr.Values(); len(v) > 0 {
				res.Body = append(res.Body, v[0]...)
			}
			continue
		}
		if !first {
			continue
		}
		first = false
		switch kind {
		case pPlanned:
			if vals := rr.Values(); len(vals) > 0 {
				n := PlanRows(vals[0])
				res.PlannedRows = &n
			}
		case pMain:
			derr = decodeMain(rr.Values(), res)
		}
	}
	if _, err := rr.Close(); err != nil {
		return err
	}
	if derr != nil {
		return derr
	}
	if kind == pMain && first {
		return errors.New("main statement returned no row")
	}
	return nil
}

func optInt(b []byte) (*int64, error) {
	if b == nil {
		return nil, nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("decode count %q: %w", b, err)
	}
	return &n, nil
}

func optStr(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

// decodeMain reads total_result_set, page_total, body, response_headers,
// response_status, response_inserted and location (all in text format);
// it copies what it keeps out of row.
func decodeMain(row [][]byte, res *Result) error {
	if len(row) != 7 {
		return fmt.Errorf("main statement returned %d columns", len(row))
	}
	var err error
	if res.Total, err = optInt(row[0]); err != nil {
		return err
	}
	pt, err := optInt(row[1])
	if err != nil {
		return err
	}
	if pt != nil {
		res.PageTotal = *pt
	}
	if row[2] != nil {
		res.Body = append([]byte{}, row[2]...)
	}
	res.GUCHeaders, res.GUCStatus = optStr(row[3]), optStr(row[4])
	if res.Inserted, err = optInt(row[5]); err != nil {
		return err
	}
	if len(row[6]) > 2 {
		if err := json.Unmarshal(row[6], &res.Location); err != nil {
			return fmt.Errorf("decode location: %w", err)
		}
	}
	return nil
}

// PlanRows reads "Plan Rows" from EXPLAIN (FORMAT JSON) output.
func PlanRows(plan []byte) int64 {
	var p []struct {
		Plan struct {
			Rows float64 `json:"Plan Rows"`
		} `json:"Plan"`
	}
	if json.Unmarshal(plan, &p) != nil || len(p) == 0 {
		return 0
	}
	return int64(p[0].Plan.Rows)
}

type querier struct{ pc *pgconn.PgConn }

func (q querier) QueryText(ctx context.Context, s sqlgen.Query) ([]byte, error) {
	rr := q.pc.ExecParams(ctx, s.SQL, s.Encoded().Params, nil, nil, nil)
	var out []byte
	got := false
	for rr.NextRow() {
		if !got {
			if v := rr.Values(); len(v) > 0 && v[0] != nil {
				out = append([]byte{}, v[0]...)
			}
			got = true
		}
	}
	_, err := rr.Close()
	return out, err
}

// Planned runs an EXPLAIN (FORMAT JSON) inside the transaction and returns
// its row estimate.
func Planned(ctx context.Context, q Querier, stmt sqlgen.Query) (int64, error) {
	plan, err := q.QueryText(ctx, stmt)
	if err != nil {
		return 0, err
	}
	return PlanRows(plan), nil
}

// mapError turns a driver error into PostgREST's answer.
func mapError(ctx context.Context, err error, authenticated bool) error {
	var pe *pgrsterr.Error
	if errors.As(err, &pe) {
		return pe
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgrsterr.FromPG(pgrsterr.PG{Code: pgErr.Code, Message: pgErr.Message, Detail: pgErr.Detail, Hint: pgErr.Hint}, authenticated)
	}
	return connError(ctx, err)
}

func connError(ctx context.Context, err error) error {
	if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
		return pgrsterr.Timeout()
	}
	var ce *pgconn.ConnectError
	if pgconn.SafeToRetry(err) || errors.Is(err, pgx.ErrTxClosed) || errors.As(err, &ce) || pgconn.Timeout(err) {
		return pgrsterr.Unavailable("")
	}
	return fmt.Errorf("run transaction: %w", err)
}
