-- QUERY's first step for a partition-shaped plan (partitionShape): paging by rank in C:q:<field>:<key>, whose
-- members are ord(value)·ord(key)·ord(id)·handle (ord(value)·ord(id)·handle for id), so O(log n + page) however
-- deep the page. Returns { total, docs… }, or nil when the general path must answer: some document holding the
-- value did not declare the partition (the partition's id zset and the value's set differ in size), or the page
-- reaches documents without the order key.
-- A[base + 1 …]: set suffix of the value, id zset suffix, order zset suffix, ord(value), order is id ('1'/'0'),
-- direction, lo, lo inclusive, hi, hi inclusive ('' bounds are open).
local function partitionPage(C, offset, take, A, base)
  local setKey, idKey, orderKey, pv = C .. 's:' .. A[base + 1], C .. 'q:' .. A[base + 2], C .. 'q:' .. A[base + 3], A[base + 4]
  local isId, rev = A[base + 5] == '1', A[base + 6] == 'desc'
  local lo, loIncl, hi, hiIncl = A[base + 7], A[base + 8] == '1', A[base + 9], A[base + 10] == '1'
  local size = redis.call('ZLEXCOUNT', idKey, '[' .. pv, '(' .. pv .. '\255')
  if size ~= redis.call('SCARD', setKey) then return nil end
  local lexLo, lexHi = '[' .. pv, '(' .. pv .. '\255'
  if lo ~= '' then
    if loIncl then lexLo = '[' .. pv .. lo else lexLo = '(' .. pv .. lo .. '\255' end
  end
  if hi ~= '' then
    if hiIncl then lexHi = '(' .. pv .. hi .. '\255' else lexHi = '(' .. pv .. hi end
  end
  local n = redis.call('ZLEXCOUNT', orderKey, lexLo, lexHi)
  local total = size
  if lo ~= '' or hi ~= '' then
    total = n
  elseif n < size and offset + take > n then
    return nil
  end
  local result = { total }
  if take == 0 or offset >= n then return result end
  -- The slice's first rank: the number of members before its lower bound.
  local bound = string.sub(lexLo, 2)
  local first
  if string.sub(lexLo, 1, 1) == '[' then first = redis.call('ZLEXCOUNT', orderKey, '-', '(' .. bound)
  else first = redis.call('ZLEXCOUNT', orderKey, '-', '[' .. bound) end
  local last = first + n - 1
  local from, to
  if rev then
    to = last - offset
    from = math.max(first, to - take + 1)
  else
    from = first + offset
    to = math.min(last, from + take - 1)
  end
  local ms = redis.call('ZRANGE', orderKey, from, to)
  local function skip(s, pos)
    if string.byte(s, pos) == 1 then return pos + 9 end
    return string.find(s, '\0', pos + 1, true) + 1
  end
  local oids = {}
  for i, m in ipairs(ms) do
    local pos = skip(m, 1)
    if not isId then pos = skip(m, pos) end
    local at = i
    if rev then at = #ms - i + 1 end
    oids[at] = string.sub(m, pos, skip(m, pos) - 1)
  end
  if #oids > 0 then
    for i, doc in ipairs(redis.call('HMGET', C .. 'd', unpack(oids))) do result[i + 1] = doc end
  end
  return result
end
