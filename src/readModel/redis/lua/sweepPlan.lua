-- ARGV: prefix, retired grace (ms), '1' for a dry run. Returns the counter, kept generations, collections' live generations (flat pairs), un-staged (flat pairs).
local P, grace, dry = ARGV[1], tonumber(ARGV[2]), ARGV[3] == '1'
local seq = redis.call('GET', P .. 'gen:seq') or '0'
local now = redis.call('TIME')
local nowMs = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local kept = {}
local live = redis.call('HGETALL', P .. 'gen:live')
for i = 2, #live, 2 do kept[#kept + 1] = live[i] end
local collections = redis.call('HGETALL', P .. 'gen:collections')
for i = 2, #collections, 2 do kept[#kept + 1] = collections[i] end
local unstaged = {}
local staged = redis.call('HGETALL', P .. 'gen:staged')
for i = 1, #staged, 2 do
  local projection, G = staged[i], staged[i + 1]
  if redis.call('EXISTS', P .. 'gen:building:' .. G) == 1 then
    kept[#kept + 1] = G
  else
    unstaged[#unstaged + 1] = projection
    unstaged[#unstaged + 1] = G
    if not dry then
      redis.call('HDEL', P .. 'gen:staged', projection)
      redis.call('HDEL', P .. 'gen:staged-checkpoints', projection)
    end
  end
end
local retired = redis.call('HGETALL', P .. 'gen:retired')
for i = 1, #retired, 2 do
  if nowMs - tonumber(retired[i + 1]) < grace then kept[#kept + 1] = retired[i] end
end
return { seq, kept, collections, unstaged }
