-- wrk script: one-shot questions (POST /v1/answer) cycling through the questions in the file
-- named by $SUPPORTD_QUESTIONS (one a line, no quotes or backslashes), which the run script has
-- already asked once, so every one is answered from the answer cache. Counts non-200 answers and
-- answers whose source is not "cache", so a run that misses the cache shows.
local file = assert(os.getenv("SUPPORTD_QUESTIONS"), "SUPPORTD_QUESTIONS is not set")
local bodies = {}
for line in io.lines(file) do
  if line ~= "" then bodies[#bodies + 1] = '{"question":"' .. line .. '"}' end
end
assert(#bodies > 0, "no questions in " .. file)
local n = 0
missed = 0  -- global: done() reads every thread's count with thread:get

local threads = {}
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

setup = function(thread)
  table.insert(threads, thread)
end

request = function()
  n = n + 1
  return wrk.format(nil, "/v1/answer", nil, bodies[(n % #bodies) + 1])
end

response = function(status, headers, body)
  if status == 200 and not string.find(body, '"source":"cache"', 1, true) then
    missed = missed + 1
  end
end

done = function(summary, latency, requests)
  local not_cached = 0
  for _, thread in ipairs(threads) do not_cached = not_cached + thread:get("missed") end
  io.write(string.format("requests %d, errors(non-2xx) %d, socket errors %d, not from the cache %d\n",
    summary.requests, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    not_cached))
  io.write(string.format("throughput %.0f answers/s\n", summary.requests / (summary.duration / 1e6)))
  for _, p in ipairs({50, 90, 99, 99.9}) do
    io.write(string.format("p%-5s %.3f ms\n", p, latency:percentile(p) / 1000))
  end
end
