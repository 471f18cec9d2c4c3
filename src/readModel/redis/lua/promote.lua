-- ARGV: prefix, projection, staged generation, its collections. Switches readers and the checkpoint to it.
local P, projection, G = ARGV[1], ARGV[2], ARGV[3]
if redis.call('HGET', P .. 'gen:staged', projection) ~= G then
  return redis.error_reply('STALE generation ' .. G .. ' of ' .. projection .. ' is not staged')
end
local stagedCheckpoint = redis.call('HGET', P .. 'gen:staged-checkpoints', projection)
local liveCheckpoint = redis.call('HGET', P .. 'checkpoints', projection)
if liveCheckpoint then
  if not stagedCheckpoint then return 'behind' end
  if cjson.decode(stagedCheckpoint).position < cjson.decode(liveCheckpoint).position then return 'behind' end
end
local retired = redis.call('HGET', P .. 'gen:live', projection) or '0'
local now = redis.call('TIME')
redis.call('HSET', P .. 'gen:retired', retired, now[1] .. string.format('%03d', math.floor(tonumber(now[2]) / 1000)))
redis.call('HSET', P .. 'gen:live', projection, G)
for i = 4, #ARGV do redis.call('HSET', P .. 'gen:collections', ARGV[i], G) end
if stagedCheckpoint then
  redis.call('HSET', P .. 'checkpoints', projection, stagedCheckpoint)
else
  redis.call('HDEL', P .. 'checkpoints', projection)
end
redis.call('HDEL', P .. 'gen:staged', projection)
redis.call('HDEL', P .. 'gen:staged-checkpoints', projection)
redis.call('PUBLISH', P .. 'gen:switched', projection)
return retired
