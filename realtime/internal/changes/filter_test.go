package changes

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestParseFilter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    *Filter
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "id=eq.5", want: &Filter{Column: "id", Op: OpEq, Values: []string{"5"}}},
		{in: "name=neq.a.b", want: &Filter{Column: "name", Op: OpNeq, Values: []string{"a.b"}}},
		{in: `id=in.(1,2, 3)`, want: &Filter{Column: "id", Op: OpIn, Values: []string{"1", "2", "3"}}},
		{in: `t=in.("a,b","c\"d",e)`, want: &Filter{Column: "t", Op: OpIn, Values: []string{"a,b", `c"d`, "e"}}},
		{in: `t=in.()`, want: &Filter{Column: "t", Op: OpIn}},
		{in: "id=like.5", wantErr: true},
		{in: "id", wantErr: true},
		{in: "=eq.5", wantErr: true},
		{in: "id=eq5", wantErr: true},
		{in: `t=in.(1,2`, wantErr: true},
		{in: `t=in.("a)`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			t.Parallel()
			got, err := ParseFilter(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrFilter) {
					t.Fatalf("want ErrFilter, got %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gj, _ := json.Marshal(got)
			wj, _ := json.Marshal(tt.want)
			if string(gj) != string(wj) {
				t.Fatalf("got %s want %s", gj, wj)
			}
		})
	}
}

func TestFilterMatch(t *testing.T) {
	t.Parallel()
	rec := map[string]json.RawMessage{
		"id": json.RawMessage(`5`), "price": json.RawMessage(`12.50`), "name": json.RawMessage(`"beta"`),
		"ok": json.RawMessage(`true`), "gone": json.RawMessage(`null`), "uid": json.RawMessage(`"6f1c"`),
		"at": json.RawMessage(`"2026-11-20T10:00:00+00:00"`),
	}
	tests := []struct {
		filter string
		want   bool
	}{
		{"id=eq.5", true}, {"id=eq.5.0", true}, {"id=eq.6", false}, {"id=neq.6", true}, {"id=neq.5", false},
		{"id=lt.6", true}, {"id=lt.5", false}, {"id=lte.5", true}, {"id=gt.4", true}, {"id=gt.5", false}, {"id=gte.5", true},
		{"id=eq.abc", false}, {"id=eq.1e999999999", false}, {"id=eq.5e0", true},
		{"price=gt.12.4", true}, {"price=eq.12.5", true},
		{"name=eq.beta", true}, {"name=lt.gamma", true}, {"name=gt.gamma", false}, {"name=in.(alpha,beta)", true}, {"name=in.(alpha)", false},
		{"id=in.(1,5)", true}, {"id=in.()", false},
		{"ok=eq.true", true}, {"ok=eq.f", false}, {"ok=neq.false", true}, {"ok=eq.maybe", false},
		{"gone=eq.null", false}, {"gone=neq.1", false},
		{"missing=eq.1", false},
		{"at=gt.2026-11-19", true},
	}
	for _, tt := range tests {
		t.Run(tt.filter, func(t *testing.T) {
			t.Parallel()
			f, err := ParseFilter(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if got := f.Match(rec); got != tt.want {
				t.Fatalf("Match = %v, want %v", got, tt.want)
			}
		})
	}
	var none *Filter
	if !none.Match(nil) {
		t.Fatal("nil filter must match")
	}
}

func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"id=eq.5", `t=in.("a,b",c)`, "x=gte.1e5", "=", "a=in.(", `a=in.("\`} {
		f.Add(s)
	}
	rec := map[string]json.RawMessage{"id": json.RawMessage(`5`), "t": json.RawMessage(`"x"`), "x": json.RawMessage(`{"a":1}`)}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := ParseFilter(s)
		if err != nil || flt == nil {
			return
		}
		_ = flt.Match(rec)
	})
}

func TestSubscriptionMatches(t *testing.T) {
	t.Parallel()
	c := &Change{Schema: "public", Table: "properties", Type: Update}
	tests := []struct {
		sub  Subscription
		want bool
	}{
		{Subscription{Event: "*", Schema: "public", Table: "properties"}, true},
		{Subscription{Event: "UPDATE", Schema: "public"}, true},
		{Subscription{Event: "*", Schema: "public", Table: "*"}, true},
		{Subscription{Event: "INSERT", Schema: "public", Table: "properties"}, false},
		{Subscription{Event: "*", Schema: "private", Table: "properties"}, false},
		{Subscription{Event: "*", Schema: "public", Table: "products"}, false},
	}
	for i, tt := range tests {
		if got := tt.sub.Matches(c); got != tt.want {
			t.Errorf("%d: %+v Matches = %v, want %v", i, tt.sub, got, tt.want)
		}
	}
}

func TestDataEncode(t *testing.T) {
	t.Parallel()
	d := Data{Schema: "public", Table: "t", CommitTimestamp: "2026-11-20T10:00:00.123Z", Type: Update,
		Columns:   []Column{{"id", "int4"}, {"name", "text"}},
		Record:    map[string]json.RawMessage{"name": json.RawMessage(`"n"`), "id": json.RawMessage(`1`)},
		OldRecord: map[string]json.RawMessage{"id": json.RawMessage(`1`)}}
	got := string(Message([]uint32{7, 9}, d.Encode()))
	want := `{"ids":[7,9],"data":{"schema":"public","table":"t","commit_timestamp":"2026-11-20T10:00:00.123Z","type":"UPDATE","columns":[{"name":"id","type":"int4"},{"name":"name","type":"text"}],"record":{"id":1,"name":"n"},"old_record":{"id":1},"errors":null}}`
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	del := Data{Schema: "public", Table: "t", Type: Delete, Columns: []Column{{"id", "int4"}}, OldRecord: map[string]json.RawMessage{"id": json.RawMessage(`1`)}}
	if g := string(del.Encode()); g != `{"schema":"public","table":"t","commit_timestamp":"","type":"DELETE","columns":[{"name":"id","type":"int4"}],"old_record":{"id":1},"errors":null}` {
		t.Fatalf("delete: %s", g)
	}
}
