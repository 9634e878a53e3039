package parse

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kejanest/kejanest/rest/pgrst/pgrsterr"
)

// syntaxError is a grammar failure at a byte offset; toPGRST turns it into
// PostgREST's PGRST100 body: message `"failed to parse <what> (<input>)"
// (line 1, column N)`, details `unexpected … expecting …`.
type syntaxError struct {
	pos       int
	unexpect  string
	expecting string
}

func (e *syntaxError) Error() string { return e.details() }

func (e *syntaxError) details() string {
	d := "unexpected " + e.unexpect
	if e.expecting != "" {
		d += " expecting " + e.expecting
	}
	return d
}

func toPGRST(what, input string, err error) *pgrsterr.Error {
	se, ok := err.(*syntaxError)
	if !ok {
		return pgrsterr.QueryParam(fmt.Sprintf("%q", "failed to parse "+what+" ("+input+")"), err.Error())
	}
	col := utf8.RuneCountInString(input[:min(se.pos, len(input))]) + 1
	return pgrsterr.QueryParam(fmt.Sprintf("%q (line 1, column %d)", "failed to parse "+what+" ("+input+")", col), se.details())
}

// scanner is a cursor over one parameter value.
type scanner struct {
	s     string
	i     int
	depth int
	items int
}

func (p *scanner) eof() bool { return p.i >= len(p.s) }

func (p *scanner) peek() byte {
	if p.eof() {
		return 0
	}
	return p.s[p.i]
}

func (p *scanner) has(prefix string) bool { return strings.HasPrefix(p.s[p.i:], prefix) }

func (p *scanner) fail(expecting string) error {
	if p.eof() {
		return &syntaxError{pos: p.i, unexpect: "end of input", expecting: expecting}
	}
	r, _ := utf8.DecodeRuneInString(p.s[p.i:])
	return &syntaxError{pos: p.i, unexpect: fmt.Sprintf("%q", string(r)), expecting: expecting}
}

func (p *scanner) expect(c byte, what string) error {
	if p.peek() != c || p.eof() {
		return p.fail(what)
	}
	p.i++
	return nil
}

func (p *scanner) ws() {
	for !p.eof() && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

func (p *scanner) countItem() error {
	p.items++
	if p.items > MaxItems {
		return &syntaxError{pos: p.i, unexpect: "item", expecting: fmt.Sprintf("at most %d items", MaxItems)}
	}
	return nil
}

func (p *scanner) enter() error {
	p.depth++
	if p.depth > MaxDepth {
		return &syntaxError{pos: p.i, unexpect: "nesting", expecting: fmt.Sprintf("at most %d levels", MaxDepth)}
	}
	return nil
}

func isIdentRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == ' ' || r == '$'
}

// identifier reads [letters digits _ space $]+, trimmed.
func (p *scanner) identifier() (string, bool) {
	start := p.i
	for !p.eof() {
		r, n := utf8.DecodeRuneInString(p.s[p.i:])
		if !isIdentRune(r) {
			break
		}
		p.i += n
	}
	if p.i == start {
		return "", false
	}
	return strings.TrimSpace(p.s[start:p.i]), true
}

// quoted reads "…" with backslash escapes; ok is false (and nothing is
// consumed) when the input does not start with a quote.
func (p *scanner) quoted() (string, bool, error) {
	if p.peek() != '"' || p.eof() {
		return "", false, nil
	}
	var b strings.Builder
	j := p.i + 1
	for j < len(p.s) {
		c := p.s[j]
		switch c {
		case '\\':
			if j+1 >= len(p.s) {
				return "", false, &syntaxError{pos: j + 1, unexpect: "end of input"}
			}
			b.WriteByte(p.s[j+1])
			j += 2
			continue
		case '"':
			p.i = j + 1
			return b.String(), true, nil
		}
		b.WriteByte(c)
		j++
	}
	return "", false, &syntaxError{pos: len(p.s), unexpect: "end of input", expecting: `"\""`}
}

// dash reports a '-' that does not start "->".
func (p *scanner) dash() bool {
	return p.peek() == '-' && !p.eof() && !strings.HasPrefix(p.s[p.i:], "->")
}

// fieldName reads a quoted name or identifiers joined by '-'.
func (p *scanner) fieldName() (string, error) {
	if q, ok, err := p.quoted(); err != nil {
		return "", err
	} else if ok {
		return q, nil
	}
	id, ok := p.identifier()
	if !ok {
		return "", p.fail("field name (* or [a..z0..9_$])")
	}
	parts := []string{id}
	for p.dash() {
		save := p.i
		p.i++
		next, ok := p.identifier()
		if !ok {
			p.i = save
			break
		}
		parts = append(parts, next)
	}
	return strings.Join(parts, "-"), nil
}

// jsonPath reads (->|->>)operand steps.
func (p *scanner) jsonPath() ([]JSONOp, error) {
	var out []JSONOp
	for {
		var op JSONOp
		switch {
		case p.has("->>"):
			op.Text = true
			p.i += 3
		case p.has("->"):
			p.i += 2
		default:
			return out, nil
		}
		if len(out) >= MaxItems {
			return nil, p.fail("a shorter JSON path")
		}
		// An index: -?digits followed by ->, ::, ., , or the end.
		j := p.i
		if j < len(p.s) && p.s[j] == '-' {
			j++
		}
		k := j
		for k < len(p.s) && p.s[k] >= '0' && p.s[k] <= '9' {
			k++
		}
		if k > j {
			rest := p.s[k:]
			if rest == "" || strings.HasPrefix(rest, "->") || strings.HasPrefix(rest, "::") || rest[0] == '.' || rest[0] == ',' {
				sign := "+"
				if p.s[p.i] == '-' {
					sign = "-"
				}
				op.Key, op.Index = sign+p.s[j:k], true
				p.i = k
				out = append(out, op)
				continue
			}
			if p.s[p.i] == '-' {
				return nil, &syntaxError{pos: k, unexpect: fmt.Sprintf("%q", rest[:1]), expecting: `digit, "->", "::", ".", "," or end of input`}
			}
		}
		key, err := p.jsonKey()
		if err != nil {
			return nil, err
		}
		op.Key = key
		out = append(out, op)
	}
}

func (p *scanner) jsonKey() (string, error) {
	if q, ok, err := p.quoted(); err != nil {
		return "", err
	} else if ok {
		return q, nil
	}
	piece := func() (string, bool) {
		start := p.i
		for !p.eof() && !strings.ContainsRune("(-:.,>)", rune(p.s[p.i])) {
			p.i++
		}
		if p.i == start {
			return "", false
		}
		return strings.TrimSpace(p.s[start:p.i]), true
	}
	k, ok := piece()
	if !ok {
		return "", p.fail("any non reserved character different from: .,>()")
	}
	parts := []string{k}
	for p.dash() {
		save := p.i
		p.i++
		next, ok := piece()
		if !ok {
			p.i = save
			break
		}
		parts = append(parts, next)
	}
	return strings.Join(parts, "-"), nil
}

// field reads fieldName and a JSON path, surrounded by blanks.
func (p *scanner) field() (Field, error) {
	p.ws()
	name, err := p.fieldName()
	if err != nil {
		return Field{}, err
	}
	jp, err := p.jsonPath()
	if err != nil {
		return Field{}, err
	}
	p.ws()
	return Field{Name: name, JSONPath: jp}, nil
}

// aliasPrefix reads "name:" (not "name::") if present.
func (p *scanner) aliasPrefix() (string, error) {
	save := p.i
	name, err := p.fieldName()
	if err != nil {
		p.i = save
		return "", nil
	}
	if p.peek() == ':' && !p.has("::") {
		p.i++
		return name, nil
	}
	p.i = save
	return "", nil
}

func (p *scanner) castIdent() (string, error) {
	start := p.i
	id, ok := p.identifier()
	if !ok {
		return "", p.fail("letter or digit")
	}
	// The type is written into the SQL as is (see sqlgen.castExpr), and a
	// word starting with "$" would open a dollar-quoted string or name a
	// parameter there. No type name starts with "$".
	for w := range strings.FieldsSeq(id) {
		if strings.HasPrefix(w, "$") {
			p.i = start + strings.Index(p.s[start:], w)
			return "", p.fail("letter or digit")
		}
	}
	return id, nil
}

// ParseSelect parses a select= value.
func ParseSelect(s string) ([]*SelectItem, error) {
	p := &scanner{s: s}
	items, err := p.selectForest()
	if err == nil && !p.eof() {
		err = p.fail(`",", ")" or end of input`)
	}
	if err != nil {
		return nil, toPGRST("select parameter", s, err)
	}
	return items, nil
}

func (p *scanner) selectForest() ([]*SelectItem, error) {
	var out []*SelectItem
	p.ws()
	if p.eof() || p.peek() == ')' {
		return out, nil
	}
	for {
		if err := p.countItem(); err != nil {
			return nil, err
		}
		it, err := p.selectItem()
		if err != nil {
			return nil, err
		}
		out = append(out, it)
		p.ws()
		if p.peek() != ',' || p.eof() {
			return out, nil
		}
		p.i++
		p.ws()
	}
}

func (p *scanner) atItemEnd() bool {
	return p.eof() || p.peek() == ',' || p.peek() == ')'
}

func (p *scanner) selectItem() (*SelectItem, error) {
	p.ws()
	start := p.i
	// Spread: ...relation[!hint][!inner](…)
	if p.has("...") {
		p.i += 3
		name, err := p.fieldName()
		if err != nil {
			return nil, err
		}
		it := &SelectItem{Kind: SelectSpread, Relation: name}
		if err := p.embedParams(it); err != nil {
			return nil, err
		}
		return p.embedChildren(it)
	}
	// Relation: [alias:]name[!hint][!inner](…)
	if it, ok, err := p.tryRelation(); err != nil {
		return nil, err
	} else if ok {
		return it, nil
	}
	p.i = start
	// *
	if p.peek() == '*' {
		p.i++
		p.ws()
		if !p.atItemEnd() {
			return nil, p.fail(`")", "," or end of input`)
		}
		return &SelectItem{Kind: SelectField, Field: Field{Name: "*"}}, nil
	}
	alias, err := p.aliasPrefix()
	if err != nil {
		return nil, err
	}
	// count()
	if p.has("count()") {
		save := p.i
		p.i += len("count()")
		it := &SelectItem{Kind: SelectField, Field: Field{Name: "*"}, Aggregate: AggCount, Alias: alias}
		if p.has("::") {
			p.i += 2
			if it.AggregateCast, err = p.castIdent(); err != nil {
				return nil, err
			}
		}
		p.ws()
		if p.atItemEnd() {
			return it, nil
		}
		p.i = save
	}
	f, err := p.field()
	if err != nil {
		return nil, err
	}
	it := &SelectItem{Kind: SelectField, Field: f, Alias: alias}
	if p.has("::") {
		p.i += 2
		if it.Cast, err = p.castIdent(); err != nil {
			return nil, err
		}
	}
	if p.peek() == '.' && !p.eof() {
		save := p.i
		p.i++
		for _, agg := range []string{AggSum, AggAvg, AggCount, AggMax, AggMin} {
			if p.has(agg + "()") {
				it.Aggregate = agg
				p.i += len(agg) + 2
				break
			}
		}
		if it.Aggregate == "" {
			p.i = save
		} else if p.has("::") {
			p.i += 2
			if it.AggregateCast, err = p.castIdent(); err != nil {
				return nil, err
			}
		}
	}
	p.ws()
	if !p.atItemEnd() {
		return nil, p.fail(`letter, digit, "-", "->>", "->", "::", ".", ")", "," or end of input`)
	}
	return it, nil
}

func (p *scanner) tryRelation() (*SelectItem, bool, error) {
	save := p.i
	alias, err := p.aliasPrefix()
	if err != nil {
		return nil, false, err
	}
	name, err := p.fieldName()
	if err != nil || name == "count" {
		p.i = save
		return nil, false, nil
	}
	it := &SelectItem{Kind: SelectRelation, Relation: name, Alias: alias}
	if err := p.embedParams(it); err != nil {
		p.i = save
		return nil, false, nil
	}
	if p.peek() != '(' || p.eof() {
		p.i = save
		return nil, false, nil
	}
	out, err := p.embedChildren(it)
	return out, true, err
}

// embedParams reads up to two of !inner, !left, !hint.
func (p *scanner) embedParams(it *SelectItem) error {
	for range 2 {
		if p.peek() != '!' || p.eof() {
			return nil
		}
		p.i++
		switch {
		case p.has("left") && !continuesIdent(p.s, p.i+4):
			p.i += 4
			it.JoinType = "left"
		case p.has("inner") && !continuesIdent(p.s, p.i+5):
			p.i += 5
			it.JoinType = "inner"
		default:
			h, err := p.fieldName()
			if err != nil {
				return err
			}
			if it.Hint == "" {
				it.Hint = h
			}
		}
	}
	return nil
}

// continuesIdent reports whether an identifier goes on at s[i].
func continuesIdent(s string, i int) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return isIdentRune(r) || r == '-'
}

func (p *scanner) embedChildren(it *SelectItem) (*SelectItem, error) {
	if err := p.expect('(', `"("`); err != nil {
		return nil, err
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	kids, err := p.selectForest()
	if err != nil {
		return nil, err
	}
	p.depth--
	if err := p.expect(')', `")"`); err != nil {
		return nil, err
	}
	it.Children = kids
	p.ws()
	return it, nil
}

// opExpr reads [not.]op…; singleVal reads the value of single-value
// operators (the rest of the input, or up to , / ) inside logic trees).
func (p *scanner) opExpr(inLogic bool) (OpExpr, error) {
	var e OpExpr
	if p.has("not.") {
		e.Not = true
		p.i += 4
	}
	switch {
	case p.has("in."):
		p.i += 3
		list, err := p.listVal()
		if err != nil {
			return e, err
		}
		e.Op, e.List = OpIn, list
		return e, nil
	case p.has("is."):
		p.i += 3
		rest := p.s[p.i:]
		if inLogic {
			end := strings.IndexAny(rest, ",)")
			if end >= 0 {
				rest = rest[:end]
			}
		}
		for _, v := range []string{"null", "not_null", "true", "false", "unknown"} {
			if len(rest) >= len(v) && strings.EqualFold(rest[:len(v)], v) {
				e.Op, e.Is = OpIs, v
				p.i += len(v)
				return e, nil
			}
		}
		return e, p.fail("isVal: (null, not_null, true, false, unknown)")
	case p.has("isdistinct."):
		p.i += len("isdistinct.")
		e.Op = OpIsDistinct
		v, err := p.singleVal(inLogic)
		e.Value = v
		return e, err
	}
	for _, op := range []string{OpFts, OpPlFts, OpPhFts, OpWFts} {
		if !p.has(op) {
			continue
		}
		save := p.i
		p.i += len(op)
		if p.peek() == '(' && !p.eof() {
			p.i++
			lang, ok := p.identifier()
			if !ok || p.peek() != ')' {
				p.i = save
				continue
			}
			p.i++
			e.Lang = lang
		}
		if p.peek() != '.' || p.eof() {
			p.i = save
			e.Lang = ""
			continue
		}
		p.i++
		e.Op = op
		v, err := p.singleVal(inLogic)
		e.Value = v
		return e, err
	}
	for _, op := range []string{OpNeq, OpCs, OpCd, OpOv, OpSl, OpSr, OpNxr, OpNxl, OpAdj} {
		if p.has(op + ".") {
			p.i += len(op) + 1
			e.Op = op
			v, err := p.singleVal(inLogic)
			e.Value = v
			return e, err
		}
	}
	for _, op := range []string{OpEq, OpGte, OpGt, OpLte, OpLt, OpLike, OpILike, OpMatch, OpIMatch} {
		if !p.has(op) {
			continue
		}
		save := p.i
		p.i += len(op)
		switch {
		case p.has("(any)"):
			e.Quant = "any"
			p.i += 5
		case p.has("(all)"):
			e.Quant = "all"
			p.i += 5
		}
		if p.peek() != '.' || p.eof() {
			p.i = save
			e.Quant = ""
			continue
		}
		p.i++
		e.Op = op
		v, err := p.singleVal(inLogic)
		e.Value = v
		return e, err
	}
	return e, p.fail(`"not" or operator (eq, gt, ...)`)
}

func (p *scanner) singleVal(inLogic bool) (string, error) {
	if !inLogic {
		v := p.s[p.i:]
		p.i = len(p.s)
		return v, nil
	}
	if q, ok, err := p.quoted(); err == nil && ok {
		if p.eof() || p.peek() == ',' || p.peek() == ')' {
			return q, nil
		}
		return "", p.fail(`"," or ")"`)
	}
	if p.peek() == '{' && !p.eof() {
		end := strings.IndexAny(p.s[p.i+1:], "{}")
		if end >= 0 && p.s[p.i+1+end] == '}' {
			v := p.s[p.i : p.i+end+2]
			p.i += end + 2
			return v, nil
		}
	}
	start := p.i
	for !p.eof() && p.peek() != ',' && p.peek() != ')' {
		p.i++
	}
	return p.s[start:p.i], nil
}

// listVal reads (v1,"v,2",…).
func (p *scanner) listVal() ([]string, error) {
	p.ws()
	if err := p.expect('(', `"("`); err != nil {
		return nil, err
	}
	p.ws()
	var out []string
	for {
		if err := p.countItem(); err != nil {
			return nil, err
		}
		save := p.i
		v, ok, err := p.quoted()
		if err != nil || (ok && !(p.peek() == ',' || p.peek() == ')')) || !ok {
			p.i = save
			start := p.i
			for !p.eof() && p.peek() != ',' && p.peek() != ')' {
				p.i++
			}
			v = p.s[start:p.i]
		}
		out = append(out, v)
		if p.peek() == ',' && !p.eof() {
			p.i++
			continue
		}
		break
	}
	if err := p.expect(')', `")"`); err != nil {
		return nil, err
	}
	p.ws()
	return out, nil
}

// ParseFilterValue parses the value of field=op.value.
func ParseFilterValue(s string) (OpExpr, error) {
	p := &scanner{s: s}
	e, err := p.opExpr(false)
	if err == nil && !p.eof() {
		err = p.fail("end of input")
	}
	if err != nil {
		return e, toPGRST("filter", s, err)
	}
	return e, nil
}

// ParseTreePath parses a parameter name: embed path segments joined by '.'
// and the field (with its JSON path) last.
func ParseTreePath(s string) (EmbedPath, Field, error) {
	p := &scanner{s: s}
	var names []string
	for {
		if err := p.countItem(); err != nil {
			return nil, Field{}, toPGRST("tree path", s, err)
		}
		n, err := p.fieldName()
		if err != nil {
			return nil, Field{}, toPGRST("tree path", s, err)
		}
		names = append(names, n)
		if p.peek() == '.' && !p.eof() {
			p.i++
			continue
		}
		break
	}
	jp, err := p.jsonPath()
	if err == nil && !p.eof() {
		err = p.fail(`"." or end of input`)
	}
	if err != nil {
		return nil, Field{}, toPGRST("tree path", s, err)
	}
	return EmbedPath(names[:len(names)-1]), Field{Name: names[len(names)-1], JSONPath: jp}, nil
}

// ParseOrder parses an order= value.
func ParseOrder(s string) ([]OrderTerm, error) {
	p := &scanner{s: s}
	var out []OrderTerm
	for {
		if err := p.countItem(); err != nil {
			return nil, toPGRST("order", s, err)
		}
		t, err := p.orderTerm()
		if err != nil {
			return nil, toPGRST("order", s, err)
		}
		out = append(out, t)
		if p.peek() == ',' && !p.eof() {
			p.i++
			continue
		}
		if !p.eof() {
			return nil, toPGRST("order", s, p.fail(`",", or end of input`))
		}
		return out, nil
	}
}

func (p *scanner) orderTerm() (OrderTerm, error) {
	var t OrderTerm
	p.ws()
	save := p.i
	// relation(field)
	if name, err := p.fieldName(); err == nil && p.peek() == '(' && !p.eof() {
		p.i++
		f, err := p.field()
		if err != nil {
			return t, err
		}
		if err := p.expect(')', `")"`); err != nil {
			return t, err
		}
		t.Relation, t.Field = name, f
	} else {
		p.i = save
		f, err := p.field()
		if err != nil {
			return t, err
		}
		t.Field = f
	}
	end := func() bool { return p.eof() || p.peek() == ',' }
	if p.has(".asc") && (len(p.s) == p.i+4 || p.s[p.i+4] == '.' || p.s[p.i+4] == ',') {
		t.Dir = "asc"
		p.i += 4
	} else if p.has(".desc") && (len(p.s) == p.i+5 || p.s[p.i+5] == '.' || p.s[p.i+5] == ',') {
		t.Dir = "desc"
		p.i += 5
	}
	switch {
	case p.has(".nullsfirst"):
		t.Nulls = "first"
		p.i += len(".nullsfirst")
	case p.has(".nullslast"):
		t.Nulls = "last"
		p.i += len(".nullslast")
	}
	p.ws()
	if !end() {
		if t.Dir == "" && t.Nulls == "" && p.peek() == '.' {
			p.i++
			return t, p.fail(`"asc", "desc", "nullsfirst" or "nullslast"`)
		}
		if t.Nulls == "" && p.peek() == '.' {
			p.i++
			return t, p.fail(`"nullsfirst" or "nullslast"`)
		}
		return t, p.fail(`",", or end of input`)
	}
	return t, nil
}

// ParseLogic parses the value of or=/and= (op is "or", "and", "not.or" or
// "not.and").
func ParseLogic(op, v string) (LogicTree, error) {
	s := op + v
	p := &scanner{s: s}
	t, err := p.logicTree()
	if err == nil && !p.eof() {
		err = p.fail("end of input")
	}
	if err != nil {
		return t, toPGRST("logic tree", v, err)
	}
	return t, nil
}

func (p *scanner) logicTree() (LogicTree, error) {
	var t LogicTree
	p.ws()
	save := p.i
	not := false
	if p.has("not.") {
		not = true
		p.i += 4
	}
	isOp := false
	switch {
	case p.has("and("):
		p.i += 3
		isOp = true
	case p.has("or("):
		t.Or = true
		p.i += 2
		isOp = true
	}
	if !isOp && not {
		// not.field.op.value: a negated filter (the spec's form; PostgREST
		// itself writes field.not.op.value).
		sub := &scanner{s: p.s, i: p.i, depth: p.depth, items: p.items}
		if f, err := sub.field(); err == nil && sub.peek() == '.' && !sub.eof() {
			sub.i++
			if e, err := sub.opExpr(true); err == nil {
				e.Not = !e.Not
				p.i, p.items = sub.i, sub.items
				p.ws()
				return LogicTree{Filter: &Filter{Field: f, Expr: e}}, nil
			}
		}
	}
	if !isOp {
		p.i = save
		f, err := p.field()
		if err != nil {
			return t, err
		}
		if err := p.expect('.', "delimiter (.)"); err != nil {
			return t, err
		}
		e, err := p.opExpr(true)
		if err != nil {
			return t, err
		}
		p.ws()
		return LogicTree{Filter: &Filter{Field: f, Expr: e}}, nil
	}
	t.Not = not
	if err := p.enter(); err != nil {
		return t, err
	}
	p.i++ // (
	for {
		if err := p.countItem(); err != nil {
			return t, err
		}
		c, err := p.logicTree()
		if err != nil {
			return t, err
		}
		t.Children = append(t.Children, c)
		p.ws()
		if p.peek() == ',' && !p.eof() {
			p.i++
			continue
		}
		break
	}
	p.depth--
	if err := p.expect(')', `")"`); err != nil {
		return t, err
	}
	p.ws()
	return t, nil
}

// ParseColumns parses columns= and on_conflict= (names joined by ',').
func ParseColumns(what, s string) ([]string, error) {
	p := &scanner{s: s}
	var out []string
	for {
		if err := p.countItem(); err != nil {
			return nil, toPGRST(what+" parameter", s, err)
		}
		p.ws()
		n, err := p.fieldName()
		if err != nil {
			return nil, toPGRST(what+" parameter", s, err)
		}
		out = append(out, n)
		p.ws()
		if p.peek() == ',' && !p.eof() {
			p.i++
			continue
		}
		if !p.eof() {
			return nil, toPGRST(what+" parameter", s, p.fail(`"," or end of input`))
		}
		return out, nil
	}
}
