/**
 * `/core/v2/users`, `/core/v2/users/{id}` and `/core/v2/users/me`: list, create, read, update and delete users
 * with WordPress 6.1's arguments, visibility and refusals, in WordPress's order. Application passwords have
 * their own routes (applicationPasswordRoutes.ts).
 */
import type { Site } from '../../site';
import type { Actor, Role } from '../../access/capabilities';
import { ROLE_CAPABILITIES, hasCap, isRole } from '../../access/capabilities';
import type { ArgSchema } from '../../rest/args/schema';
import { sanitizeValue } from '../../rest/args/walkers';
import { argsFromSchema, contextParam } from '../../rest/schema';
import type { Context } from '../../rest/schema';
import { collectionParams, offsetArg } from '../../rest/collectionParams';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { collectionResult, linkQuery, offsetGiven, readModelOffset, listableItems } from '../../rest/collection';
import { allowEveryone, created, ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { Filter, Order } from '../../ports/readModel';
import type { UserDoc } from '../../../projections/users';
import { sanitizeSlug } from '../../text/slug';
import { AUTHORED_POST_TYPES } from '../content/reassign';
import {
  AUTHOR_ROLES,
  canCreateUsers,
  canDeleteUser,
  canEditUser,
  canListUsers,
  canPromoteUser,
  rolesWithAnyCapability,
} from './access';
import { isValidUsername } from './names';
import { createUser, deleteUser, updateUser } from './operations';
import { userStreamId } from './events';
import { readCurrent, readWritten } from '../../projection/written';
import type { NewUser, UserUpdate } from './operations';
import { presentUser } from './present';
import { userSchema } from './schema';

/** The post types WordPress 6.1 shows in REST (the values `has_published_posts` accepts). */
const REST_POST_TYPES = [
  'post',
  'page',
  'attachment',
  'nav_menu_item',
  'wp_block',
  'wp_template',
  'wp_template_part',
  'wp_navigation',
];

export function userRoutes(site: Site): RouteDefinition[] {
  const schema = userSchema();
  const createArgs = withUserChecks(argsFromSchema(schema, 'create'));
  const updateArgs = withUserChecks(argsFromSchema(schema, 'update'));
  const idArg: Record<string, ArgSchema> = { id: { description: 'Unique identifier of the user.', type: 'integer' } };
  const deleteArgs: Record<string, ArgSchema> = {
    force: { type: 'boolean', default: false, description: 'Must be true: users cannot be trashed.' },
    // No `type`: like WordPress, `false` and '' are accepted besides numbers (checked by the hook).
    reassign: { description: 'Give the deleted user’s content to this user.', required: true, validate: checkReassign },
  };
  const contextArgs = { context: contextParam('view') };

  const listArgs: Record<string, ArgSchema> = {
    ...collectionParams({ context: contextParam('view'), search: 'Only users matching this text.' }),
    exclude: { description: 'Leave out these ids.', type: 'array', items: { type: 'integer' }, default: [] },
    include: { description: 'Only these ids.', type: 'array', items: { type: 'integer' }, default: [] },
    offset: offsetArg(),
    // Keyed as WordPress's users controller keys them (default first), which the index shows.
    order: { default: 'asc', description: 'Sort direction.', enum: ['asc', 'desc'], type: 'string' },
    orderby: {
      default: 'name',
      description: 'Attribute to sort by.',
      enum: ['id', 'include', 'name', 'registered_date', 'slug', 'include_slugs', 'email', 'url'],
      type: 'string',
    },
    slug: { description: 'Only users with one of these slugs.', type: 'array', items: { type: 'string' } },
    roles: {
      description: 'Only users with at least one of these roles (a list, or comma-separated).',
      type: 'array',
      items: { type: 'string' },
    },
    capabilities: {
      description: 'Only users with at least one of these capabilities (a list, or comma-separated).',
      type: 'array',
      items: { type: 'string' },
    },
    who: { description: 'Only users who can write (authors).', type: 'string', enum: ['authors'] },
    has_published_posts: {
      description: 'Only users who have published items (of these post types).',
      type: ['boolean', 'array'],
      items: { type: 'string', enum: REST_POST_TYPES },
    },
  };

  const meId = (ctx: HandlerContext) => ctx.actor?.id ?? 0;
  const pathId = (ctx: HandlerContext) => Number(ctx.params.id);

  const getEndpoint = (idOf: (ctx: HandlerContext) => number) => ({
    methods: ['GET'] as const,
    args: contextArgs,
    cacheable: true,
    permission: (ctx: HandlerContext) => readPermission(site, ctx, idOf(ctx)),
    handle: async (ctx: HandlerContext) => {
      const doc = (await loadUser(site, ctx, idOf(ctx)))!;
      return ok(present(site, ctx.actor, doc, ctx.params.context as Context));
    },
  });
  const updateEndpoint = (idOf: (ctx: HandlerContext) => number) => ({
    methods: ['POST', 'PUT', 'PATCH'] as const,
    args: updateArgs,
    permission: (ctx: HandlerContext) => updatePermission(site, ctx, idOf(ctx)),
    // Editing a user takes being that user or a capability; anonymous callers are neither (on `me`, no user at all).
    signedInOnly: true,
    handle: (ctx: HandlerContext) => updateHandler(site, ctx, idOf(ctx)),
  });
  const deleteEndpoint = (idOf: (ctx: HandlerContext) => number) => ({
    methods: ['DELETE'] as const,
    args: deleteArgs,
    permission: (ctx: HandlerContext) => deletePermission(site, ctx, idOf(ctx)),
    signedInOnly: true,
    handle: (ctx: HandlerContext) => deleteHandler(site, ctx, idOf(ctx)),
  });

  return [
    {
      namespace: 'core/v2',
      path: '/core/v2/users',
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: listArgs,
          cacheable: true,
          permission: listPermission,
          handle: (ctx) => listUsers(site, ctx),
        },
        {
          methods: ['POST'],
          args: createArgs,
          permission: (ctx) =>
            canCreateUsers(ctx.actor)
              ? true
              : restError('rest_cannot_create_user', 'Sorry, you are not allowed to create new users.', status(ctx)),
          signedInOnly: true,
          handle: (ctx) => createHandler(site, ctx),
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: '/core/v2/users/(?P<id>[\\d]+)',
      schema,
      endpoints: [
        { ...getEndpoint(pathId), args: { ...idArg, ...contextArgs } },
        { ...updateEndpoint(pathId), args: { ...idArg, ...updateArgs } },
        { ...deleteEndpoint(pathId), args: { ...idArg, ...deleteArgs } },
      ],
    },
    {
      namespace: 'core/v2',
      path: '/core/v2/users/me',
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: contextArgs,
          permission: allowEveryone,
          handle: async (ctx) => {
            if (!ctx.actor) throw restError('rest_not_logged_in', 'You are not currently logged in.', 401);
            const doc = await loadUser(site, ctx, ctx.actor.id);
            if (!doc) throw invalidUser();
            return ok(present(site, ctx.actor, doc, ctx.params.context as Context));
          },
        },
        updateEndpoint(meId),
        deleteEndpoint(meId),
      ],
    },
  ];
}

// --- arguments -------------------------------------------------------------------------------------------------

/** WordPress's extra checks of a username and a login password, as argument errors. */
function withUserChecks(args: Record<string, ArgSchema>): Record<string, ArgSchema> {
  const out = { ...args };
  if (out.username) out.username = { ...out.username, validate: checkUsername };
  if (out.password) out.password = { ...out.password, validate: checkPassword };
  return out;
}

function checkUsername(value: unknown): true | RestError {
  if (!isValidUsername(String(value))) {
    return restError(
      'rest_user_invalid_username',
      'This username is invalid because it uses illegal characters. Please enter a valid username.',
      400,
    );
  }
  return true;
}

function checkPassword(value: unknown): true | RestError {
  const password = String(value);
  if (password === '') return restError('rest_user_invalid_password', 'Passwords cannot be empty.', 400);
  if (password.includes('\\'))
    return restError('rest_user_invalid_password', 'Passwords cannot contain the "\\" character.', 400);
  return true;
}

/** PHP's is_numeric for what a request can carry. */
const isNumeric = (value: unknown): boolean =>
  (typeof value === 'number' && Number.isFinite(value)) ||
  (typeof value === 'string' && /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(value));

function checkReassign(value: unknown): true | RestError {
  if (isNumeric(value) || value === false || value === '' || value === 'false' || value === 0) return true;
  return restError('rest_invalid_param', 'Invalid user parameter(s).', 400);
}

/** The user to give content to: null for none (false, '', 0), else the absolute integer, as WordPress reads it. */
function reassignTarget(value: unknown): number | null {
  if (!isNumeric(value)) return null;
  const id = Math.abs(Math.trunc(Number(value)));
  return id === 0 ? null : id;
}

const textField = (value: unknown): string =>
  sanitizeValue(String(value), { type: 'string', format: 'text-field' }) as string;

// --- permissions -----------------------------------------------------------------------------------------------

const status = (ctx: HandlerContext) => authorizationStatus(ctx.actor?.id ?? null);
const invalidUser = () => restError('rest_user_invalid_id', 'Invalid user ID.', 404);
const notEmpty = (value: unknown): boolean =>
  value !== undefined &&
  value !== null &&
  value !== false &&
  value !== '' &&
  value !== 0 &&
  value !== '0' &&
  !(Array.isArray(value) && value.length === 0);

function listPermission(ctx: HandlerContext): true | RestError {
  const { actor, params } = ctx;
  if (notEmpty(params.roles) && !canListUsers(actor)) {
    return restError('rest_user_cannot_view', 'Sorry, you are not allowed to filter users by role.', status(ctx));
  }
  if (notEmpty(params.capabilities) && !canListUsers(actor)) {
    return restError('rest_user_cannot_view', 'Sorry, you are not allowed to filter users by capability.', status(ctx));
  }
  if (params.context === 'edit' && !canListUsers(actor)) {
    return restError('rest_forbidden_context', 'Sorry, you are not allowed to edit users.', status(ctx));
  }
  if ((params.orderby === 'email' || params.orderby === 'registered_date') && !canListUsers(actor)) {
    return restError(
      'rest_forbidden_orderby',
      'Sorry, you are not allowed to order users by this parameter.',
      status(ctx),
    );
  }
  if (params.who === 'authors' && !hasCap(actor, 'edit_posts') && !hasCap(actor, 'edit_pages')) {
    return restError('rest_forbidden_who', 'Sorry, you are not allowed to query users by this parameter.', status(ctx));
  }
  return true;
}

async function readPermission(site: Site, ctx: HandlerContext, id: number): Promise<true | RestError> {
  const doc = await loadUser(site, ctx, id);
  if (!doc) return invalidUser();
  const actor = ctx.actor;
  if (actor?.id === doc.id) return true;
  if (ctx.params.context === 'edit' && !canEditUser(actor, doc.id)) {
    return restError('rest_forbidden_context', 'Sorry, you are not allowed to edit this user.', status(ctx));
  }
  if (!canEditUser(actor, doc.id) && !canListUsers(actor) && !(await hasPublicContent(site, actor, doc.id))) {
    return restError('rest_user_cannot_view', 'Sorry, you are not allowed to list users.', status(ctx));
  }
  return true;
}

async function updatePermission(site: Site, ctx: HandlerContext, id: number): Promise<true | RestError> {
  const doc = await loadUser(site, ctx, id);
  if (!doc) return invalidUser();
  if (notEmpty(ctx.params.roles)) {
    if (!canPromoteUser(ctx.actor))
      return restError('rest_cannot_edit_roles', 'Sorry, you are not allowed to edit roles of this user.', status(ctx));
    // A request that only changes roles needs nothing more than the right to promote.
    const keys = Object.keys({ ...ctx.params, id })
      .filter((key) => ctx.params[key] !== undefined || key === 'id')
      .sort();
    if (keys.length === 2 && keys[0] === 'id' && keys[1] === 'roles') return true;
  }
  if (!canEditUser(ctx.actor, doc.id))
    return restError('rest_cannot_edit', 'Sorry, you are not allowed to edit this user.', status(ctx));
  return true;
}

async function deletePermission(site: Site, ctx: HandlerContext, id: number): Promise<true | RestError> {
  const doc = await loadUser(site, ctx, id);
  if (!doc) return invalidUser();
  if (!canDeleteUser(ctx.actor))
    return restError('rest_user_cannot_delete', 'Sorry, you are not allowed to delete this user.', status(ctx));
  return true;
}

/**
 * Whether a user has content the caller may see, which makes them visible to anyone: published items, or
 * private ones for callers who may read private items.
 */
async function hasPublicContent(site: Site, actor: Actor | null, userId: number): Promise<boolean> {
  for (const postType of AUTHORED_POST_TYPES) {
    const plural = postType === 'page' ? 'pages' : 'posts';
    const statuses = hasCap(actor, `read_private_${plural}`) ? ['publish', 'private'] : ['publish'];
    const { total } = await site.readModel.query(postType, {
      filters: [
        { kind: 'any', field: 'author', values: [userId] },
        { kind: 'any', field: 'status', values: statuses },
      ],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: 0,
    });
    if (total > 0) return true;
  }
  return false;
}

/** Every author with a published item of the given types: one query per author found, plus one per type. */
async function publishedAuthors(site: Site, postTypes: readonly string[]): Promise<number[]> {
  const authors: number[] = [];
  for (const postType of postTypes) {
    if (!(AUTHORED_POST_TYPES as readonly string[]).includes(postType)) continue;
    for (;;) {
      const { items } = await site.readModel.query(postType, {
        filters: [
          { kind: 'any', field: 'status', values: ['publish'] },
          { kind: 'none', field: 'author', values: authors },
        ],
        order: { kind: 'field', field: 'id', direction: 'asc' },
        offset: 0,
        limit: 1,
      });
      const author = (items[0] as { author?: number } | undefined)?.author;
      if (author === undefined) break;
      authors.push(author);
    }
  }
  return authors;
}

/** check_role_update: every role exists, and an administrator keeps the right to edit users when changing their own. */
function checkRoles(actor: Actor | null, targetId: number | null, roles: readonly string[]): Role[] {
  for (const role of roles) {
    if (!isRole(role)) throw restError('rest_user_invalid_role', `The role ${role} does not exist.`, 400);
    if (actor !== null && actor.id === targetId && !ROLE_CAPABILITIES[role].has('edit_users')) {
      throw restError(
        'rest_user_invalid_role',
        'Sorry, you are not allowed to give users that role.',
        authorizationStatus(actor.id),
      );
    }
  }
  return [...new Set(roles)] as Role[];
}

// --- handlers --------------------------------------------------------------------------------------------------

async function listUsers(site: Site, ctx: HandlerContext) {
  const p = ctx.params;
  const actor = ctx.actor;
  const perPage = p.per_page as number;
  const offset = offsetGiven(p) ? p.offset : ((p.page as number) - 1) * perPage;
  const filters: Filter[] = [];

  const include = p.include as number[];
  if (include.length > 0) filters.push({ kind: 'any', field: 'id', values: include });
  else if ((p.exclude as number[]).length > 0)
    filters.push({ kind: 'none', field: 'id', values: p.exclude as number[] });
  const slugs = (p.slug as string[] | undefined) ?? [];
  if (slugs.length > 0) filters.push({ kind: 'any', field: 'slug', values: slugs });
  if (notEmpty(p.roles)) filters.push({ kind: 'any', field: 'role', values: p.roles as string[] });
  if (notEmpty(p.capabilities))
    filters.push({ kind: 'any', field: 'role', values: rolesWithAnyCapability(p.capabilities as string[]) });

  // Who cannot list users sees only people with published content (unless asking for authors, which needs edit rights).
  let publishedIn: readonly string[] | null = null;
  if (p.who === 'authors') filters.push({ kind: 'any', field: 'role', values: AUTHOR_ROLES });
  else if (!canListUsers(actor)) publishedIn = REST_POST_TYPES;
  if (notEmpty(p.has_published_posts))
    publishedIn = p.has_published_posts === true ? REST_POST_TYPES : (p.has_published_posts as string[]);
  if (publishedIn) filters.push({ kind: 'any', field: 'id', values: await publishedAuthors(site, publishedIn) });

  const search = searchTerm(p.search);
  if (search !== '') filters.push(searchFilter(search, canListUsers(actor)));

  const direction = p.order as 'asc' | 'desc';
  let order: Order;
  switch (p.orderby) {
    case 'include':
      order =
        include.length > 0
          ? { kind: 'list', field: 'id', values: direction === 'desc' ? [...include].reverse() : include }
          : { kind: 'field', field: 'login', direction };
      break;
    case 'include_slugs':
      order = { kind: 'list', field: 'slug', values: slugs };
      break;
    case 'registered_date':
      order = { kind: 'field', field: 'registered', direction };
      break;
    default:
      order = { kind: 'field', field: p.orderby as string, direction };
  }

  // A negative offset matches nothing (WordPress answers an empty page with the total).
  const start = offset < 0 ? Number.MAX_SAFE_INTEGER : readModelOffset(offset);
  const { items, total } = await site.readModel.query('user', { filters, order, offset: start, limit: perPage });
  const context = p.context as Context;
  // The query already holds only the users this caller may see.
  const listable = await listableItems(items as UserDoc[], context, {
    mayRead: () => true,
    mayEdit: (doc) => canEditUser(actor, doc.id),
  });
  const body = listable.map((doc) => present(site, actor, doc, context));
  const page = Math.ceil(offset / perPage + 1);
  return collectionResult(body, { total, page, perPage }, `${site.apiRoot}core/v2/users`, linkQuery(ctx));
}

/** WordPress wraps the search in wildcards; surrounding whitespace and `*` add nothing to a substring match. */
function searchTerm(value: unknown): string {
  if (typeof value !== 'string') return '';
  return value.trim().replace(/^\*+|\*+$/g, '');
}

/**
 * The columns WordPress searches: for callers who cannot list users, id, login, slug and display name; for
 * the others it depends on the term (an email, a number, a URL, or anything else).
 */
function searchFilter(term: string, listsUsers: boolean): Filter {
  const byId: Filter[] = /^\d+$/.test(term) ? [{ kind: 'any', field: 'id', values: [Number(term)] }] : [];
  const text = (fields: string[]): Filter => ({ kind: 'text', fields, includes: [term], excludes: [] });
  if (!listsUsers) return { kind: 'or', filters: [...byId, text(['login', 'slug', 'name'])] };
  if (term.includes('@')) return text(['email']);
  if (/^\d+(\.\d+)?$/.test(term)) return { kind: 'or', filters: [...byId, text(['login'])] };
  if (/^https?:\/\//.test(term)) return text(['url']);
  return text(['login', 'url', 'email', 'slug', 'name']);
}

async function createHandler(site: Site, ctx: HandlerContext) {
  const p = ctx.params;
  if (notEmpty(p.id)) throw restError('rest_user_exists', 'Cannot create existing user.', 400);
  const roles = notEmpty(p.roles) ? checkRoles(ctx.actor, null, p.roles as string[]) : (['subscriber'] as Role[]);
  const fields = profileInput(ctx);
  const input: NewUser = {
    login: p.username as string,
    email: p.email as string,
    password: p.password as string,
    roles,
    displayName: fields.displayName,
    firstName: fields.firstName,
    lastName: fields.lastName,
    nickname: fields.nickname,
    description: fields.description,
    url: fields.url,
    locale: fields.locale,
    slug: fields.slug,
    meta: fields.meta,
  };
  const { id, position } = await createUser(site, input, ctx.actor!.id, ctx.request.requestId);
  await site.settle(position);
  const doc = await readUser(site, id, position);
  return created(present(site, ctx.actor, doc, 'edit'), `${site.apiRoot}core/v2/users/${id}`);
}

async function updateHandler(site: Site, ctx: HandlerContext, id: number) {
  const p = ctx.params;
  const doc = (await loadUser(site, ctx, id))!;
  if (typeof p.email === 'string') {
    const { items } = await site.readModel.query('user', {
      filters: [{ kind: 'any', field: 'email', values: [p.email.trim().toLowerCase()] }],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: 1,
    });
    const owner = items[0] as UserDoc | undefined;
    if (owner && owner.id !== doc.id) throw restError('rest_user_invalid_email', 'Invalid email address.', 400);
  }
  if (notEmpty(p.username) && p.username !== doc.login)
    throw restError('rest_user_invalid_argument', 'Username is not editable.', 400);
  const fields = profileInput(ctx);
  if (notEmpty(p.slug) && fields.slug !== doc.slug) {
    const { total } = await site.readModel.query('user', {
      filters: [{ kind: 'any', field: 'slug', values: [fields.slug!] }],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: 0,
    });
    if (total > 0) throw restError('rest_user_invalid_slug', 'Invalid slug.', 400);
  }
  const roles = notEmpty(p.roles) ? checkRoles(ctx.actor, doc.id, p.roles as string[]) : undefined;
  const update: UserUpdate = { ...fields, roles, password: notEmpty(p.password) ? (p.password as string) : undefined };
  if (typeof p.email === 'string') update.email = p.email;
  const { position } = await updateUser(site, doc.id, update, ctx.actor!, ctx.request.requestId);
  await site.settle(position);
  return ok(present(site, ctx.actor, await readUser(site, doc.id, position), 'edit'));
}

async function deleteHandler(site: Site, ctx: HandlerContext, id: number) {
  const doc = (await loadUser(site, ctx, id))!;
  if (ctx.params.force !== true) {
    throw restError('rest_trash_not_supported', "Users do not support trashing. Set 'force=true' to delete.", 501);
  }
  const reassign = reassignTarget(ctx.params.reassign);
  if (reassign !== null && (reassign === doc.id || !(await site.readModel.get('user', reassign)))) {
    throw restError('rest_user_invalid_reassign', 'Invalid user ID for reassignment.', 400);
  }
  const previous = present(site, ctx.actor, doc, 'edit');
  delete previous._links;
  const { position } = await deleteUser(site, doc.id, reassign, ctx.actor!, ctx.request.requestId);
  await site.settle(position);
  return ok({ deleted: true, previous });
}

/** The profile fields a create or update sends, sanitized as WordPress sanitizes them. */
function profileInput(ctx: HandlerContext): Omit<UserUpdate, 'email' | 'roles' | 'password'> {
  const p = ctx.params;
  const given = (key: string) => p[key] !== undefined && p[key] !== null;
  const out: Omit<UserUpdate, 'email' | 'roles' | 'password'> = {};
  if (given('name')) out.displayName = textField(p.name);
  if (given('first_name')) out.firstName = textField(p.first_name);
  if (given('last_name')) out.lastName = textField(p.last_name);
  if (given('nickname')) out.nickname = textField(p.nickname);
  if (given('description')) out.description = String(p.description);
  if (given('url')) out.url = String(p.url);
  if (given('locale')) out.locale = String(p.locale);
  if (given('slug')) out.slug = sanitizeSlug(String(p.slug));
  if (given('meta') && typeof p.meta === 'object') {
    const preferences = (p.meta as { persisted_preferences?: unknown }).persisted_preferences;
    if (preferences !== null && typeof preferences === 'object' && !Array.isArray(preferences)) {
      out.meta = { persisted_preferences: preferences as Record<string, unknown> };
    }
  }
  return out;
}

// --- helpers ---------------------------------------------------------------------------------------------------

/** The user addressed by the request, loaded once per request (also while the users projection rebuilds); null when absent. */
async function loadUser(site: Site, ctx: HandlerContext, id: number): Promise<UserDoc | null> {
  const key = `user:${id}`;
  if (!ctx.memo.has(key)) {
    ctx.memo.set(
      key,
      Number.isInteger(id) && id > 0
        ? await readCurrent<UserDoc>(site, { projection: 'users', collection: 'user', id, stream: userStreamId(id) })
        : null,
    );
  }
  return ctx.memo.get(key) as UserDoc | null;
}

/** The user as the write at `position` left it, for the write's answer (also while the users projection rebuilds). */
async function readUser(site: Site, id: number, position: number): Promise<UserDoc> {
  const doc = await readWritten<UserDoc>(site, {
    projection: 'users',
    collection: 'user',
    id,
    stream: userStreamId(id),
    position,
  });
  if (!doc) throw invalidUser();
  return doc;
}

const schemaOnce = userSchema();

function present(site: Site, actor: Actor | null, doc: UserDoc, context: Context): Record<string, unknown> {
  return presentUser(doc, schemaOnce, {
    context,
    siteUrl: site.settings.siteUrl,
    apiRoot: site.apiRoot,
    showRoles: canListUsers(actor) || canEditUser(actor, doc.id),
  });
}
