"""The example repository's history after its first commit: small, plausible changes, each one
a commit, in order. `SLOW` is the change that costs every order a few microseconds (a second
decode of the body, in `slow/book.go`); make_repo.py puts it where it is asked to. Each change
edits text that occurs once in its file, and no change touches what `SLOW` edits, so any prefix
of the list applies, with `SLOW` anywhere in it."""

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Replace:
    """Replaces `old`, which must occur exactly once in `path`, with `new`."""
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Append:
    """Appends `text` to `path`, creating it when missing."""
    path: str
    text: str


@dataclass(frozen=True)
class Change:
    message: str
    edits: tuple[Replace | Append, ...]


SLOW = Change("order: check an order's fields as the order book reads them", (
    Append("book.go", (HERE / "slow" / "book.go").read_text()),
    Replace(
        "order.go",
        "\treturn order{Symbol: symbol, BuySell: buySell, ClientTimestamp: stamp, "
        "ClientTime: clientTime}, nil\n",
        "\tif err := checkBookFields(body); err != nil {\n\t\treturn order{}, err\n\t}\n"
        "\treturn order{Symbol: symbol, BuySell: buySell, ClientTimestamp: stamp, "
        "ClientTime: clientTime}, nil\n"),
))

CI_WORKFLOW = """\
name: ci
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-version: "1.21"
      - run: go vet ./...
      - run: go test ./...
"""

MAKEFILE = """\
.PHONY: build test bench

build:
\tgo build -o order-server .

test:
\tgo vet ./...
\tgo test ./...

bench:
\tgo test -run '^$$' -bench . -benchtime 2s
"""

SERVER_TEST = """\
package main

import (
\t"encoding/json"
\t"net/http"
\t"net/http/httptest"
\t"strings"
\t"testing"
)

func TestCountsAcceptedOrders(t *testing.T) {
\thandler := newServer().routes()
\tfor _, body := range []string{validOrder, `{"buy_sell": "hold"}`} {
\t\trequest := httptest.NewRequest(http.MethodPost, "/order", strings.NewReader(body))
\t\thandler.ServeHTTP(httptest.NewRecorder(), request)
\t}
\tanswer := httptest.NewRecorder()
\thandler.ServeHTTP(answer, httptest.NewRequest(http.MethodGet, "/stats", nil))
\tvar stats struct {
\t\tTotalOrders int `json:"total_orders"`
\t}
\tif err := json.Unmarshal(answer.Body.Bytes(), &stats); err != nil || stats.TotalOrders != 1 {
\t\tt.Fatalf("GET /stats: %s (%v)", answer.Body, err)
\t}
}

func TestRefusesOtherMethods(t *testing.T) {
\tanswer := httptest.NewRecorder()
\tnewServer().routes().ServeHTTP(answer, httptest.NewRequest(http.MethodGet, "/order", nil))
\tif answer.Code != http.StatusMethodNotAllowed || answer.Header().Get("Allow") != "POST" {
\t\tt.Fatalf("GET /order: %d %v", answer.Code, answer.Header())
\t}
}
"""

HANDLER_BENCHMARK = """
func BenchmarkSubmitOrder(b *testing.B) {
\thandler := newServer().routes()
\tfor i := 0; i < b.N; i++ {
\t\tanswer := httptest.NewRecorder()
\t\trequest := httptest.NewRequest(http.MethodPost, "/order", strings.NewReader(validOrder))
\t\thandler.ServeHTTP(answer, request)
\t\tif answer.Code != http.StatusOK {
\t\t\tb.Fatalf("POST /order: %d %s", answer.Code, answer.Body)
\t\t}
\t}
}
"""

EMPTY_HISTOGRAM_TEST = """
func TestEncodesAnEmptyHistogram(t *testing.T) {
\tencoded, err := newHistogram().encodeBase64()
\tif err != nil {
\t\tt.Fatal(err)
\t}
\t// The 40-byte header and one count of zero.
\tif inner := uncompressed(t, encoded); len(inner) != 41 {
\t\tt.Fatalf("%d bytes: %x", len(inner), inner)
\t}
}
"""

REQUIRE_TEXT = """
// requireText checks that a field is a non-empty string.
func requireText(fields map[string]any, name string) error {
\tvalue, err := text(fields, name)
\tif err != nil {
\t\treturn err
\t}
\tif value == "" {
\t\treturn fmt.Errorf("%s: must not be empty", name)
\t}
\treturn nil
}
"""

CHANGES = (
    Change("readme: how to run the tests", (
        Append("README.md", "\nRun the tests with `go test ./...`.\n"),
    )),
    Change("gitignore: profiles and test binaries", (
        Append(".gitignore", "*.prof\n*.test\n"),
    )),
    Change("server: cap an order's body at 16 KiB", (
        Replace("server.go", "const maxOrderBytes = 64 << 10", "const maxOrderBytes = 16 << 10"),
    )),
    Change("order: say where the UTC default comes from", (
        Replace("order.go",
                "// +08:00, +0800) or without one, read as UTC. Fractional seconds are "
                "accepted in each.\n",
                "// +08:00, +0800) or without one, read as UTC (what Python's\n"
                "// datetime.utcnow().isoformat() writes). Fractional seconds are accepted "
                "in each.\n"),
    )),
    Change("test: a price as a string, a quantity in exponent form", (
        Replace("order_test.go", "\t\t{\"price\", `-1`},\n",
                "\t\t{\"price\", `-1`},\n\t\t{\"price\", `\"100\"`},\n"),
        Replace("order_test.go", "\t\t{\"quantity\", `2.5`},\n",
                "\t\t{\"quantity\", `2.5`},\n\t\t{\"quantity\", `1e3`},\n"),
    )),
    Change("main: clearer help for --listen", (
        Replace("main.go", '"address to listen on, HOST:PORT (port 0: any free port)"',
                '"HOST:PORT to listen on; port 0 picks a free port, printed on stdout"'),
    )),
    Change("ci: vet and test on every push", (
        Append(".github/workflows/ci.yml", CI_WORKFLOW),
    )),
    Change("server: name the layout of server_timestamp", (
        Replace("server.go", "// orderServer is what every request shares",
                "// serverTimestampLayout is RFC 3339 in milliseconds, UTC: the answer's "
                "server_timestamp.\nconst serverTimestampLayout = "
                "\"2006-01-02T15:04:05.000Z07:00\"\n\n"
                "// orderServer is what every request shares"),
        Replace("server.go", 'serverTime.Format("2006-01-02T15:04:05.000Z07:00")',
                "serverTime.Format(serverTimestampLayout)"),
    )),
    Change("makefile: build, test, bench", (
        Append("Makefile", MAKEFILE),
    )),
    Change("order: user_def at most 64 bytes", (
        Replace("order.go", "// textFields must be non-empty strings.",
                "// maxUserDef bounds the free text a client attaches to an order.\n"
                "const maxUserDef = 64\n\n// textFields must be non-empty strings."),
        Replace("order.go",
                "\tif _, err := text(fields, \"user_def\"); err != nil {\n"
                "\t\treturn order{}, err\n\t}\n",
                "\tuserDef, err := text(fields, \"user_def\")\n\tif err != nil {\n"
                "\t\treturn order{}, err\n\t}\n\tif len(userDef) > maxUserDef {\n"
                "\t\treturn order{}, fmt.Errorf(\"user_def: at most %d bytes, got %d\", "
                "maxUserDef, len(userDef))\n\t}\n"),
    )),
    Change("readme: the order's fields", (
        Append("README.md",
               "\n`buy_sell` is buy or sell, `symbol` an integer, `price` a number > 0, "
               "`quantity` an\ninteger > 0; the four types are non-empty strings, `user_def` "
               "at most 64 bytes, and\n`client_timestamp` ISO 8601 (UTC without an offset).\n"),
    )),
    Change("histogram: note the varint's range", (
        Replace("histogram.go", "// of two or more zeros as its negated length.\n",
                "// of two or more zeros as its negated length. Go's varint is HdrHistogram's "
                "below 2^56,\n// far above any count here.\n"),
    )),
    Change("test: user_def's limit", (
        Replace("order_test.go", "\t\t{\"user_def\", `7`},\n",
                "\t\t{\"user_def\", `7`},\n"
                "\t\t{\"user_def\", `\"` + strings.Repeat(\"x\", 65) + `\"`},\n"),
    )),
    Change("main: wait up to 5 s for the answers in flight on stop", (
        Replace("main.go", "const shutdownGrace = 2 * time.Second",
                "const shutdownGrace = 5 * time.Second"),
    )),
    Change("order: the non-empty text check as a helper", (
        Replace("order.go",
                "\tfor _, name := range textFields {\n"
                "\t\tvalue, err := text(fields, name)\n\t\tif err != nil {\n"
                "\t\t\treturn order{}, err\n\t\t}\n\t\tif value == \"\" {\n"
                "\t\t\treturn order{}, fmt.Errorf(\"%s: must not be empty\", name)\n"
                "\t\t}\n\t}\n",
                "\tfor _, name := range textFields {\n"
                "\t\tif err := requireText(fields, name); err != nil {\n"
                "\t\t\treturn order{}, err\n\t\t}\n\t}\n"),
        Append("order.go", REQUIRE_TEXT),
    )),
    Change("test: GET /stats counts accepted orders; other methods are 405", (
        Append("server_test.go", SERVER_TEST),
    )),
    Change("readme: what GET /stats answers", (
        Replace("README.md",
                "- `GET /stats`: orders accepted, and their rate since the first one.\n",
                "- `GET /stats`: `{total_orders, elapsed_seconds, orders_per_second}`, the "
                "rate since the\n  first order.\n"),
    )),
    Change("server: say why the latency is taken after the answer is written", (
        Replace("server.go", "\ts.recordLatency(time.Since(start))\n",
                "\t// Written means buffered: sending it is the kernel's time, not the "
                "server's.\n\ts.recordLatency(time.Since(start))\n"),
    )),
    Change("gitignore: editor folders", (
        Append(".gitignore", ".idea/\n.vscode/\n"),
    )),
    Change("test: the empty histogram's encoding", (
        Append("histogram_test.go", EMPTY_HISTOGRAM_TEST),
    )),
    Change("main: the request head's timeout as a constant", (
        Replace("main.go", "// shutdownGrace bounds",
                "// headerTimeout bounds how long a connection may take to send a request's "
                "head.\nconst headerTimeout = 10 * time.Second\n\n// shutdownGrace bounds"),
        Replace("main.go", "ReadHeaderTimeout: 10 * time.Second",
                "ReadHeaderTimeout: headerTimeout"),
    )),
    Change("test: benchmark POST /order through the handler", (
        Append("server_test.go", HANDLER_BENCHMARK),
    )),
    Change("readme: standard library only, builds offline", (
        Append("README.md",
               "\nIt uses Go's standard library only: `go build` needs no network.\n"),
    )),
    Change("ci: go 1.22", (
        Replace(".github/workflows/ci.yml", 'go-version: "1.21"', 'go-version: "1.22"'),
    )),
    Change("readme: make bench", (
        Append("README.md", "\n`make bench` runs the benchmarks (`go test -bench`).\n"),
    )),
)


def filler(number: int) -> Change:
    """The `number`-th change past the list: a changelog line."""
    return Change(f"changelog: week {number}", (
        Append("CHANGELOG.md", f"- week {number}: dependencies reviewed, none added\n"),
    ))
