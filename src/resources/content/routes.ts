/**
 * Routes of a post type (`/core/v2/posts`, `/core/v2/pages`, `/core/v2/blocks`): list, create, read, update, delete. Each
 * endpoint wires the schema's args, a permission rule written in capability terms, an operation and the
 * presenter; WordPress's error for every refusal comes from the rule, in WordPress's order.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canDeleteItem, canEditItem, canReadItem, capsOfPostType, hasCap } from '../../access/capabilities';
import type { PostTypeCaps } from '../../access/capabilities';
import { validateArgs } from '../../rest/args/routeArgs';
import { SchemaIssue } from '../../rest/args/schema';
import type { ArgSchema } from '../../rest/args/schema';
import { argsFromSchema, contextParam, publicSchema } from '../../rest/schema';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { collectionResult, linkQuery, listableItems } from '../../rest/collection';
import { created, ok, uncacheable } from '../../rest/route';
import type { HandlerContext, RestRequest, RestResult, RouteDefinition } from '../../rest/route';
import type { ContentDoc } from '../../../projections/content';
import { contentActionLinks } from './schema';
import { anyStatuses, buildListPlan, contentListArgs, listPaging, listStatuses } from './listQuery';
import { createItem, deleteItem, trashItem, updateItem } from './operations';
import type { ContentPresenter } from './presenter';
import type { PostInput } from './decider';
import type { PostType } from './events';
import { currentItem, writtenItem } from './written';

interface TypeInfo {
  postType: PostType;
  /** `posts` / `pages` / `blocks`: the REST base's last segment. */
  plural: 'posts' | 'pages' | 'blocks';
  caps: PostTypeCaps;
  restBase: string;
  /** How the live items of this type are shown (shared with the restore route). */
  presenter: ContentPresenter;
  /** Where a request's memo keeps the item it addresses (see loadDoc). */
  docKey: string;
}

export interface ContentRouteDeps {
  /** The category ids below the given ones, for `include_children` (from the terms slice). */
  categoryDescendants(ids: readonly number[]): Promise<number[]>;
  /**
   * The ids among `ids` that are terms of the taxonomy, in the order WordPress lists a post's terms (by name);
   * unknown ids are dropped, as WordPress drops them (from the terms slice).
   */
  existingTerms(taxonomy: 'category' | 'post_tag', ids: readonly number[]): Promise<number[]>;
  /** Makes sure the default category ("Uncategorized") exists, and gives its id. */
  defaultCategory(): Promise<number>;
  /** Time travel (`as_of`, an extension; from the history slice): its arg, and the item as it was then. */
  asOf: {
    arg: ArgSchema;
    item(ctx: HandlerContext, current: ContentDoc, schema: ContentPresenter['schema']): Promise<RestResult>;
  };
  /** The featured image a write keeps, or undefined to leave it as it is (from the media slice). */
  featuredMediaToKeep(requested: number): Promise<number | undefined>;
}

export function contentRoutes(site: Site, presenter: ContentPresenter, deps: ContentRouteDeps): RouteDefinition[] {
  const { postType, schema } = presenter;
  const plural = postType === 'page' ? 'pages' : postType === 'wp_block' ? 'blocks' : 'posts';
  const type: TypeInfo = {
    postType,
    plural,
    caps: capsOfPostType(postType),
    restBase: presenter.restBase,
    presenter,
    docKey: `doc:${postType}`,
  };
  const writeArgs = (kind: 'create' | 'update') => withTemplateCheck(argsFromSchema(schema, kind), kind);
  const strictTemplateArg = writeArgs('create').template!;
  const shownSchema = publicSchema(schema, contentActionLinks(postType, site.apiRoot));
  const collectionPath = `/${type.restBase}`;
  const itemPath = `/${type.restBase}/(?P<id>[\\d]+)`;

  const listArgs = contentListArgs(postType, {
    statuses: listStatuses(site.instance.statuses),
    statusRule: (value, arg) =>
      forbiddenStatus(value as string[], (arg.request as RestRequest | undefined)?.actor ?? null, type) ?? true,
  });

  const itemArgs: Record<string, ArgSchema> = {
    id: { description: 'Unique identifier of the item.', type: 'integer' },
  };

  return [
    {
      namespace: 'core/v2',
      path: collectionPath,
      schema: shownSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: listArgs,
          allowBatch: true,
          cacheable: true,
          permission: (ctx) => listPermission(ctx, type),
          handle: (ctx) => listItems(site, ctx, type, deps),
        },
        {
          methods: ['POST'],
          args: writeArgs('create'),
          allowBatch: true,
          permission: (ctx) => createPermission(ctx, type),
          // This rule and the update and delete ones pass only with a capability, which no anonymous caller holds.
          signedInOnly: true,
          handle: async (ctx) => {
            const actor = ctx.actor!;
            const input = await writeInput(site, ctx, type, null, deps);
            const outcome = await createItem(site, postType, input, actor, ctx.request.requestId);
            await site.settle(outcome.position);
            const doc = await writtenItem(site, postType, outcome.id, outcome.position);
            return created(
              await presenter.present(ctx, doc, 'edit', true),
              `${site.apiRoot}${type.restBase}/${outcome.id}`,
            );
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: itemPath,
      schema: shownSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            ...itemArgs,
            context: contextParam('view'),
            password: { description: 'The password of a protected item.', type: 'string' },
            as_of: deps.asOf.arg,
          },
          allowBatch: true,
          cacheable: true,
          permission: (ctx) => readPermission(site, ctx, type),
          handle: async (ctx) => readItem(ctx, type, schema, (await loadDoc(site, ctx, type))!, deps),
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: { ...itemArgs, ...writeArgs('update') },
          allowBatch: true,
          permission: (ctx) => updatePermission(site, ctx, type, strictTemplateArg),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await loadDoc(site, ctx, type))!;
            const input = await writeInput(site, ctx, type, doc, deps);
            const outcome = await updateItem(site, postType, doc.id, input, ctx.actor!, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok(
              await presenter.present(ctx, await writtenItem(site, postType, doc.id, outcome.position), 'edit', true),
            );
          },
        },
        {
          methods: ['DELETE'],
          args: {
            ...itemArgs,
            force: { type: 'boolean', default: false, description: 'Delete for good instead of moving to the trash.' },
          },
          allowBatch: true,
          permission: (ctx) => deletePermission(site, ctx, type),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await loadDoc(site, ctx, type))!;
            const actor = ctx.actor!;
            if (ctx.params.force === true) {
              // WordPress answers with the item as it was, without links.
              const previous = await presenter.present(ctx, doc, 'edit', true, { withoutLinks: true });
              const outcome = await deleteItem(site, postType, doc.id, actor, ctx.request.requestId);
              await site.settle(outcome.position);
              return ok({ deleted: true, previous });
            }
            if (doc.status === 'trash')
              throw restError('rest_already_trashed', 'The post has already been deleted.', 410);
            const outcome = await trashItem(site, postType, doc.id, actor, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok(
              await presenter.present(ctx, await writtenItem(site, postType, doc.id, outcome.position), 'edit', true),
            );
          },
        },
      ],
    },
  ];
}

// --- permissions -------------------------------------------------------------------------------------------

function listPermission(ctx: HandlerContext, type: TypeInfo): true | RestError {
  if (ctx.params.context === 'edit' && !hasCap(ctx.actor, type.caps.edit_posts)) {
    return restError(
      'rest_forbidden_context',
      'Sorry, you are not allowed to edit posts in this post type.',
      authorizationStatus(ctx.actor?.id ?? null),
    );
  }
  return true;
}

/**
 * Filtering by a status beyond `publish` needs edit rights (private: read_private). WordPress refuses it while
 * sanitizing the arg, so it is reported as an invalid `status` (400) with this error in its details.
 */
function forbiddenStatus(statuses: readonly string[], actor: Actor | null, type: TypeInfo): RestError | null {
  for (const status of statuses) {
    if (status === 'publish') continue;
    const allowed =
      status === 'private'
        ? hasCap(actor, type.caps.read_private_posts) || hasCap(actor, type.caps.edit_posts)
        : hasCap(actor, type.caps.edit_posts);
    if (!allowed)
      return restError('rest_forbidden_status', 'Status is forbidden.', authorizationStatus(actor?.id ?? null));
  }
  return null;
}

function createPermission(ctx: HandlerContext, type: TypeInfo): true | RestError {
  const actor = ctx.actor;
  const status = authorizationStatus(actor?.id ?? null);
  if (ctx.params.id !== undefined && ctx.params.id !== null && ctx.params.id !== '' && ctx.params.id !== 0) {
    return restError('rest_post_exists', 'Cannot create existing post.', 400);
  }
  if (ctx.params.author && ctx.params.author !== actor?.id && !hasCap(actor, type.caps.edit_others_posts)) {
    return restError('rest_cannot_edit_others', 'Sorry, you are not allowed to create posts as this user.', status);
  }
  if (
    ctx.params.sticky === true &&
    !hasCap(actor, type.caps.edit_others_posts) &&
    !hasCap(actor, type.caps.publish_posts)
  ) {
    return restError('rest_cannot_assign_sticky', 'Sorry, you are not allowed to make posts sticky.', status);
  }
  if (!hasCap(actor, type.caps.create_posts)) {
    return restError('rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.', status);
  }
  return true;
}

/** The item read (its rule passed). */
async function readItem(
  ctx: HandlerContext,
  type: TypeInfo,
  schema: ContentPresenter['schema'],
  doc: ContentDoc,
  deps: ContentRouteDeps,
): Promise<RestResult> {
  // Time travel (an extension): the item folded from its stream up to `as_of` (read from the log: not cached).
  if (ctx.params.as_of !== undefined) return uncacheable(await deps.asOf.item(ctx, doc, schema));
  const context = ctx.params.context as 'view' | 'edit' | 'embed';
  const item = await type.presenter.present(ctx, doc, context, passwordAccepted(ctx, type, doc));
  // A reusable block is not viewable: WordPress links no page of it.
  if (type.postType === 'wp_block') return ok(item);
  return ok(item, { Link: `<${(item.link as string | undefined) ?? ''}>; rel="alternate"; type=text/html` });
}

async function readPermission(site: Site, ctx: HandlerContext, type: TypeInfo): Promise<boolean | RestError> {
  const doc = await loadDoc(site, ctx, type);
  if (!doc) return invalidId();
  const status = authorizationStatus(ctx.actor?.id ?? null);
  if (ctx.params.context === 'edit' && !canEditItem(ctx.actor, type.caps, owned(doc))) {
    return restError('rest_forbidden_context', 'Sorry, you are not allowed to edit this post.', status);
  }
  // Any password sent must be the item's own, even for an item that has none.
  if (typeof ctx.params.password === 'string' && ctx.params.password !== '' && ctx.params.password !== doc.password) {
    return restError('rest_post_incorrect_password', 'Incorrect post password.', 403);
  }
  return canReadItem(ctx.actor, type.caps, owned(doc));
}

async function updatePermission(
  site: Site,
  ctx: HandlerContext,
  type: TypeInfo,
  strictTemplateArg: ArgSchema,
): Promise<boolean | RestError> {
  const doc = await loadDoc(site, ctx, type);
  // The rest of the template's argument check (see withTemplateCheck): a validation failure, so before the rest.
  const template = ctx.params.template;
  if (typeof template === 'string' && template !== doc?.template) {
    const checked = validateArgs({ template: strictTemplateArg }, { template }, { request: ctx.request });
    if ('error' in checked) return checked.error;
  }
  if (!doc) return invalidId();
  const actor = ctx.actor;
  const status = authorizationStatus(actor?.id ?? null);
  if (!canEditItem(actor, type.caps, owned(doc))) {
    return restError('rest_cannot_edit', 'Sorry, you are not allowed to edit this post.', status);
  }
  if (ctx.params.author && ctx.params.author !== actor?.id && !hasCap(actor, type.caps.edit_others_posts)) {
    return restError('rest_cannot_edit_others', 'Sorry, you are not allowed to update posts as this user.', status);
  }
  if (
    ctx.params.sticky === true &&
    !hasCap(actor, type.caps.edit_others_posts) &&
    !hasCap(actor, type.caps.publish_posts)
  ) {
    return restError('rest_cannot_assign_sticky', 'Sorry, you are not allowed to make posts sticky.', status);
  }
  return true;
}

async function deletePermission(site: Site, ctx: HandlerContext, type: TypeInfo): Promise<boolean | RestError> {
  const doc = await loadDoc(site, ctx, type);
  if (!doc) return invalidId();
  if (!canDeleteItem(ctx.actor, type.caps, owned(doc))) {
    return restError(
      'rest_cannot_delete',
      'Sorry, you are not allowed to delete this post.',
      authorizationStatus(ctx.actor?.id ?? null),
    );
  }
  return true;
}

/**
 * The refusal of a status that publishes (published, scheduled or private) to a caller without publish_posts; a status
 * the item already has is not checked.
 */
export function publishRefusal(
  actor: Actor | null,
  caps: PostTypeCaps,
  wanted: unknown,
  current: ContentDoc | null,
): RestError | null {
  if (wanted === undefined || wanted === current?.status) return null;
  if (!['publish', 'future', 'private'].includes(wanted as string) || hasCap(actor, caps.publish_posts)) return null;
  // WordPress's messages say "posts" whatever the type.
  const message =
    wanted === 'private'
      ? 'Sorry, you are not allowed to create private posts in this post type.'
      : 'Sorry, you are not allowed to publish posts in this post type.';
  return restError('rest_cannot_publish', message, authorizationStatus(actor?.id ?? null));
}

// --- handlers ------------------------------------------------------------------------------------------------

async function listItems(site: Site, ctx: HandlerContext, type: TypeInfo, deps: ContentRouteDeps) {
  const p = ctx.params;
  const plan = await buildListPlan(p, {
    postType: type.postType,
    timezone: site.settings.timezone,
    signedIn: ctx.actor !== null,
    descendants: (ids) => deps.categoryDescendants(ids),
    anyStatuses: anyStatuses(site.instance.statuses),
  });
  const { items, total } = await site.readModel.query(type.postType, plan);
  const paging = listPaging(p, total, items.length);
  const context = p.context as 'view' | 'edit' | 'embed';
  const listable = await listableItems(items as ContentDoc[], context, {
    mayRead: (doc) => canReadItem(ctx.actor, type.caps, owned(doc)),
    mayEdit: (doc) => canEditItem(ctx.actor, type.caps, owned(doc)),
  });
  const body = await Promise.all(
    listable.map((doc) => type.presenter.present(ctx, doc, context, passwordAccepted(ctx, type, doc))),
  );
  return collectionResult(body, paging, `${site.apiRoot}${type.restBase}`, linkQuery(ctx));
}

/** Turns validated body params into the decider's input, enforcing the rules that need the site. */
async function writeInput(
  site: Site,
  ctx: HandlerContext,
  type: TypeInfo,
  current: ContentDoc | null,
  deps: ContentRouteDeps,
): Promise<PostInput> {
  const p = ctx.params;
  const body = { ...(ctx.request.form ?? {}), ...(ctx.request.json ?? {}) };
  const sent = (key: string) => Object.hasOwn(body, key) || Object.hasOwn(ctx.request.query, key);
  const input: PostInput = {};
  const text = (value: unknown): string | undefined => {
    if (typeof value === 'string') return value;
    if (value && typeof value === 'object' && typeof (value as { raw?: unknown }).raw === 'string')
      return (value as { raw: string }).raw;
    return undefined;
  };
  for (const field of ['title', 'content', 'excerpt'] as const) {
    if (sent(field)) {
      const value = text(p[field]);
      if (value !== undefined) input[field] = value;
    }
  }
  const copy = [
    'slug',
    'status',
    'password',
    'featured_media',
    'comment_status',
    'ping_status',
    'sticky',
    'template',
    'format',
    'categories',
    'tags',
    'parent',
    'menu_order',
  ] as const;
  for (const field of copy)
    if (sent(field) && p[field] !== undefined) (input as Record<string, unknown>)[field] = p[field];
  if (input.featured_media !== undefined) {
    const kept = await deps.featuredMediaToKeep(input.featured_media);
    if (kept === undefined) delete input.featured_media;
    else input.featured_media = kept;
  }
  if (sent('date')) input.date = (p.date as string | null | undefined) ?? null;
  if (sent('date_gmt')) input.date_gmt = (p.date_gmt as string | null | undefined) ?? null;
  if (sent('meta') && p.meta && typeof p.meta === 'object')
    input.meta = { footnotes: String((p.meta as { footnotes?: unknown }).footnotes ?? '') };

  const actor = ctx.actor!;
  if (sent('author') && p.author) {
    // Only another user's id is looked up; naming oneself always works (and takes the item over).
    if (p.author !== actor.id && !(await site.readModel.get('user', p.author as number)))
      throw restError('rest_invalid_author', 'Invalid author ID.', 400);
    input.author = p.author as number;
  }
  const refusal = publishRefusal(actor, type.caps, input.status, current);
  if (refusal) throw refusal;
  if (type.postType !== 'page') {
    delete input.parent;
    delete input.menu_order;
  } else if (input.parent !== undefined && input.parent !== 0) {
    // A page's parent must be an existing page other than itself.
    const parent = input.parent === current?.id ? null : await site.readModel.get('page', input.parent);
    if (!parent) throw restError('rest_post_invalid_id', 'Invalid post parent ID.', 400);
  }
  if (type.postType !== 'post') {
    delete input.sticky;
    delete input.format;
    delete input.categories;
    delete input.tags;
  } else {
    if (input.categories !== undefined) input.categories = await deps.existingTerms('category', input.categories);
    if (input.tags !== undefined) input.tags = await deps.existingTerms('post_tag', input.tags);
    // WordPress files a post saved without categories under the default one; categories sent are set exactly
    // as sent (once unknown ids are dropped), even when that leaves none.
    if (input.categories === undefined && (current?.categories ?? []).length === 0)
      input.categories = [await deps.defaultCategory()];
  }
  return input;
}

// --- helpers -------------------------------------------------------------------------------------------------

/**
 * The page templates the active theme offers: it is a classic theme without any (src/resources/themes/theme.ts),
 * so only "" (the default template) is accepted, and WordPress's check refuses any other name while validating args.
 */
const THEME_TEMPLATES: readonly string[] = [];

/**
 * On update WordPress also accepts the item's current template, offered or not. The item is not loaded while
 * args are validated, so an update lets any name through here and its permission rule, which runs first after
 * validation and loads the item, refuses a name that is neither offered nor current, with this same error.
 */
function withTemplateCheck(args: Record<string, ArgSchema>, kind: 'create' | 'update'): Record<string, ArgSchema> {
  const template = args.template;
  if (!template) return args;
  const validate = (value: unknown) =>
    value === '' ||
    THEME_TEMPLATES.includes(value as string) ||
    kind === 'update' ||
    new SchemaIssue('rest_invalid_param', `template is not one of ${THEME_TEMPLATES.join(', ')}.`);
  return { ...args, template: { ...template, validate, validateDependsOnCallerOnly: true } };
}

const invalidId = () => restError('rest_post_invalid_id', 'Invalid post ID.', 404);

const owned = (doc: ContentDoc) => ({ author: doc.author, status: doc.status, trashedFrom: doc.trashed_from });

/** The item addressed by `{id}`, loaded once per request (also while content rebuilds); null when absent or of another type. */
async function loadDoc(site: Site, ctx: HandlerContext, type: TypeInfo): Promise<ContentDoc | null> {
  const key = type.docKey;
  const memo = ctx.memo;
  if (memo.has(key)) return memo.get(key) as ContentDoc | null;
  const id = Number(ctx.params.id);
  const doc = Number.isInteger(id) && id > 0 ? await currentItem(site, type.postType, id) : null;
  memo.set(key, doc);
  return doc;
}

function passwordAccepted(ctx: HandlerContext, type: TypeInfo, doc: ContentDoc): boolean {
  if (doc.password === '') return true;
  if (ctx.params.context === 'edit' && canEditItem(ctx.actor, type.caps, owned(doc))) return true;
  return typeof ctx.params.password === 'string' && ctx.params.password === doc.password;
}

export type { Actor };
