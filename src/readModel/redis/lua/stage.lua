-- ARGV: prefix, projection, build lease (ms). Stages a new generation of the projection, with its build lease, in one
-- step (a sweep then sees it either numbered above the counter it read or staged with a lease: kept either way), and
-- returns it and the generation it replaced as staged (an abandoned build's, or false). The number is the counter's
-- next value, or one past every generation recorded (live, serving a collection, staged, retired) if the counter is
-- not already past them (it only goes back if its key was lost). So a new generation starts empty without a walk of
-- the keyspace to clear it: nobody has written under its number. Keys of a generation nothing records any more (an
-- abandoned build's, un-staged) are the sweep's.
local P, projection, leaseMs = ARGV[1], ARGV[2], ARGV[3]
local G = redis.call('INCR', P .. 'gen:seq')
local highest = 0
local function see(values)
  for _, value in ipairs(values) do
    local n = tonumber(value)
    if n and n > highest then highest = n end
  end
end
see(redis.call('HVALS', P .. 'gen:live'))
see(redis.call('HVALS', P .. 'gen:collections'))
see(redis.call('HVALS', P .. 'gen:staged'))
see(redis.call('HKEYS', P .. 'gen:retired'))
if G <= highest then
  G = highest + 1
  redis.call('SET', P .. 'gen:seq', G)
end
local previous = redis.call('HGET', P .. 'gen:staged', projection)
redis.call('HSET', P .. 'gen:staged', projection, G)
redis.call('HDEL', P .. 'gen:staged-checkpoints', projection)
redis.call('SET', P .. 'gen:building:' .. G, projection, 'PX', leaseMs)
return { G, previous }
