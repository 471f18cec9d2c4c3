-- SADD of one member to each of many keys: ARGV holds (key, member) pairs. Sent by CommandBatch.send (resp.ts) with
-- the pairs as the SADDs encoded them.
for i = 1, #ARGV, 2 do redis.call('SADD', ARGV[i], ARGV[i + 1]) end
return #ARGV / 2
