/**
 * Query strings and urlencoded forms parsed the way PHP (and so WordPress) reads them: `a[]=1&a[]=2` is a
 * list, `a[terms][]=3&a[operator]=AND` an object, a repeated plain key keeps its last value.
 */
export function parseQuery(query: string): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  if (query === '') return result;
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const rawKey = decode(eq === -1 ? part : part.slice(0, eq));
    const value = eq === -1 ? '' : decode(part.slice(eq + 1));
    assign(result, rawKey, value);
  }
  return Object.fromEntries(Object.entries(result).map(([k, v]) => [k, listify(v)]));
}

/** PHP arrays whose keys are 0..n-1 are lists (`e[0]=a&e[1]=b`). */
function listify(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(listify);
  const entries = Object.entries(value).map(([k, v]) => [k, listify(v)] as const);
  const isList = entries.length > 0 && entries.every(([k], i) => k === String(i));
  return isList ? entries.map(([, v]) => v) : Object.fromEntries(entries);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}

function assign(target: Record<string, unknown>, rawKey: string, value: string): void {
  const open = rawKey.indexOf('[');
  if (open <= 0 || !rawKey.endsWith(']')) {
    target[rawKey] = value;
    return;
  }
  const name = rawKey.slice(0, open);
  const path = rawKey
    .slice(open + 1, -1)
    .split('][');
  let container: Record<string, unknown> = target;
  let key = name;
  for (const segment of path) {
    let next = container[key];
    if (next === null || typeof next !== 'object') {
      next = segment === '' ? [] : {};
      container[key] = next;
    }
    if (Array.isArray(next)) {
      if (segment === '') {
        container = next as unknown as Record<string, unknown>;
        key = String(next.length);
        continue;
      }
      if (!/^\d+$/.test(segment)) {
        // A named key inside what started as a list: PHP arrays are maps, so become one.
        const asObject: Record<string, unknown> = { ...next };
        container[key] = asObject;
        next = asObject;
      }
    }
    container = next as Record<string, unknown>;
    key = segment === '' ? String(Object.keys(container).length) : segment;
  }
  container[key] = value;
}
