package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// A restbench killed by SIGKILL cannot drop its database (its children
// die with it: childAttr). Each database is labelled with its owner's pid
// and host, as the database's comment, and a later run on the same host
// drops those whose owner is no longer running.

// benchPrefix starts the name of every benchmark database.
const benchPrefix = "kejanest_bench_"

// ownerLabel is the comment of a database owned by restbench pid on host.
func ownerLabel(pid int, host string) string {
	return "restbench pid " + strconv.Itoa(pid) + " on " + host
}

// leftover reports whether a database with comment was left by a
// restbench on host that is no longer running. A database without the
// label, or another host's, is never one: its owner cannot be checked.
func leftover(comment, host string, running func(pid int) bool) bool {
	rest, ok := strings.CutPrefix(comment, "restbench pid ")
	if !ok {
		return false
	}
	p, h, ok := strings.Cut(rest, " on ")
	if !ok || h != host {
		return false
	}
	pid, err := strconv.Atoi(p)
	if err != nil || pid <= 0 {
		return false
	}
	return !running(pid)
}

// labelDatabase writes name's owner label.
func labelDatabase(ctx context.Context, admin, name, label string) error {
	return execAdmin(ctx, admin, "comment on database "+pgx.Identifier{name}.Sanitize()+" is '"+strings.ReplaceAll(label, "'", "''")+"'")
}

// dropLeftovers drops the benchmark databases that restbench runs on host
// left behind, and names them.
func dropLeftovers(ctx context.Context, admin, host string) error {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	rows, err := conn.Query(ctx, `select datname, coalesce(pg_catalog.shobj_description(oid, 'pg_database'), '')
		from pg_catalog.pg_database where starts_with(datname, $1)`, benchPrefix)
	if err != nil {
		return fmt.Errorf("list benchmark databases: %w", err)
	}
	var stale []string
	for rows.Next() {
		var name, comment string
		if err := rows.Scan(&name, &comment); err != nil {
			return err
		}
		if leftover(comment, host, processRunning) {
			stale = append(stale, name)
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, name := range stale {
		if _, err := conn.Exec(ctx, "drop database if exists "+pgx.Identifier{name}.Sanitize()+" with (force)"); err != nil {
			return fmt.Errorf("drop leftover database %s: %w", name, err)
		}
		fmt.Printf("dropped %s, left by a restbench no longer running\n", name)
	}
	return nil
}
