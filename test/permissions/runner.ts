/**
 * Runs rows of the permission table against a target (our site, or the reference WordPress): makes the row's
 * fixtures as the administrator, sends the request as each caller, and reduces the answer to a cell in the
 * table's notation so that expected and actual compare as strings.
 */
import type { Cell, CommentFixture, ItemFixture, MediaFixture, Row, TermFixture, UserFixture, Who } from './table';
import { UPLOAD } from './table';
import { FIXTURE_DATES, WHO } from './table';
import type { Role } from '../../src/access/capabilities';

export interface TargetResponse {
  status: number;
  body: any;
  /** The `X-WP-Total` header, when the answer has one. */
  total?: number;
}

/** A caller: a role's user, anonymous, or a login with a given application password. */
export type Caller = Who | { login: string; password: string };

export interface Target {
  /** The namespace our `core/v2` stands for there (`wp/v2` on WordPress). */
  namespace: string;
  /** Sends a request as the caller; `path` is already in the target's namespace. With `upload`, the body is that file, sent raw. */
  send(method: string, path: string, body: unknown, caller: Caller, upload?: Upload): Promise<TargetResponse>;
  userId(role: Role): number;
  login(role: Role): string;
}

/** A file sent as a raw upload body. */
export interface Upload {
  data: Buffer;
  filename: string;
  type: string;
}

interface Made {
  id: number;
  /** A media item's file URL. */
  src?: string;
  word?: string;
  revision?: number;
  autosave?: number;
  child?: number;
  uuid?: string;
}

/** Fixtures a run made: reusable ones for reads, and everything to delete afterwards. */
export class FixtureBook {
  private readonly shared = new Map<string, Made>();
  /** Who made each reusable block (by path): only its maker can always take it out of the way again. */
  private readonly blockMakers = new Map<string, Role>();
  /** The active theme's stylesheet and its user global styles' id, read once. */
  private theme: Promise<{ stylesheet: string; styles: number }> | null = null;
  /** Paths (in `core/v2` terms) of what was made, to delete afterwards, oldest first. */
  readonly made: string[] = [];
  private counter = 0;
  constructor(private readonly target: Target) {}

  path(path: string): string {
    return path.replace(/^\/core\/v2(?=\/|$)/, `/${this.target.namespace}`);
  }

  unique(prefix: string): string {
    return `${prefix}${Date.now().toString(36)}x${(this.counter++).toString(36)}`;
  }

  private admin(method: string, path: string, body?: unknown): Promise<TargetResponse> {
    return this.as('administrator', method, path, body);
  }

  private async as(role: Role, method: string, path: string, body?: unknown): Promise<TargetResponse> {
    const response = await this.target.send(method, this.path(path), body, role);
    if (response.status >= 300)
      throw new Error(
        `fixture ${method} ${path} as ${role} answered ${response.status} ${JSON.stringify(response.body)}`,
      );
    return response;
  }

  /** The user who is not the caller: the administrator, or the editor for the administrator. */
  otherUser(who: Who): number {
    return this.target.userId(who === 'administrator' ? 'editor' : 'administrator');
  }

  private async reuse(key: string, reusable: boolean, make: () => Promise<Made>): Promise<Made> {
    if (reusable && this.shared.has(key)) return this.shared.get(key)!;
    const made = await make();
    if (reusable) this.shared.set(key, made);
    return made;
  }

  /** The active theme's stylesheet (`{theme}`) and the id of its user global styles (`{styles}`). */
  activeTheme(): Promise<{ stylesheet: string; styles: number }> {
    this.theme ??= this.admin('GET', '/core/v2/themes?status=active').then((response) => {
      const [theme] = response.body as { stylesheet: string; _links: Record<string, { href: string }[]> }[];
      return {
        stylesheet: theme!.stylesheet,
        styles: Number(/(\d+)$/.exec(theme!._links['wp:user-global-styles']![0]!.href)![1]),
      };
    });
    return this.theme;
  }

  /** The role of a user id of the target's. */
  private roleOf(id: number): Role {
    return (['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const).find(
      (role) => this.target.userId(role) === id,
    )!;
  }

  async item(fixture: ItemFixture, who: Who, reusable: boolean, author?: number): Promise<Made> {
    const owner = author ?? (fixture.owner === 'own' ? this.target.userId(who as Role) : this.otherUser(who));
    return this.reuse(JSON.stringify({ ...fixture, owner }), reusable, async () => {
      const word = this.unique('permword');
      const base = `/core/v2/${fixture.type}`;
      const status = fixture.status === 'trash' ? (fixture.trashedFrom ?? 'draft') : fixture.status;
      const body: Record<string, unknown> = {
        title: `Permission fixture ${word}`,
        content: `<p>Only ${word} here.</p>`,
        status,
        author: owner,
      };
      if (fixture.type === 'posts') body.excerpt = `Excerpt of ${word}`;
      if (status === 'future') body.date = FIXTURE_DATES.future;
      if (fixture.password) body.password = fixture.password;
      // A reusable block has no author to set: its owner makes it.
      const maker = fixture.type === 'blocks' ? this.roleOf(owner) : 'administrator';
      const created =
        fixture.type === 'blocks' ? await this.as(maker, 'POST', base, body) : await this.admin('POST', base, body);
      const made: Made = { id: created.body.id, word };
      this.made.push(`${base}/${made.id}`);
      if (fixture.type === 'blocks') this.blockMakers.set(`${base}/${made.id}`, maker);
      if (fixture.revised) {
        await this.admin('POST', `${base}/${made.id}`, { title: `Permission fixture ${word} (revised)` });
        const revisions = await this.admin('GET', `${base}/${made.id}/revisions`);
        made.revision = revisions.body[0]?.id;
      }
      if (fixture.autosaved) {
        const autosave = await this.admin('POST', `${base}/${made.id}/autosaves`, {
          title: `Autosave of ${word}`,
          content: `<p>Autosaved ${word}.</p>`,
        });
        made.autosave = autosave.body.id;
      }
      if (fixture.child) {
        const child = await this.admin('POST', '/core/v2/pages', {
          title: `Child of ${word}`,
          status: 'publish',
          parent: made.id,
          author: this.target.userId('administrator'),
        });
        made.child = child.body.id;
        this.made.push(`/core/v2/pages/${made.child}`);
      }
      if (fixture.status === 'trash') await this.admin('DELETE', `${base}/${made.id}`);
      return made;
    });
  }

  /** An unattached image uploaded by the administrator for the caller (`own`) or another user. */
  async media(fixture: MediaFixture, who: Who, reusable: boolean): Promise<Made> {
    const owner = fixture.owner === 'own' ? this.target.userId(who as Role) : this.otherUser(who);
    return this.reuse(JSON.stringify({ media: true, owner }), reusable, async () => {
      const response = await this.target.send(
        'POST',
        this.path(`/core/v2/media?author=${owner}`),
        undefined,
        'administrator',
        { ...UPLOAD, filename: `${this.unique('permmedia')}.png` },
      );
      if (response.status !== 201)
        throw new Error(`fixture upload answered ${response.status} ${JSON.stringify(response.body)}`);
      this.made.push(`/core/v2/media/${response.body.id}`);
      return { id: response.body.id, src: response.body.source_url };
    });
  }

  async term(fixture: TermFixture, reusable: boolean): Promise<Made> {
    return this.reuse(JSON.stringify(fixture), reusable, async () => {
      const name = this.unique('permterm');
      // A menu item (a post of nav_menu_item, made like a term of a menu) is a custom link.
      const body = fixture.taxonomy === 'menu-items' ? { title: name, url: 'https://example.com/' } : { name };
      const created = await this.admin('POST', `/core/v2/${fixture.taxonomy}`, body);
      this.made.push(`/core/v2/${fixture.taxonomy}/${created.body.id}`);
      const made: Made = { id: created.body.id, word: name };
      if (fixture.autosaved)
        made.autosave = (
          await this.admin('POST', `/core/v2/${fixture.taxonomy}/${made.id}/autosaves`, {
            title: `Autosave of ${name}`,
          })
        ).body.id;
      return made;
    });
  }

  async comment(fixture: CommentFixture, who: Who, reusable: boolean): Promise<Made> {
    const authorId = fixture.author === 'own' ? this.target.userId(who as Role) : this.otherUser(who);
    return this.reuse(
      JSON.stringify({ comment: fixture, who: fixture.post === 'own' || fixture.author === 'own' ? who : '' }),
      reusable,
      async () => {
        const post = await this.item({ type: 'posts', owner: fixture.post, status: 'publish' }, who, false);
        const word = this.unique('permcomment');
        const body: Record<string, unknown> = { post: post.id, content: `Only ${word} here.`, author: authorId };
        if (fixture.status) body.status = fixture.status;
        const created = await this.admin('POST', '/core/v2/comments', body);
        this.made.push(`/core/v2/comments/${created.body.id}`);
        return { id: created.body.id, word };
      },
    );
  }

  /** A new user of the caller's role, signed in with an application password of their own. */
  async freshCaller(role: Role): Promise<{ id: number; login: string; password: string }> {
    const login = this.unique('permcaller');
    const created = await this.admin('POST', '/core/v2/users', {
      username: login,
      email: `${login}@example.test`,
      password: `${login}-Pass-1`,
      roles: [role],
    });
    this.made.push(`/core/v2/users/${created.body.id}`);
    const issued = await this.admin('POST', `/core/v2/users/${created.body.id}/application-passwords`, {
      name: 'permission table caller',
    });
    return { id: created.body.id, login, password: issued.body.password };
  }

  async user(fixture: UserFixture, who: Who, reusable: boolean, self?: number): Promise<Made> {
    let id: number;
    if (fixture.user === 'self') id = self ?? this.target.userId(who as Role);
    else if (fixture.user === 'other') id = this.otherUser(who);
    else {
      const made = await this.reuse(JSON.stringify({ fresh: true }), reusable, async () => {
        const login = this.unique('permuser');
        const created = await this.admin('POST', '/core/v2/users', {
          username: login,
          email: `${login}@example.test`,
          password: `${login}-Pass-1`,
          roles: ['subscriber'],
        });
        this.made.push(`/core/v2/users/${created.body.id}`);
        return { id: created.body.id };
      });
      id = made.id;
    }
    if (fixture.withPublishedPost) await this.item({ type: 'posts', owner: 'other', status: 'publish' }, who, true, id);
    const made: Made = { id };
    if (fixture.applicationPassword) {
      const created = await this.admin('POST', `/core/v2/users/${id}/application-passwords`, {
        name: this.unique('permission table '),
      });
      made.uuid = created.body.uuid;
      this.made.push(`/core/v2/users/${id}/application-passwords/${made.uuid}`);
    }
    return made;
  }

  /** Records what a row's request made, so that it is deleted too. */
  noteCreated(path: string, response: TargetResponse): void {
    if (response.status !== 201 || !response.body || typeof response.body !== 'object') return;
    // An edited image is a new item of the media collection.
    const collection = path
      .split('?')[0]!
      .replace(/^\/[^/]+\/[^/]+/, '/core/v2')
      .replace(/\/media\/\d+\/edit$/, '/media');
    if (typeof response.body.uuid === 'string' && collection.endsWith('/application-passwords'))
      this.made.push(`${collection}/${response.body.uuid}`);
    else if (typeof response.body.id === 'number') this.made.push(`${collection}/${response.body.id}`);
  }

  /** Deletes what the run made, newest first (for the reference site; a test site is thrown away anyway). */
  async cleanUp(): Promise<void> {
    const reassign = this.target.userId('administrator');
    for (const path of [...this.made].reverse()) {
      const query = /\/users\/\d+$/.test(path)
        ? `?force=true&reassign=${reassign}`
        : /application-passwords\//.test(path)
          ? ''
          : '?force=true';
      let response = await this.target.send('DELETE', this.path(`${path}${query}`), undefined, 'administrator');
      // WordPress 6.1 lets nobody delete their own unpublished block, nor another's private one: its maker publishes it
      // first, and deletes it then.
      const maker = this.blockMakers.get(path) ?? (/\/blocks\/\d+$/.test(path) ? 'administrator' : undefined);
      if (response.status === 403 && maker) {
        await this.target.send('POST', this.path(path), { status: 'publish' }, maker);
        response = await this.target.send('DELETE', this.path(`${path}${query}`), undefined, maker);
      }
      if (response.status >= 300 && response.status !== 404 && response.status !== 410)
        console.error(`clean-up of ${path} answered ${response.status}`);
    }
  }
}

const substitute = (text: string, values: Record<string, string | number | undefined>): string =>
  text.replace(/\{(\w+)\}/g, (whole, name: string) => (values[name] !== undefined ? String(values[name]) : whole));

function substituteValue(value: unknown, values: Record<string, string | number | undefined>): unknown {
  if (typeof value === 'string') {
    const replaced = substitute(value, values);
    return /^\{\w+\}$/.test(value) && /^\d+$/.test(replaced) ? Number(replaced) : replaced;
  }
  if (Array.isArray(value)) return value.map((entry) => substituteValue(entry, values));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, substituteValue(entry, values)]));
  return value;
}

/** The checks a cell may end with, in pairs: the first word of each pair is what the answer shows when it holds. */
export const CHECK_PAIRS = [
  ['listed', 'unlisted'],
  ['hidden', 'shown'],
  ['raw', 'no-raw'],
  ['counted', 'uncounted'],
  ['embedded', 'unembedded'],
] as const;
const CHECKS: readonly string[] = CHECK_PAIRS.flat();

/** Whether an item's content (and excerpt, where given) is withheld as password-protected. */
function isHidden(item: any): boolean {
  const fields = [item?.content, item?.excerpt].filter((field) => field && typeof field === 'object');
  return fields.length > 0 && fields.every((field) => field.protected === true && field.rendered === '');
}

/** Whether anything in the answer, embedded items included, carries a raw field or a post password. */
function hasRawFields(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasRawFields);
  if (!value || typeof value !== 'object') return false;
  return Object.entries(value).some(
    ([key, entry]) => key === 'raw' || (key === 'password' && typeof entry === 'string') || hasRawFields(entry),
  );
}

/** Whether an item with this id is among what `_embed` brought, anywhere in the answer. */
function embeds(value: unknown, id: number | null, inside = false): boolean {
  if (Array.isArray(value)) return value.some((entry) => embeds(entry, id, inside));
  if (!value || typeof value !== 'object') return false;
  if (inside && (value as { id?: unknown }).id === id) return true;
  return Object.entries(value).some(([key, entry]) => embeds(entry, id, inside || key === '_embedded'));
}

/**
 * Reduces an answer to the table's notation, looking only at what the expected cell asks about. In a list, `hidden`
 * and `shown` are said of the row's item (and nothing when it is not listed); `counted` is a list whose `X-WP-Total`
 * is above 0 (with `include={id}`, the query counted the row's item whether or not the caller is given it).
 */
export function describe(
  expected: string,
  response: TargetResponse,
  listedId: number | null,
  who: Who,
  embeddedId: number | null = null,
): string {
  const checksWanted = expected.split(' ').filter((word) => CHECKS.includes(word));
  const parts = [String(response.status)];
  const body = response.body;
  if (body && typeof body === 'object' && !Array.isArray(body) && typeof body.code === 'string') {
    let code = body.code as string;
    if (code === 'rest_invalid_param' && body.data?.details) {
      const inner = Object.values(
        body.data.details as Record<string, { code?: string; data?: { status?: number } }>,
      )[0];
      if (inner?.code) {
        code += `/${inner.code}`;
        // The inner error carries the caller's authorization status.
        if (inner.code === 'rest_forbidden_status' && inner.data?.status !== (who === 'anonymous' ? 401 : 403))
          code += `(status ${inner.data?.status})`;
      }
    }
    parts.push(code);
    // An error's status must be the one in its data.
    if (body.data?.status !== undefined && body.data.status !== response.status)
      parts.push(`(data.status ${body.data.status})`);
    return parts.join(' ');
  }
  const listedItem = Array.isArray(body)
    ? body.find((entry: { id?: number }) => listedId !== null && entry?.id === listedId)
    : body;
  for (const check of checksWanted) {
    if (check === 'listed' || check === 'unlisted')
      parts.push(Array.isArray(body) && listedItem !== undefined ? 'listed' : 'unlisted');
    else if (check === 'hidden' || check === 'shown') {
      if (listedItem !== undefined) parts.push(isHidden(listedItem) ? 'hidden' : 'shown');
    } else if (check === 'raw' || check === 'no-raw') parts.push(hasRawFields(body) ? 'raw' : 'no-raw');
    else if (check === 'counted' || check === 'uncounted')
      parts.push((response.total ?? 0) > 0 ? 'counted' : 'uncounted');
    else if (check === 'embedded' || check === 'unembedded')
      parts.push(embeds(body, embeddedId) ? 'embedded' : 'unembedded');
  }
  return parts.join(' ');
}

/** Runs one row for one caller and describes the answer in the notation of `expected`. */
export async function runCell(
  target: Target,
  book: FixtureBook,
  row: Row,
  who: Who,
  expected: string,
): Promise<string> {
  const reusable = row.method === 'GET' && !row.viaBatch;
  const item = row.item
    ? await book.item(row.item, who, reusable)
    : row.media
      ? await book.media(row.media, who, reusable)
      : null;
  const term = row.term ? await book.term(row.term, reusable) : null;
  const comment = row.comment ? await book.comment(row.comment, who, reusable) : null;
  const fresh = row.asFreshCaller && who !== 'anonymous' ? await book.freshCaller(who) : null;
  const user = row.users ? await book.user(row.users, who, reusable, fresh?.id) : null;
  const theme = /\{(theme|styles)\}/.test(row.path) ? await book.activeTheme() : null;
  const values: Record<string, string | number | undefined> = {
    id: item?.id,
    revision: item?.revision,
    autosave: item?.autosave ?? term?.autosave,
    word: item?.word,
    child: item?.child,
    src: item?.src,
    term: term?.id,
    comment: comment?.id,
    me: who === 'anonymous' ? undefined : (fresh?.id ?? target.userId(who)),
    other: book.otherUser(who),
    user: user?.id,
    uuid: user?.uuid,
    unique: book.unique('perm'),
    theme: theme?.stylesheet,
    styles: theme?.styles,
  };
  const path = book.path(substitute(row.path, values));
  const body = substituteValue(row.body, values) as Record<string, unknown> | undefined;
  let caller: Caller = who;
  if (fresh) caller = { login: fresh.login, password: fresh.password };
  if (row.wrongPassword && who !== 'anonymous')
    caller = { login: target.login(who), password: 'wrongwrongwrongwrongwrong' };
  // With a child page, the list is of the child and the row's item is what `_embed` may bring (its parent).
  const listedId = item?.child ?? item?.id ?? term?.id ?? user?.id ?? null;
  const embeddedId = item?.id ?? null;
  if (row.viaBatch) {
    const batch = await target.send(
      'POST',
      '/batch/v1',
      { requests: [{ method: row.method, path, ...(body ? { body } : {}) }] },
      caller,
    );
    if (batch.status !== 207) return `batch answered ${batch.status} ${JSON.stringify(batch.body)}`;
    const inner = batch.body.responses[0] as TargetResponse;
    book.noteCreated(path, inner);
    return describe(expected, inner, listedId, who, embeddedId);
  }
  const response = await target.send(
    row.method,
    path,
    body,
    caller,
    row.upload ? { ...UPLOAD, filename: `${book.unique('permupload')}.png` } : undefined,
  );
  book.noteCreated(path, response);
  return describe(expected, response, listedId, who, embeddedId);
}

/** Every caller's expected cell of a row, by name. */
export function expectations(row: Row): [Who, string][] {
  return WHO.map((who, i) => [who, row.cells[i]] as [Who, Cell]).filter(
    (pair): pair is [Who, string] => pair[1] !== null,
  );
}
