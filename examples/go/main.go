// A starter Eights Ladder bot (bot protocol v1, docs/BOT_PROTOCOL.md) in Go, standard library only.
//
//	go run . --port 8765 --secret YOUR_SECRET [--host 127.0.0.1] [--name MyGoBot] [--version 1.1]
//
// --version is the version the ping reply reports (default "1.0"): the service records it with each match and
// trial, so give a new one when you change the bot.
//
// The secret can also come from BOT_SECRET. It checks every request's signature (HMAC-SHA256 of
// "{timestamp}.{raw body}", compared in constant time; timestamps more than 300 s from this machine's clock are
// refused) and answers 401 before doing anything else; it answers `ping` with its name and `turn` with one of the
// turn's legal actions (chooseAction: change it to make the bot stronger). --port 0 takes a free port; the first
// line printed says where it listens.
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"time"
)

const (
	maxAgeSeconds = 300     // the protocol's replay window
	maxBodyBytes  = 1 << 20 // the service's requests are far smaller
)

var timestampPattern = regexp.MustCompile(`^[0-9]{1,12}$`)

// signatureOK reports whether signature is "sha256=" + hex HMAC-SHA256 of "{timestamp}.{body}" keyed with secret,
// and the timestamp (ASCII digits, unix seconds) is within maxAgeSeconds of now. body is the raw body, as received.
func signatureOK(secret string, body []byte, timestamp, signature string) bool {
	if timestamp == "" || signature == "" || !timestampPattern.MatchString(timestamp) {
		return false
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return false
	}
	age := time.Now().Unix() - ts
	if age > maxAgeSeconds || age < -maxAgeSeconds {
		return false
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp + "."))
	mac.Write(body)
	expected := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(expected), []byte(signature))
}

// Action is one entry of a turn's legal_actions, kept as received so the reply repeats it exactly.
type Action map[string]interface{}

func (a Action) str(key string) string {
	s, _ := a[key].(string)
	return s
}

type request struct {
	Type         string   `json:"type"`
	LegalActions []Action `json:"legal_actions"`
	View         struct {
		Hand []string `json:"hand"`
	} `json:"view"`
}

// chooseAction returns one of legal (never empty) exactly as listed: a declaration or an announcement when one is
// due, else a play (an ordinary card before an eight; an eight names the suit held most), else draw, else whatever
// is legal (pass).
func chooseAction(hand []string, legal []Action) Action {
	var plays []Action
	for _, a := range legal {
		switch a.str("type") {
		case "declare", "announce":
			return a
		case "play":
			plays = append(plays, a)
		}
	}
	for _, a := range plays {
		if card := a.str("card"); len(card) == 2 && card[0] != '8' {
			return a
		}
	}
	if len(plays) > 0 {
		held := map[string]int{}
		for _, card := range hand {
			if len(card) == 2 && card[0] != '8' {
				held[card[1:]]++
			}
		}
		best := plays[0]
		for _, a := range plays[1:] {
			if held[a.str("suit")] > held[best.str("suit")] {
				best = a
			}
		}
		return best
	}
	for _, a := range legal {
		if a.str("type") == "draw" {
			return a
		}
	}
	return legal[0]
}

func reply(w http.ResponseWriter, status int, payload interface{}) {
	data, _ := json.Marshal(payload)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	w.Write(data)
}

func handler(secret, name, version string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			reply(w, http.StatusMethodNotAllowed, map[string]string{"error": "POST only"})
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes)) // the raw bytes: verify exactly these
		if err != nil {
			reply(w, http.StatusRequestEntityTooLarge, map[string]string{"error": "body too large or unreadable"})
			return
		}
		if !signatureOK(secret, body, r.Header.Get("X-Eights-Timestamp"), r.Header.Get("X-Eights-Signature")) {
			reply(w, http.StatusUnauthorized, map[string]string{"error": "bad signature"})
			return
		}
		var req request
		if err := json.Unmarshal(body, &req); err != nil {
			reply(w, http.StatusBadRequest, map[string]string{"error": "the body is not a turn, ping or match_end: " + err.Error()})
			return
		}
		switch req.Type {
		case "ping":
			reply(w, http.StatusOK, map[string]string{"name": name, "author": "Eights Ladder starter kits", "version": version})
		case "turn":
			if len(req.LegalActions) == 0 {
				reply(w, http.StatusBadRequest, map[string]string{"error": "a turn without legal_actions"})
				return
			}
			reply(w, http.StatusOK, map[string]interface{}{"action": chooseAction(req.View.Hand, req.LegalActions)})
		case "match_end":
			reply(w, http.StatusOK, map[string]string{})
		default:
			reply(w, http.StatusBadRequest, map[string]string{"error": fmt.Sprintf("unknown request type %q", req.Type)})
		}
	}
}

func main() {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 8765, "port to listen on (0: a free one)")
	secret := flag.String("secret", os.Getenv("BOT_SECRET"), "the bot's signing secret (or BOT_SECRET)")
	name := flag.String("name", "StarterGo", "the name the bot gives in its ping")
	version := flag.String("version", "1.0", "the version the bot gives in its ping (recorded with each match and trial)")
	flag.Parse()
	if *secret == "" {
		log.Fatal("give the signing secret with --secret or BOT_SECRET")
	}
	if *port < 0 || *port > 65535 {
		log.Fatal("--port must be from 0 to 65535")
	}
	listener, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s listening on http://%s/\n", *name, listener.Addr().String())
	server := &http.Server{Handler: handler(*secret, *name, *version), ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout: 60 * time.Second}
	log.Fatal(server.Serve(listener))
}
