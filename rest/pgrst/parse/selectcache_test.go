package parse

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestSelectCache(t *testing.T) {
	t.Parallel()
	var c SelectCache
	const cols = "id,title,price::text,author:authors(name)"
	first, err := c.parse(cols)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ParseSelect(cols)
	if !reflect.DeepEqual(first, want) {
		t.Fatalf("cached parse = %#v, want ParseSelect's %#v", first, want)
	}
	again, _ := c.parse(cols)
	if len(again) == 0 || again[0] != first[0] {
		t.Error("the same select list was parsed again, want the kept tree")
	}
	// An error is answered each time and not kept.
	for range 2 {
		if _, err := c.parse("id,("); err == nil {
			t.Error("a broken select list parsed without error")
		}
	}
	if _, ok := c.m["id,("]; ok {
		t.Error("a broken select list was kept")
	}
	// A long list is parsed, not kept.
	long := strings.Repeat("abcdefghijklmnop,", maxCachedSelect/16) + "b"
	if _, err := c.parse(long); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.m[long]; ok {
		t.Errorf("a select list of %d bytes was kept (limit %d)", len(long), maxCachedSelect)
	}
	// The cache stays bounded.
	for i := range selectCacheSize * 2 {
		if _, err := c.parse("c" + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.m); n > selectCacheSize {
		t.Errorf("%d select lists kept, want at most %d", n, selectCacheSize)
	}
	// A nil cache parses every time.
	var none *SelectCache
	if items, err := none.parse(cols); err != nil || !reflect.DeepEqual(items, want) {
		t.Errorf("nil cache: %v, %v", items, err)
	}
}
