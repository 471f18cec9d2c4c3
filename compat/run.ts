/**
 * `npm run compat`: sends the sequence of compat/sequence.ts to the reference WordPress and to a palimpsest
 * started for the occasion, and reports every difference. A tool, not a test: it exits 0 whatever it finds
 * (1 only when it cannot run). `--json` prints the machine-readable result instead of the text report;
 * `--only <regex>` sends only the steps whose names match (steps that need an id from a skipped step are
 * reported as skipped); `--reference <file>` (or COMPAT_REFERENCE) names the file that describes the WordPress to
 * compare with (its URL and each role's application password; docs/compatibility.md shows its shape).
 */
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { SEQUENCE } from './sequence';
import { compareOutcomes } from './compare';
import type { SideView } from './compare';
import { REFERENCE_CREDENTIALS, authorization, referenceTarget, send, startPalimpsest } from './targets';
import type { Target } from './targets';
import { explain } from './explanations';
import type { Category } from './explanations';
import { ROLES } from './step';
import type { Difference, IdKind, Outcome, QueryValue, Step } from './step';
import { printReport } from './report';
import { generateImages } from './images';

const checkout = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

interface SymbolEntry {
  kind: IdKind;
  reference?: number;
  palimpsest?: number;
  /** The reference item's type or taxonomy, to delete it through the right route afterwards. */
  referenceType?: string;
  /** The collection it was created in, when that alone says how to delete it (media, menus, menu items); `kept` for what the run only points at. */
  referenceRoute?: 'media' | 'menus' | 'menu-items' | 'kept';
}

type Side = 'reference' | 'palimpsest';

class MissingSymbol extends Error {}

export interface StepResult {
  name: string;
  method: string;
  path: string;
  as: string;
  reference: { status: number; skipped?: string };
  palimpsest: { status: number; skipped?: string };
  differences: Array<Difference & { explanation: string | null; category: Category | null }>;
  /** Both bodies as received, for steps with differences (to see the whole answer behind a difference). */
  bodies?: { reference: unknown; palimpsest: unknown };
}

export interface CompatResult {
  date: string;
  /** False when the run was interrupted before the end of the sequence. */
  complete: boolean;
  marker: string;
  reference: { url: string; version: string };
  palimpsest: { commit: string; dirty: boolean };
  summary: {
    steps: number;
    /** Sent to neither side: an id they need was never captured (a step left out by --only, or failed). */
    skipped: number;
    identical: number;
    withDifferences: number;
    differences: number;
    byKind: Record<string, number>;
    byCategory: Record<Category | 'unexplained', number>;
  };
  steps: StepResult[];
}

function encodeQuery(query: Record<string, QueryValue>): string {
  const parts: string[] = [];
  const enc = (s: string) => encodeURIComponent(s);
  const add = (key: string, value: QueryValue) => {
    if (value === null) parts.push(key);
    else if (Array.isArray(value)) for (const v of value) add(`${key}[]`, v);
    else if (typeof value === 'object') for (const [k, v] of Object.entries(value)) add(`${key}[${enc(k)}]`, v);
    else parts.push(`${key}=${enc(String(value))}`);
  };
  for (const [key, value] of Object.entries(query)) add(enc(key), value);
  return parts.join('&');
}

function at(value: unknown, dotted: string): unknown {
  let current = value;
  for (const part of dotted.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      json: { type: 'boolean', default: false },
      only: { type: 'string' },
      reference: { type: 'string', default: process.env.COMPAT_REFERENCE || REFERENCE_CREDENTIALS },
    },
  });
  const log = (line: string) => {
    if (!values.json) console.error(line);
  };
  const reference = await referenceTarget(values.reference);
  const alive = await fetch(`${reference.apiRoot}/`).then(
    (r) => r.ok,
    () => false,
  );
  if (!alive) {
    console.error(
      `the reference WordPress does not answer at ${reference.apiRoot}/; start it with: sudo /work/shared/reference/wordpress.sh`,
    );
    return 1;
  }
  const running = await startPalimpsest(checkout, reference.timezone, log);
  const palimpsest = running.target;
  const marker = `cmp${randomBytes(4).toString('hex').slice(0, 6)}`;
  log(`reference WordPress ${reference.version} at ${reference.apiRoot}/; marker ${marker}`);

  const symbols = new Map<string, SymbolEntry>();
  for (const role of ROLES)
    symbols.set(role, { kind: 'user', reference: reference.users[role].id, palimpsest: palimpsest.users[role].id });
  // Both sites start with the default category "Uncategorized" as term 1.
  symbols.set('uncategorized', { kind: 'term', reference: 1, palimpsest: 1 });

  const targets: Record<Side, Target> = { reference, palimpsest };
  const view = (side: Side): SideView => ({
    side,
    siteUrl: targets[side].siteUrl,
    apiRoot: targets[side].apiRoot,
    symbolOf(kind, id) {
      for (const [name, entry] of symbols) if (entry.kind === kind && entry[side] === id) return name;
      return undefined;
    },
  });

  const texts = new Map<string, Partial<Record<Side, string>>>();
  // Names the sequence captures: one not captured yet (a step left out by --only, or that failed) is missing.
  const capturedNames = new Set(
    SEQUENCE.flatMap((step) => [...Object.keys(step.capture ?? {}), ...Object.keys(step.captureUrlId ?? {})]),
  );
  const capturedTexts = new Set(SEQUENCE.flatMap((step) => Object.keys(step.captureText ?? {})));
  const resolveString = (template: string, side: Side): string =>
    template.replace(/\{([A-Za-z][\w]*)\}/g, (whole, name: string) => {
      if (name === 'ns') return targets[side].namespace;
      if (name === 'marker') return marker;
      if (name === 'site') return targets[side].siteUrl;
      if (capturedTexts.has(name)) {
        const text = texts.get(name)?.[side];
        if (text === undefined) throw new MissingSymbol(`{${name}} was not captured on this side`);
        return text;
      }
      const entry = symbols.get(name);
      if (!entry && capturedNames.has(name)) throw new MissingSymbol(`{${name}} was not captured`);
      if (!entry) return whole;
      const id = entry[side];
      if (id === undefined) throw new MissingSymbol(`{${name}} was not captured on this side`);
      return String(id);
    });
  const resolveValue = (value: unknown, side: Side): unknown => {
    if (typeof value === 'string') {
      const whole = /^\{([A-Za-z]\w*)\}$/.exec(value);
      if (whole && (symbols.has(whole[1]!) || capturedNames.has(whole[1]!))) return Number(resolveString(value, side));
      return resolveString(value, side);
    }
    if (Array.isArray(value)) return value.map((v) => resolveValue(v, side));
    if (value !== null && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveValue(v, side)]));
    return value;
  };

  const images = await generateImages();
  const uploadBody = (
    upload: NonNullable<Step['upload']>,
    side: Side,
    headers: Record<string, string>,
  ): Buffer | FormData => {
    const image = upload.image ? images[upload.image] : null;
    const bytes = image?.bytes ?? Buffer.alloc(0);
    const filename = resolveString(upload.filename, side);
    const contentType = upload.contentType === undefined ? (image?.contentType ?? null) : upload.contentType;
    if (upload.mode === 'multipart') {
      const form = new FormData();
      for (const [k, v] of Object.entries(upload.fields ?? {})) form.append(k, resolveString(v, side));
      if (image) form.append('file', new Blob([bytes], contentType ? { type: contentType } : {}), filename);
      return form;
    }
    if (contentType !== null) headers['Content-Type'] = contentType;
    const disposition = upload.disposition === undefined ? `attachment; filename="${filename}"` : upload.disposition;
    if (disposition !== null) headers['Content-Disposition'] = resolveString(disposition, side);
    if (upload.md5)
      headers['Content-MD5'] = createHash('md5')
        .update(upload.md5 === 'right' ? bytes : Buffer.from('other bytes'))
        .digest('hex');
    return bytes;
  };

  const sendStep = async (step: Step, side: Side): Promise<Outcome> => {
    const target = targets[side];
    try {
      const base = step.root ? target.apiRoot : `${target.apiRoot}${target.namespace}`;
      // The reference names the namespaces WordPress lists on every site with a `wp-` prefix the interface drops.
      const stepPath =
        side === 'reference' && step.root
          ? step.path.replace(/^\/(site-health|block-editor)\/v1(?=\/|$)/, '/wp-$1/v1')
          : step.path;
      let url = `${base}${resolveString(stepPath, side)}`;
      if (step.query) url += `?${encodeQuery(resolveValue(step.query, side) as Record<string, QueryValue>)}`;
      const headers: Record<string, string> = { ...(step.headers ?? {}) };
      const auth = authorization(target, step.as ?? 'anonymous');
      if (auth) headers.Authorization = auth;
      let body: string | Buffer | FormData | undefined;
      if (step.upload) {
        body = uploadBody(step.upload, side, headers);
      } else if (step.body !== undefined) {
        headers['Content-Type'] = 'application/json';
        body = JSON.stringify(resolveValue(step.body, side));
      } else if (step.form) {
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
        body = new URLSearchParams(resolveValue(step.form, side) as Record<string, string>).toString();
      } else if (step.raw) {
        headers['Content-Type'] = step.raw.contentType;
        body = step.raw.data;
      }
      return await send({ method: step.method, url, headers, body });
    } catch (error) {
      if (error instanceof MissingSymbol) return { status: 0, headers: {}, body: null, skipped: error.message };
      throw error;
    }
  };

  const only = values.only ? new RegExp(values.only) : null;
  const results: StepResult[] = [];
  // Ctrl-C stops after the current step, so that what was made on the reference is still deleted.
  let interrupted = false;
  const interrupt = () => {
    interrupted = true;
    log('interrupted: cleaning up the reference');
  };
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  try {
    for (const step of SEQUENCE) {
      if (interrupted) break;
      if (only && !only.test(step.name)) continue;
      const [ref, pal] = await Promise.all([sendStep(step, 'reference'), sendStep(step, 'palimpsest')]);
      for (const [name, dotted] of Object.entries(step.capture ?? {})) {
        const entry: SymbolEntry = symbols.get(name) ?? { kind: step.captureKind ?? 'content' };
        for (const [side, outcome] of [
          ['reference', ref],
          ['palimpsest', pal],
        ] as const) {
          const id = at(outcome.body, dotted);
          if (typeof id === 'number' && outcome.status < 300 && !outcome.skipped) {
            entry[side] = id;
            if (side === 'reference') {
              const holder = dotted.includes('.')
                ? at(outcome.body, dotted.slice(0, dotted.lastIndexOf('.')))
                : outcome.body;
              const h = (holder ?? {}) as Record<string, unknown>;
              entry.referenceType =
                typeof h.taxonomy === 'string' ? h.taxonomy : typeof h.type === 'string' ? h.type : undefined;
              const collection = /^\/(media|menus|menu-items)(?=\/|$)/.exec(
                step.path,
              )?.[1] as SymbolEntry['referenceRoute'];
              if (collection && !dotted.includes('.') && step.method === 'POST') entry.referenceRoute = collection;
            }
          }
        }
        if (entry.reference !== undefined || entry.palimpsest !== undefined) symbols.set(name, entry);
      }
      for (const [name, dotted] of Object.entries(step.captureUrlId ?? {})) {
        const entry: SymbolEntry = { kind: 'content', referenceRoute: 'kept' };
        for (const [side, outcome] of [
          ['reference', ref],
          ['palimpsest', pal],
        ] as const) {
          const url = at(outcome.body, dotted);
          const id = typeof url === 'string' ? /\/(\d+)\/?$/.exec(url)?.[1] : undefined;
          if (id !== undefined && outcome.status < 300 && !outcome.skipped) entry[side] = Number(id);
        }
        if (entry.reference !== undefined || entry.palimpsest !== undefined) symbols.set(name, entry);
      }
      for (const [name, dotted] of Object.entries(step.captureText ?? {})) {
        for (const [side, outcome] of [
          ['reference', ref],
          ['palimpsest', pal],
        ] as const) {
          const text = at(outcome.body, dotted);
          if (typeof text === 'string' && outcome.status < 300 && !outcome.skipped)
            texts.set(name, { ...texts.get(name), [side]: text });
        }
      }
      const differences = compareOutcomes(step, ref, pal, view('reference'), view('palimpsest')).map((d) => {
        const e = explain(step.name, d);
        return { ...d, explanation: e ? e.id : null, category: e ? e.category : null };
      });
      results.push({
        name: step.name,
        method: step.method,
        path:
          (step.root ? '' : '/core/v2') +
          step.path +
          (step.query ? `?${decodeURIComponent(encodeQuery(step.query))}` : ''),
        as: step.as ?? 'anonymous',
        reference: { status: ref.status, ...(ref.skipped ? { skipped: ref.skipped } : {}) },
        palimpsest: { status: pal.status, ...(pal.skipped ? { skipped: pal.skipped } : {}) },
        differences,
        ...(differences.length > 0 ? { bodies: { reference: ref.body, palimpsest: pal.body } } : {}),
      });
      log(
        `${ref.skipped && pal.skipped ? 'skip' : differences.length === 0 ? 'ok  ' : 'diff'} ${step.name} (${ref.status}/${pal.status})`,
      );
    }
  } finally {
    await cleanUpReference(reference, symbols, marker, log);
    await running.stop();
  }

  const byKind: Record<string, number> = {};
  const byCategory: Record<Category | 'unexplained', number> = {
    deliberate: 0,
    'not-built': 0,
    bug: 0,
    unexplained: 0,
  };
  let count = 0;
  for (const r of results) {
    for (const d of r.differences) {
      count++;
      byKind[d.kind] = (byKind[d.kind] ?? 0) + 1;
      byCategory[d.category ?? 'unexplained']++;
    }
  }
  const commit = gitOutput(['rev-parse', '--short', 'HEAD']);
  const dirty = gitOutput(['status', '--porcelain', '--untracked-files=no', '--', 'src', 'projections']) !== '';
  const result: CompatResult = {
    date: new Date().toISOString(),
    complete: !interrupted,
    marker,
    reference: { url: reference.apiRoot, version: reference.version },
    palimpsest: { commit, dirty },
    summary: {
      steps: results.length,
      skipped: results.filter((r) => r.reference.skipped && r.palimpsest.skipped).length,
      identical: results.filter((r) => r.differences.length === 0 && !(r.reference.skipped && r.palimpsest.skipped))
        .length,
      withDifferences: results.filter((r) => r.differences.length > 0).length,
      differences: count,
      byKind,
      byCategory,
    },
    steps: results,
  };
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else printReport(result);
  return 0;
}

function gitOutput(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: checkout, encoding: 'utf8' }).trim();
  } catch {
    return '';
  }
}

/** Force-deletes on the reference everything the run created: captured items, then anything left with the marker. */
async function cleanUpReference(
  reference: Target,
  symbols: Map<string, SymbolEntry>,
  marker: string,
  log: (line: string) => void,
): Promise<void> {
  const headers = { Authorization: authorization(reference, 'administrator')! };
  const api = `${reference.apiRoot}${reference.namespace}`;
  const remove = async (route: string, id: number) => {
    const r = await fetch(`${api}/${route}/${id}?force=true`, { method: 'DELETE', headers }).catch(() => null);
    return r?.status ?? 0;
  };
  let removed = 0;
  const listed = async (route: string, query: string) => {
    const r = await fetch(`${api}/${route}?${query}&per_page=100&_fields=id`, { headers }).catch(() => null);
    return r?.ok ? ((await r.json()) as Array<{ id: number }>) : [];
  };
  // Media, menu items and menus first (a menu's deletion takes its items; a menu item may link a post).
  for (const route of ['media', 'menu-items', 'menus'] as const) {
    for (const [, entry] of symbols) {
      if (entry.referenceRoute !== route || entry.reference === undefined) continue;
      if ((await remove(route, entry.reference)) === 200) removed++;
    }
  }
  for (const item of await listed('media', `search=${marker}`)) if ((await remove('media', item.id)) === 200) removed++;
  for (const menu of await listed('menus', `search=${marker}`)) {
    for (const item of await listed('menu-items', `menus=${menu.id}&status=any`))
      if ((await remove('menu-items', item.id)) === 200) removed++;
    if ((await remove('menus', menu.id)) === 200) removed++;
  }
  for (const item of await listed('menu-items', `search=${marker}&status=any`))
    if ((await remove('menu-items', item.id)) === 200) removed++;
  // A reusable block its maker may not delete unpublished (WordPress 6.1's block capabilities) is published first.
  const removeBlock = async (id: number) => {
    let status = await remove('blocks', id);
    if (status === 403) {
      await fetch(`${api}/blocks/${id}`, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: '{"status":"publish"}',
      }).catch(() => null);
      status = await remove('blocks', id);
    }
    return status;
  };
  for (const [name, entry] of symbols) {
    const id = entry.reference;
    if (id === undefined || name === 'uncategorized' || entry.referenceRoute) continue;
    if (entry.kind === 'content' && entry.referenceType === 'wp_block') {
      if ((await removeBlock(id)) === 200) removed++;
    } else if (entry.kind === 'content' && entry.referenceType !== 'revision') {
      const first = entry.referenceType === 'page' ? 'pages' : 'posts';
      const status = await remove(first, id);
      if (status === 404) await remove(first === 'pages' ? 'posts' : 'pages', id);
      if (status === 200) removed++;
    }
  }
  // Anything the run made without capturing its id (a step that should have failed, a batch entry).
  for (const route of ['posts', 'pages']) {
    for (const status of ['any', 'trash']) {
      const r = await fetch(`${api}/${route}?search=${marker}&status=${status}&per_page=100&_fields=id`, {
        headers,
      }).catch(() => null);
      const items = r?.ok ? ((await r.json()) as Array<{ id: number }>) : [];
      for (const item of items) if ((await remove(route, item.id)) === 200) removed++;
    }
  }
  for (const status of ['any', 'trash']) {
    for (const item of await listed('blocks', `search=${marker}&status=${status}`))
      if ((await removeBlock(item.id)) === 200) removed++;
  }
  for (const [name, entry] of symbols) {
    if (entry.kind !== 'term' || entry.reference === undefined || name === 'uncategorized' || entry.referenceRoute)
      continue;
    if ((await remove(entry.referenceType === 'post_tag' ? 'tags' : 'categories', entry.reference)) === 200) removed++;
  }
  for (const route of ['categories', 'tags']) {
    const r = await fetch(`${api}/${route}?search=${marker}&per_page=100&_fields=id`, { headers }).catch(() => null);
    const items = r?.ok ? ((await r.json()) as Array<{ id: number }>) : [];
    for (const item of items) if ((await remove(route, item.id)) === 200) removed++;
  }
  log(`reference cleaned up: ${removed} items force-deleted`);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : error);
    process.exitCode = 1;
  },
);
