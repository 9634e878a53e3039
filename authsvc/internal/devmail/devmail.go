// Package devmail is a development mail catcher: an SMTP server that keeps
// every message it receives in memory and an HTTP page plus JSON API that
// list them, so a developer (or a test) can follow a confirmation link. It
// is never for production: it accepts mail for anyone and keeps no disk copy.
package devmail

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"html/template"
	"io"
	"log/slog"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	"net/mail"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Message is one received mail.
type Message struct {
	ID      int       `json:"id"`
	From    string    `json:"from"`
	To      []string  `json:"to"`
	Subject string    `json:"subject"`
	Date    time.Time `json:"date"`
	HTML    string    `json:"html"`
	Text    string    `json:"text"`
	// Links are the href targets found in the body, in order.
	Links []string `json:"links"`
}

// Mailbox keeps the newest messages.
type Mailbox struct {
	mu     sync.Mutex
	msgs   []Message
	nextID int
	max    int
}

// NewMailbox keeps at most max messages (oldest dropped first).
func NewMailbox(max int) *Mailbox { return &Mailbox{max: max, nextID: 1} }

func (b *Mailbox) add(m Message) {
	b.mu.Lock()
	defer b.mu.Unlock()
	m.ID = b.nextID
	b.nextID++
	b.msgs = append(b.msgs, m)
	if len(b.msgs) > b.max {
		b.msgs = b.msgs[len(b.msgs)-b.max:]
	}
}

// List returns messages to addr (all when empty), newest first.
func (b *Mailbox) List(addr string) []Message {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []Message{}
	for i := len(b.msgs) - 1; i >= 0; i-- {
		m := b.msgs[i]
		if addr == "" || containsFold(m.To, addr) {
			out = append(out, m)
		}
	}
	return out
}

// Clear removes every message.
func (b *Mailbox) Clear() {
	b.mu.Lock()
	b.msgs = nil
	b.mu.Unlock()
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// maxMessageBytes bounds one message.
const maxMessageBytes = 10 << 20

// ServeSMTP accepts SMTP sessions on ln until ctx ends.
func (b *Mailbox) ServeSMTP(ctx context.Context, ln net.Listener, log *slog.Logger) error {
	go func() { <-ctx.Done(); ln.Close() }()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		go func() {
			defer conn.Close()
			if err := b.session(conn); err != nil && !errors.Is(err, io.EOF) {
				log.Debug("smtp session", "error", err.Error())
			}
		}()
	}
}

func (b *Mailbox) session(conn net.Conn) error {
	_ = conn.SetDeadline(time.Now().Add(5 * time.Minute))
	r := bufio.NewReader(conn)
	w := bufio.NewWriter(conn)
	reply := func(s string) error {
		if _, err := w.WriteString(s + "\r\n"); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := reply("220 devmail ESMTP ready"); err != nil {
		return err
	}
	var from string
	var to []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return err
		}
		line = strings.TrimRight(line, "\r\n")
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO":
			err = reply("250-devmail\r\n250-8BITMIME\r\n250 SIZE " + strconv.Itoa(maxMessageBytes))
		case "HELO":
			err = reply("250 devmail")
		case "MAIL":
			from, to = addrArg(arg), nil
			err = reply("250 OK")
		case "RCPT":
			to = append(to, addrArg(arg))
			err = reply("250 OK")
		case "DATA":
			if len(to) == 0 {
				err = reply("503 need RCPT")
				break
			}
			if err = reply("354 end with <CRLF>.<CRLF>"); err != nil {
				return err
			}
			raw, derr := readData(r)
			if derr != nil {
				return derr
			}
			b.add(parse(from, to, raw))
			err = reply("250 OK queued")
		case "RSET":
			from, to = "", nil
			err = reply("250 OK")
		case "NOOP":
			err = reply("250 OK")
		case "AUTH":
			err = reply("235 accepted")
		case "QUIT":
			_ = reply("221 bye")
			return nil
		default:
			err = reply("502 command not implemented")
		}
		if err != nil {
			return err
		}
	}
}

func addrArg(arg string) string {
	if i := strings.IndexByte(arg, '<'); i >= 0 {
		if j := strings.IndexByte(arg[i:], '>'); j > 0 {
			return arg[i+1 : i+j]
		}
	}
	_, v, _ := strings.Cut(arg, ":")
	return strings.TrimSpace(v)
}

func readData(r *bufio.Reader) ([]byte, error) {
	var buf bytes.Buffer
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		if line == ".\r\n" || line == ".\n" {
			return buf.Bytes(), nil
		}
		line = strings.TrimPrefix(line, ".")
		if buf.Len()+len(line) > maxMessageBytes {
			return nil, errors.New("message too large")
		}
		buf.WriteString(line)
	}
}

var hrefRE = regexp.MustCompile(`href="([^"]+)"`)

func parse(from string, to []string, raw []byte) Message {
	m := Message{From: from, To: to, Date: time.Now().UTC()}
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		m.Text = string(raw)
		return m
	}
	dec := new(mime.WordDecoder)
	if s, err := dec.DecodeHeader(msg.Header.Get("Subject")); err == nil {
		m.Subject = s
	}
	if d, err := msg.Header.Date(); err == nil {
		m.Date = d.UTC()
	}
	readPart(&m, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	for _, l := range hrefRE.FindAllStringSubmatch(m.HTML, -1) {
		m.Links = append(m.Links, html.UnescapeString(l[1]))
	}
	if m.Links == nil {
		m.Links = []string{}
	}
	return m
}

func readPart(m *Message, ctype, encoding string, body io.Reader) {
	mt, params, err := mime.ParseMediaType(ctype)
	if err != nil {
		mt = "text/plain"
	}
	if strings.EqualFold(encoding, "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				return
			}
			readPart(m, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p)
		}
	}
	b, _ := io.ReadAll(io.LimitReader(body, maxMessageBytes))
	if mt == "text/html" {
		m.HTML = string(b)
	} else {
		m.Text = string(b)
	}
}

var page = template.Must(template.New("p").Parse(`<!doctype html><html><head><meta charset="utf-8"><title>devmail</title>
<style>body{font-family:sans-serif;margin:2em}article{border:1px solid #ccc;padding:1em;margin:1em 0}h2{margin:0}small{color:#666}</style></head>
<body><h1>devmail: {{len .}} message(s)</h1><p>JSON: <a href="/api/messages">/api/messages</a> (?to=address)</p>
{{range .}}<article><h2>{{.Subject}}</h2><small>#{{.ID}} to {{range .To}}{{.}} {{end}}from {{.From}} at {{.Date}}</small>
<div>{{.HTMLSafe}}</div></article>{{end}}</body></html>`))

type pageMsg struct {
	Message
	HTMLSafe template.HTML
}

// Handler serves the page (GET /), the JSON list (GET /api/messages?to=)
// and clearing (DELETE /api/messages).
func (b *Mailbox) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/messages", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		_ = json.NewEncoder(w).Encode(b.List(r.URL.Query().Get("to")))
	})
	mux.HandleFunc("DELETE /api/messages", func(w http.ResponseWriter, r *http.Request) {
		b.Clear()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		var list []pageMsg
		for _, m := range b.List(r.URL.Query().Get("to")) {
			body := m.HTML
			if body == "" {
				body = "<pre>" + html.EscapeString(m.Text) + "</pre>"
			}
			// The mails are authsvc's own templates, shown to the developer
			// on a loopback-only page.
			list = append(list, pageMsg{Message: m, HTMLSafe: template.HTML(body)})
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_ = page.Execute(w, list)
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "ok") })
	return mux
}
