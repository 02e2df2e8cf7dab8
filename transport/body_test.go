package transport_test

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fnapi/fnapi/transport"
)

// TestSlowBodyCut checks that a client sending its body a byte at a time, far below the
// minimum rate, has its connection closed once the body's time is over, whether it announced
// the body's length or not.
func TestSlowBodyCut(t *testing.T) {
	t.Parallel()
	srv := newServer(t, transport.Config{BodyTimeout: 500 * time.Millisecond, MinBodyRate: 1024})
	for _, chunked := range []bool{false, true} {
		t.Run(fmt.Sprint("chunked=", chunked), func(t *testing.T) {
			t.Parallel()
			conn, err := tls.Dial("tcp", srv.Listener.Addr().String(), &tls.Config{InsecureSkipVerify: true})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			head := "POST /api/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
			if chunked {
				head += "Transfer-Encoding: chunked\r\n\r\n"
			} else {
				head += "Content-Length: 3000\r\n\r\n" // 3.4 s at 1 KiB/s; the trickle would take 150 s
			}
			if _, err := io.WriteString(conn, head); err != nil {
				t.Fatal(err)
			}
			// Trickle a byte every 50 ms until the server gives up, or for 20 s at most.
			cut := make(chan error, 1)
			go func() {
				res, err := http.ReadResponse(bufio.NewReader(conn), nil)
				if err == nil {
					_, err = io.ReadAll(res.Body)
					if err == nil {
						_, err = conn.Read(make([]byte, 1)) // then the close
					}
				}
				cut <- err
			}()
			stop := time.After(20 * time.Second)
			for i := 0; ; i++ {
				b := "a"
				if chunked {
					b = "1\r\na\r\n"
				}
				if i == 0 {
					b = strings.Replace(b, "a", "{", 1)
				}
				select {
				case err := <-cut:
					if err == nil {
						t.Fatal("the connection stayed open")
					}
					return // closed by the server
				case <-stop:
					t.Fatal("the server still reads the slow body after 20 s")
				case <-time.After(50 * time.Millisecond):
				}
				if _, err := io.WriteString(conn, b); err != nil {
					return // closed by the server
				}
			}
		})
	}
}
