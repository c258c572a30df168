-- wrk script: one-shot questions (POST /v1/answer) cycling through FAQ questions, English and
-- Chinese, each answered from the FAQ fast path. Non-2xx answers are wrk's own count (printed
-- below): a `response` function would make wrk copy every response's headers into Lua tables,
-- work on the cores the server shares that grows with the number of headers (tracing adds two).
local questions = {
  "Where is my parcel?", "How do I return an item?", "When will I get my refund?",
  "How long is shipping?", "Which payment methods do you accept?", "退款多久到账？",
  "How do I reset my password?", "Can I cancel my order?", "怎么退货？", "My item arrived damaged",
}
local bodies = {}
for i, q in ipairs(questions) do bodies[i] = '{"question":"' .. q .. '"}' end
local n = 0
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"

request = function()
  n = n + 1
  return wrk.format(nil, "/v1/answer", nil, bodies[(n % #bodies) + 1])
end

done = function(summary, latency, requests)
  io.write(string.format("requests %d, errors(non-2xx) %d, socket errors %d\n", summary.requests,
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
  io.write(string.format("throughput %.0f answers/s\n", summary.requests / (summary.duration / 1e6)))
  for _, p in ipairs({50, 90, 99, 99.9}) do
    io.write(string.format("p%-5s %.3f ms\n", p, latency:percentile(p) / 1000))
  end
end
