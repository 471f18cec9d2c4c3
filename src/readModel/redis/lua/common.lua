-- Included by COMMIT, BULK_VOCABULARY and QUERY: a command over a long list of arguments, CHUNK at a time (unpack is
-- bounded by Lua's C stack), its replies concatenated.
local CHUNK = 2000
local function chunked(cmd, key, list)
  local out = {}
  for i = 1, #list, CHUNK do
    local part = redis.call(cmd, key, unpack(list, i, math.min(i + CHUNK - 1, #list)))
    for j = 1, #part do out[#out + 1] = part[j] end
  end
  return out
end
