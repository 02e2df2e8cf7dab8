-- wrk script of the fnapi benchmark harness (package load).
-- Arguments after the URL: none for a GET, or BODY CONTENT-TYPE for a POST.
-- done() prints one machine-readable line; latencies are in microseconds.

function init(args)
  if #args >= 2 then
    wrk.method = "POST"
    wrk.body = args[1]
    wrk.headers["Content-Type"] = args[2]
  end
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("WRKRESULT requests=%d duration_us=%d errors=%d p50_us=%d p99_us=%d\n",
    summary.requests, summary.duration,
    e.connect + e.read + e.write + e.status + e.timeout,
    math.floor(latency:percentile(50)), math.floor(latency:percentile(99))))
end
