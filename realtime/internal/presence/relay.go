package presence

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/kejanest/kejanest/realtime/internal/channel"
)

// NotifyChannel is the LISTEN channel replicas announce presence changes
// on. Payloads are small and never carry metas: {"r":replica,"op":…} with
// op "diff" ("j": refs joined, "l": refs left), "sync" (re-read the
// replica's rows) or "down" (the replica is gone; its presences leave).
const NotifyChannel = "realtime_presence"

// DefaultReplicaTimeout is how long a replica may go without a heartbeat
// before the others drop its presences.
const DefaultReplicaTimeout = 5 * time.Second

// maxNotify is the largest NOTIFY payload sent; Postgres refuses 8000 bytes.
const maxNotify = 7900

// opTimeout bounds one database round of the relay.
const opTimeout = 5 * time.Second

// resyncRetry is the pause before a failed resync is tried again.
const resyncRetry = time.Second

// Relay replicates presence between the replicas sharing one database,
// which is the only thing they share:
//
//   - This replica's presences are rows of realtime.presences under its row
//     in realtime.presence_replicas. Each batch of local tracks and
//     untracks is written in one transaction that also sends a NOTIFY with
//     the refs joined and left; the other replicas re-read the joined rows
//     (so metas of any size travel through the table, not the NOTIFY) and
//     push the same presence_diff to their channels.
//   - Every Timeout/3 the replica refreshes its heartbeat_at and deletes the
//     replicas whose heartbeat is older than Timeout (their presences go by
//     cascade) with a "down" NOTIFY, so a replica killed without a clean
//     shutdown leaves no ghosts. Time is the database's clock.
//   - After every (re)connection of the LISTEN connection (Resync), the
//     mirror of the other replicas is reloaded from the table, so a replica
//     that starts late, or missed notifications, catches up.
//   - When its own writes failed, or it was declared down while cut off,
//     the replica republishes its whole state (and NOTIFYs "sync").
//   - Run announces this replica's leaves at once when it stops.
type Relay struct {
	tracker *Tracker
	reg     *channel.Registry
	pool    *pgxpool.Pool
	log     *slog.Logger
	timeout time.Duration

	id       string
	in       chan notice
	resync   chan struct{}
	synced   chan struct{}
	syncOnce sync.Once
}

type notice struct {
	Replica string   `json:"r"`
	Op      string   `json:"op"`
	Joins   []string `json:"j,omitempty"`
	Leaves  []string `json:"l,omitempty"`
}

// Notice operations.
const (
	opDiff = "diff"
	opSync = "sync"
	opDown = "down"
)

// NewRelay returns a Relay for t's presences, delivering the other
// replicas' diffs to reg's channels; timeout <= 0 means
// DefaultReplicaTimeout. From now on t logs its changes for the relay; call
// Run to start replicating.
func NewRelay(t *Tracker, reg *channel.Registry, pool *pgxpool.Pool, log *slog.Logger, timeout time.Duration) *Relay {
	if timeout <= 0 {
		timeout = DefaultReplicaTimeout
	}
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	t.startLog()
	return &Relay{
		tracker: t, reg: reg, pool: pool, log: log, timeout: timeout,
		id:     hex.EncodeToString(b),
		in:     make(chan notice, 4096),
		resync: make(chan struct{}, 1),
		synced: make(chan struct{}),
	}
}

// Synced is closed once the mirror of the other replicas has been loaded
// for the first time.
func (r *Relay) Synced() <-chan struct{} { return r.synced }

// HandleNotify takes one NotifyChannel notification from the LISTEN
// connection; it never blocks. If the queue is full the notification is
// dropped and the mirror reloaded instead.
func (r *Relay) HandleNotify(payload []byte) {
	var n notice
	if err := json.Unmarshal(payload, &n); err != nil || n.Replica == "" || n.Replica == r.id {
		return
	}
	select {
	case r.in <- n:
	default:
		select {
		case r.resync <- struct{}{}: // logged once per burst
			r.log.Warn("presence relay queue full; reloading presence state")
		default:
		}
	}
}

// Resync asks for the mirror of the other replicas to be reloaded from the
// table. Call it after the LISTEN connection is (re)established and
// listening: notifications may have been missed while it was down.
func (r *Relay) Resync() {
	select {
	case r.resync <- struct{}{}:
	default:
	}
}

// Run replicates until ctx ends, then deletes this replica's row, which
// makes its presences leave on the other replicas at once.
func (r *Relay) Run(ctx context.Context) {
	r.log.Info("presence relay started", "replica", r.id, "timeout", r.timeout.String())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); r.receive(ctx) }()
	r.publish(ctx)
	wg.Wait()
	r.leave()
}

// publish writes this replica's changes and heartbeats.
func (r *Relay) publish(ctx context.Context) {
	beat := time.NewTicker(r.timeout / 3)
	defer beat.Stop()
	// published is true while the table holds exactly what was logged up
	// to the last takePending; after a failure the whole state is written
	// again.
	published := r.republish(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.tracker.changed:
			if !published {
				continue // retried on the next heartbeat
			}
			ups, overflow := r.tracker.takePending()
			if overflow {
				published = r.republish(ctx)
				continue
			}
			if err := r.write(ctx, ups); err != nil {
				if ctx.Err() == nil {
					r.log.Warn("presence relay: write", "error", err.Error())
				}
				published = false
			}
		case <-beat.C:
			alive, err := r.heartbeat(ctx)
			if err != nil {
				if ctx.Err() == nil {
					r.log.Warn("presence relay: heartbeat", "error", err.Error())
				}
				continue
			}
			if !alive {
				r.log.Warn("presence relay: this replica was declared down; republishing its presences", "replica", r.id)
				published = false
			}
			if !published {
				published = r.republish(ctx)
			}
			if err := r.reap(ctx); err != nil && ctx.Err() == nil {
				r.log.Warn("presence relay: reap", "error", err.Error())
			}
		}
	}
}

// republish replaces this replica's rows with its whole state and tells the
// others to re-read them; it reports success.
func (r *Relay) republish(parent context.Context) bool {
	ctx, cancel := context.WithTimeout(parent, opTimeout)
	defer cancel()
	ps := r.tracker.local()
	err := pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `insert into realtime.presence_replicas (id) values ($1)
			on conflict (id) do update set heartbeat_at = now()`, r.id); err != nil {
			return fmt.Errorf("register replica: %w", err)
		}
		if _, err := tx.Exec(ctx, "delete from realtime.presences where replica_id = $1", r.id); err != nil {
			return fmt.Errorf("clear presences: %w", err)
		}
		if err := r.insert(ctx, tx, ps); err != nil {
			return err
		}
		return r.notify(ctx, tx, []notice{{Replica: r.id, Op: opSync}})
	})
	if err != nil {
		if parent.Err() == nil {
			r.log.Warn("presence relay: publish state", "error", err.Error())
		}
		return false
	}
	return true
}

// write publishes a batch of updates in one transaction. A presence that
// joined and left within the batch is neither written nor announced.
func (r *Relay) write(ctx context.Context, ups []Update) error {
	var joins []Presence
	var leaves []string
	at := map[string]int{} // ref -> index in joins
	for _, u := range ups {
		for _, ref := range u.Leaves {
			if i, ok := at[ref]; ok {
				joins[i].Ref = ""
				delete(at, ref)
				continue
			}
			leaves = append(leaves, ref)
		}
		if u.Join != nil {
			at[u.Join.Ref] = len(joins)
			joins = append(joins, *u.Join)
		}
	}
	kept := joins[:0]
	for _, p := range joins {
		if p.Ref != "" {
			kept = append(kept, p)
		}
	}
	joins = kept
	if len(joins) == 0 && len(leaves) == 0 {
		return nil
	}
	joined := make([]string, len(joins))
	for i, p := range joins {
		joined[i] = p.Ref
	}
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	return pgx.BeginFunc(ctx, r.pool, func(tx pgx.Tx) error {
		if len(leaves) > 0 {
			if _, err := tx.Exec(ctx, "delete from realtime.presences where replica_id = $1 and ref = any($2)", r.id, leaves); err != nil {
				return fmt.Errorf("delete presences: %w", err)
			}
		}
		// Fails on the foreign key when this replica was declared down;
		// the republish that follows registers it again.
		if err := r.insert(ctx, tx, joins); err != nil {
			return err
		}
		return r.notify(ctx, tx, splitNotice(notice{Replica: r.id, Op: opDiff, Joins: joined, Leaves: leaves}))
	})
}

func (r *Relay) insert(ctx context.Context, tx pgx.Tx, ps []Presence) error {
	if len(ps) == 0 {
		return nil
	}
	refs := make([]string, len(ps))
	private := make([]bool, len(ps))
	topics := make([]string, len(ps))
	keys := make([]string, len(ps))
	metas := make([]string, len(ps))
	for i, p := range ps {
		refs[i], private[i], topics[i], keys[i], metas[i] = p.Ref, p.Topic.Private, p.Topic.Name, p.Key, string(p.Meta)
	}
	_, err := tx.Exec(ctx, `insert into realtime.presences (ref, replica_id, private, topic, key, meta)
		select u.ref, $1, u.private, u.topic, u.key, u.meta::json
		from unnest($2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[]) as u(ref, private, topic, key, meta)`,
		r.id, refs, private, topics, keys, metas)
	if err != nil {
		return fmt.Errorf("insert presences: %w", err)
	}
	return nil
}

// notify sends ns, in order, when tx commits.
func (r *Relay) notify(ctx context.Context, tx pgx.Tx, ns []notice) error {
	payloads := make([]string, len(ns))
	for i, n := range ns {
		b, err := json.Marshal(n)
		if err != nil {
			return fmt.Errorf("encode presence notice: %w", err)
		}
		payloads[i] = string(b)
	}
	if _, err := tx.Exec(ctx, "select pg_notify($1, p) from unnest($2::text[]) with ordinality as u(p, i) order by i",
		NotifyChannel, payloads); err != nil {
		return fmt.Errorf("notify presence: %w", err)
	}
	return nil
}

// splitNotice cuts a diff notice into notices whose payloads fit NOTIFY.
func splitNotice(n notice) []notice {
	base := len(`{"r":"","op":"diff","j":[],"l":[]}`) + len(n.Replica)
	var out []notice
	cur := notice{Replica: n.Replica, Op: n.Op}
	size := base
	add := func(ref string, leave bool) {
		if size+len(ref)+3 > maxNotify {
			out = append(out, cur)
			cur, size = notice{Replica: n.Replica, Op: n.Op}, base
		}
		size += len(ref) + 3
		if leave {
			cur.Leaves = append(cur.Leaves, ref)
		} else {
			cur.Joins = append(cur.Joins, ref)
		}
	}
	// Leaves first: a receiver applies a notice's leaves before its joins,
	// and a re-track's leave and join stay in one notice unless it is cut.
	for _, ref := range n.Leaves {
		add(ref, true)
	}
	for _, ref := range n.Joins {
		add(ref, false)
	}
	return append(out, cur)
}

// heartbeat refreshes this replica's row; false means it is gone (declared
// down by another replica, or never registered).
func (r *Relay) heartbeat(ctx context.Context) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	tag, err := r.pool.Exec(ctx, "update realtime.presence_replicas set heartbeat_at = now() where id = $1", r.id)
	if err != nil {
		return false, err
	}
	return tag.RowsAffected() == 1, nil
}

// reap deletes the other replicas whose heartbeat is older than the
// timeout (their presences go by cascade) and announces each with a "down"
// notice. This replica's own row is its heartbeat's business: after a long
// outage it finds the row gone and republishes.
func (r *Relay) reap(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	rows, err := r.pool.Query(ctx, `with gone as (
			delete from realtime.presence_replicas
			where heartbeat_at < now() - $1::bigint * interval '1 millisecond' and id <> $3
			returning id)
		select id, pg_notify($2, json_build_object('r', id, 'op', 'down')::text)::text from gone`,
		r.timeout.Milliseconds(), NotifyChannel, r.id)
	if err != nil {
		return err
	}
	ids, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (string, error) {
		var id, void string
		err := row.Scan(&id, &void)
		return id, err
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		r.log.Info("presence relay: replica missed its heartbeats; its presences leave", "replica", id)
	}
	return nil
}

// leave deletes this replica's row (and by cascade its presences) and
// announces it, for a clean shutdown.
func (r *Relay) leave() {
	ctx, cancel := context.WithTimeout(context.Background(), opTimeout)
	defer cancel()
	_, err := r.pool.Exec(ctx, `with gone as (delete from realtime.presence_replicas where id = $1 returning id)
		select pg_notify($2, json_build_object('r', id, 'op', 'down')::text) from gone`, r.id, NotifyChannel)
	if err != nil {
		r.log.Warn("presence relay: announce shutdown", "error", err.Error())
	}
}

// receive applies the other replicas' changes to the mirror.
func (r *Relay) receive(ctx context.Context) {
	var retry <-chan time.Time
	resync := func() {
		if err := r.reload(ctx); err != nil {
			if ctx.Err() == nil {
				r.log.Warn("presence relay: reload presence state", "error", err.Error(), "retry", resyncRetry.String())
			}
			retry = time.After(resyncRetry)
			return
		}
		retry = nil
		r.syncOnce.Do(func() { close(r.synced) })
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.resync:
			resync()
		case <-retry:
			resync()
		case n := <-r.in:
			if err := r.apply(ctx, n); err != nil {
				if ctx.Err() == nil {
					r.log.Warn("presence relay: apply a change; reloading presence state", "op", n.Op, "error", err.Error())
				}
				r.Resync()
			}
		}
	}
}

const selectPresences = "select ref, replica_id, private, topic, key, meta::text from realtime.presences"

func (r *Relay) query(ctx context.Context, where string, args ...any) ([]Presence, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	rows, err := r.pool.Query(ctx, selectPresences+" where "+where+" order by id", args...)
	if err != nil {
		return nil, fmt.Errorf("read presences: %w", err)
	}
	ps, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Presence, error) {
		var p Presence
		var meta string
		err := row.Scan(&p.Ref, &p.Replica, &p.Topic.Private, &p.Topic.Name, &p.Key, &meta)
		p.Meta = json.RawMessage(meta)
		return p, err
	})
	if err != nil {
		return nil, fmt.Errorf("read presences: %w", err)
	}
	return ps, nil
}

// reload replaces the mirror with the table's rows of the other replicas,
// after deleting the replicas that are down (so a crashed replica's rows
// are not loaded as ghosts).
func (r *Relay) reload(ctx context.Context) error {
	if err := r.reap(ctx); err != nil {
		return fmt.Errorf("reap: %w", err)
	}
	ps, err := r.query(ctx, "replica_id <> $1", r.id)
	if err != nil {
		return err
	}
	r.deliver(r.tracker.ReplaceRemote("", ps))
	return nil
}

func (r *Relay) apply(ctx context.Context, n notice) error {
	switch n.Op {
	case opDown:
		r.deliver(r.tracker.ReplaceRemote(n.Replica, nil))
	case opSync:
		ps, err := r.query(ctx, "replica_id = $1", n.Replica)
		if err != nil {
			return err
		}
		r.deliver(r.tracker.ReplaceRemote(n.Replica, ps))
	case opDiff:
		var joins []Presence
		if len(n.Joins) > 0 {
			// Rows already gone were untracked since; their leave follows.
			var err error
			if joins, err = r.query(ctx, "replica_id = $1 and ref = any($2)", n.Replica, n.Joins); err != nil {
				return err
			}
		}
		r.deliver(r.tracker.ApplyRemote(n.Leaves, joins))
	default:
		return errors.New("unknown presence notice " + n.Op)
	}
	return nil
}

// deliver pushes each diff to the channels joined to its topic here.
func (r *Relay) deliver(ds []TopicDiff) {
	for _, td := range ds {
		members := r.reg.Members(td.Topic)
		if len(members) == 0 {
			continue
		}
		payload := td.Diff.JSON()
		for _, c := range members {
			c.Push("presence_diff", payload)
		}
	}
}
