package transport

import (
	"context"
	"time"

	"github.com/fnapi/fnapi/registry"
)

// A connection runs its calls in goroutines it reuses: a call goes to a worker waiting for one,
// or to a new worker when none waits. At most WSConfig.MaxInFlight calls run, so at most that
// many workers exist; a worker waiting longer than wsWorkerIdle ends, and all end with the
// connection. Reuse spares each call a fresh goroutine whose stack grows again (what that saves
// is in BENCHMARKS.md, BenchmarkWSEcho).

// wsWorkerIdle is how long a worker waits for a call before it ends.
const wsWorkerIdle = 5 * time.Second

// wsJob is one call for a worker.
type wsJob struct {
	ctx    context.Context
	cancel context.CancelFunc
	c      *registry.Call
	run    *wsRunning
}

// start runs j in a worker. The caller has counted it in wc.wg.
func (wc *wsConn) start(j wsJob) {
	wc.workersMu.Lock()
	if wc.idleWorkers > 0 {
		wc.idleWorkers-- // claimed: a waiting worker will receive j
		wc.workersMu.Unlock()
		wc.jobs <- j
		return
	}
	wc.workersMu.Unlock()
	go wc.worker(j)
}

// worker runs j, then the calls it receives, until it has waited wsWorkerIdle for one or the
// connection ended.
func (wc *wsConn) worker(j wsJob) {
	var timer *time.Timer
	for {
		wc.runJob(j)
		wc.workersMu.Lock()
		wc.idleWorkers++
		wc.workersMu.Unlock()
		if timer == nil {
			timer = time.NewTimer(wsWorkerIdle)
		} else {
			timer.Reset(wsWorkerIdle)
		}
		select {
		case j = <-wc.jobs:
			continue
		case <-wc.quit: // no call is dispatched any more
			return
		case <-timer.C:
			wc.workersMu.Lock()
			if wc.idleWorkers == 0 {
				// Every waiting worker is claimed: a call is on its way to this one.
				wc.workersMu.Unlock()
				j = <-wc.jobs
				continue
			}
			wc.idleWorkers--
			wc.workersMu.Unlock()
			return
		}
	}
}

// runJob runs one call and frees its slot.
func (wc *wsConn) runJob(j wsJob) {
	defer wc.wg.Done()
	wc.run(j.ctx, j.c, j.run)
	j.cancel()
	<-wc.slots
}
