/**
 * Routes of comments: `/core/v2/comments` and `/core/v2/comments/{id}`, with WordPress 6.1's rules. Reading an
 * approved comment takes the right to read its post; held, spam and trashed ones take moderate_comments (or the
 * right to edit the post), except one's own. Writing takes a signed-in user (anonymous comments are refused, as
 * WordPress refuses them unless a plug-in allows them); setting `author`, `author_ip` or `status` on create takes
 * moderate_comments; editing and deleting take moderate_comments or the right to edit the comment's post.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canEditItem, canReadItem, hasCap, postTypeCaps } from '../../access/capabilities';
import type { ArgSchema } from '../../rest/args/schema';
import { SchemaIssue } from '../../rest/args/schema';
import { validateValue } from '../../rest/args/walkers';
import { argsFromSchema, contextParam, publicSchema } from '../../rest/schema';
import type { Context } from '../../rest/schema';
import { collectionParams, offsetArg, sortArgs } from '../../rest/collectionParams';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { collectionResult, linkQuery, offsetGiven, readModelOffset } from '../../rest/collection';
import { created, ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import { formatGmt, formatLocal, parseRestDate, parseRestDateGmt } from '../../text/dates';
import { permalink } from '../content/present';
import { ancestorPath } from '../content/operations';
import { dateFilters, idList } from '../content/listQuery';
import type { ContentDoc } from '../../../projections/content';
import { COMMENT_COLLECTION } from '../../../projections/comments';
import type { CommentDoc } from '../../../projections/comments';
import type { Filter, Order, QueryPlan } from '../../ports/readModel';
import { NotFound } from '../../core/errors';
import { restErrorOf } from '../../rest/domainErrors';
import { statusRequest } from './decider';
import { commentStreamId } from './events';
import { readCurrent, readWritten } from '../../projection/written';
import { commentedPost, createComment, deleteComment, trashComment, updateComment } from './operations';
import type { CommentInput } from './operations';
import { presentComment } from './present';
import { commentSchema } from './schema';

const NS = 'core/v2';
/** The schema as OPTIONS shows it (without the input rules of its properties). */
const shownSchema = publicSchema(commentSchema);
const status = (actor: Actor | null) => authorizationStatus(actor?.id ?? null);
const moderates = (actor: Actor | null): boolean => hasCap(actor, 'moderate_comments');
const capsOf = (post: ContentDoc) => postTypeCaps(post.type === 'page' ? 'pages' : 'posts');
const owned = (post: ContentDoc) => ({
  author: post.author as number,
  status: post.status as string,
  trashedFrom: (post.trashed_from as string | null) ?? null,
});

// --- rules ---------------------------------------------------------------------------------------------------

/**
 * May the actor read the post a comment is on? A password-protected post takes the right to edit it, unless the
 * request names that one post (or comment) and gives its password.
 */
export function canReadCommentPost(
  actor: Actor | null,
  post: ContentDoc,
  password: unknown,
  specific: boolean,
): boolean {
  const protectedPost = typeof post.password === 'string' && post.password !== '';
  const unlocked =
    protectedPost &&
    specific &&
    (canEditItem(actor, capsOf(post), owned(post)) ||
      (typeof password === 'string' && password !== '' && password === post.password));
  if (protectedPost && !unlocked) return canEditItem(actor, capsOf(post), owned(post));
  return canReadItem(actor, capsOf(post), owned(post));
}

/** edit_comment: moderate_comments, or the right to edit the comment's post (edit_posts when it has none). */
export function canEditComment(actor: Actor | null, post: ContentDoc | null): boolean {
  if (!actor) return false;
  if (moderates(actor)) return true;
  return post ? canEditItem(actor, capsOf(post), owned(post)) : hasCap(actor, 'edit_posts');
}

/** May the actor see this comment? Approved ones on a readable post are public; one's own always. */
export function canReadComment(
  actor: Actor | null,
  comment: CommentDoc,
  post: ContentDoc | null,
  password: unknown,
  specific: boolean,
): boolean {
  if (post && comment.status === 'approved' && canReadCommentPost(actor, post, password, specific)) return true;
  if (!actor) return false;
  if (comment.post === 0 && !moderates(actor)) return false;
  if (comment.author !== 0 && comment.author === actor.id) return true;
  return canEditComment(actor, post);
}

/** PHP's empty(): WordPress's test of "sent" for `id` and `type` on create. */
const phpEmpty = (value: unknown): boolean =>
  value === undefined ||
  value === null ||
  value === false ||
  value === 0 ||
  value === '' ||
  value === '0' ||
  (Array.isArray(value) && value.length === 0);

/**
 * The write arguments. `author_email` is checked as WordPress's own callback checks it, after the other arguments:
 * empty is allowed (the discussion options decide), anything else must be an address ("Invalid email address.",
 * also for a value that is not a string).
 */
function commentWriteArgs(kind: 'create' | 'update'): Record<string, ArgSchema> {
  const args = argsFromSchema(commentSchema, kind);
  args.author_email = {
    ...args.author_email,
    accepts: {},
    lateValidation: true,
    validateDependsOnCallerOnly: true,
    validate: (value) => {
      if (value === '' || value === null || value === false) return true;
      if (typeof value !== 'string') return new SchemaIssue('rest_invalid_email', 'Invalid email address.');
      return validateValue(value, { type: 'string', format: 'email' }) ?? true;
    },
  };
  return args;
}

// --- list query ----------------------------------------------------------------------------------------------

const ORDERBY = ['date', 'date_gmt', 'id', 'include', 'post', 'parent', 'type'] as const;
/** Query params only those who may edit posts may set (WordPress's rest_forbidden_param). */
const PROTECTED_PARAMS = ['author', 'author_exclude', 'author_email', 'type', 'status'] as const;

export function commentListArgs(): Record<string, ArgSchema> {
  const idArray = (description: string): ArgSchema => ({ description, type: 'array', items: { type: 'integer' } });
  return {
    ...collectionParams({
      context: contextParam('view'),
      noun: 'comments',
      search: 'Only comments matching this search.',
    }),
    after: { description: 'Only comments published after this date.', type: 'string', format: 'date-time' },
    author: idArray('Only comments by these users. Requires authorization.'),
    author_exclude: idArray('No comments by these users. Requires authorization.'),
    author_email: {
      default: null,
      description: 'Only comments from this email address. Requires authorization.',
      format: 'email',
      type: 'string',
    },
    before: { description: 'Only comments published before this date.', type: 'string', format: 'date-time' },
    exclude: idList('Leave out these ids.'),
    include: idList('Only these ids.'),
    offset: offsetArg(),
    ...sortArgs('desc', 'date_gmt', ORDERBY),
    parent: { ...idArray('Only answers to these comments.'), default: [] },
    parent_exclude: { ...idArray('No answers to these comments.'), default: [] },
    post: { ...idArray('Only comments on these posts.'), default: [] },
    status: {
      default: 'approve',
      description: 'Only comments with this status. Requires authorization.',
      type: 'string',
    },
    type: { default: 'comment', description: 'Only comments of this type. Requires authorization.', type: 'string' },
    password: { description: 'The password of the post, when it is protected.', type: 'string' },
  };
}

/** WordPress's comment statuses as a list query reads them (`approve`, `hold`, `all`…; comma-separated). */
function statusValues(param: string): string[] {
  const values = new Set<string>();
  for (const part of param.split(',').map((s) => s.trim())) {
    if (part === 'approve' || part === '1') values.add('approved');
    else if (part === 'hold' || part === '0') values.add('hold');
    else if (part === 'all' || part === 'any' || part === '') values.add('approved').add('hold');
    else values.add(part);
  }
  return [...values];
}

/** Validated list params -> a plan over the `comment` collection (projections/comments.ts). Pure. */
export function buildCommentPlan(params: Record<string, unknown>, timezone: string): QueryPlan {
  const filters: Filter[] = [];
  const any = (field: string, values: unknown) => {
    if (Array.isArray(values) && values.length > 0) filters.push({ kind: 'any', field, values: values as number[] });
  };
  const none = (field: string, values: unknown) => {
    if (Array.isArray(values) && values.length > 0) filters.push({ kind: 'none', field, values: values as number[] });
  };
  any('post', params.post);
  any('parent', params.parent);
  none('parent', params.parent_exclude);
  any('author', params.author);
  none('author', params.author_exclude);
  any('id', params.include);
  none('id', params.exclude);
  if (typeof params.author_email === 'string' && params.author_email !== '')
    filters.push({ kind: 'any', field: 'author_email', values: [params.author_email.toLowerCase()] });
  filters.push({ kind: 'any', field: 'status', values: statusValues(String(params.status)) });
  if (params.type !== 'all' && params.type !== '')
    filters.push({ kind: 'any', field: 'type', values: [String(params.type)] });
  filters.push(...dateFilters(params, timezone));
  if (typeof params.search === 'string' && params.search.trim() !== '') {
    const terms = params.search.trim().split(/\s+/);
    filters.push({
      kind: 'text',
      fields: ['author_name', 'author_email', 'author_url', 'author_ip', 'content'],
      includes: terms,
      excludes: [],
    });
  }
  const include = (params.include as number[] | undefined) ?? [];
  const order: Order =
    params.orderby === 'include' && include.length > 0
      ? { kind: 'list', field: 'id', values: include }
      : {
          kind: 'field',
          field: params.orderby === 'include' ? 'date_gmt' : (params.orderby as string),
          direction: params.order as 'asc' | 'desc',
        };
  const perPage = params.per_page as number;
  const offset = offsetGiven(params) ? params.offset : (Math.max(params.page as number, 1) - 1) * perPage;
  return { filters, order, offset: readModelOffset(offset), limit: perPage };
}

// --- routes --------------------------------------------------------------------------------------------------

export function commentRoutes(site: Site): RouteDefinition[] {
  const idArg: Record<string, ArgSchema> = {
    id: { description: 'Unique identifier of the comment.', type: 'integer' },
  };
  const existing = (ctx: HandlerContext) => memo(ctx, 'comment', () => currentComment(site, ctx.params.id as number));
  const postOf = (ctx: HandlerContext, id: number) => memo(ctx, `post-${id}`, () => commentedPost(site, id));

  /** The comment of an item route, or WordPress's 404 (its post gone: `rest_post_invalid_id`). */
  const found = async (ctx: HandlerContext): Promise<{ comment: CommentDoc; post: ContentDoc | null } | RestError> => {
    const comment = await existing(ctx);
    if (!comment) return restErrorOf(new NotFound('comment'));
    const post = comment.post !== 0 ? await postOf(ctx, comment.post) : null;
    if (comment.post !== 0 && !post) return restError('rest_post_invalid_id', 'Invalid post ID.', 404);
    return { comment, post };
  };

  const answer = async (doc: CommentDoc, context: Context, links = true) => {
    const post = doc.post !== 0 ? await commentedPost(site, doc.post) : null;
    const parentPath =
      post && post.type === 'page' && (post.parent as number) > 0
        ? await ancestorPath(site, post.parent as number)
        : '';
    const { items } = await site.readModel.query(COMMENT_COLLECTION, {
      filters: [{ kind: 'any', field: 'parent', values: [doc.id] }],
      order: { kind: 'field', field: 'id', direction: 'asc' },
      offset: 0,
      limit: 1,
    });
    return presentComment(doc, {
      context,
      apiRoot: site.apiRoot,
      siteUrl: site.settings.siteUrl,
      post: post ? { url: permalink(post, site.settings.siteUrl, parentPath), type: post.type } : null,
      hasChildren: items.length > 0,
      links,
    });
  };

  const written = async (id: number, position: number): Promise<CommentDoc> => {
    const doc = await readWritten<CommentDoc>(site, {
      projection: 'comments',
      collection: COMMENT_COLLECTION,
      id,
      stream: commentStreamId(id),
      position,
    });
    if (!doc) throw restErrorOf(new NotFound('comment'));
    return doc;
  };

  const editRule = async (ctx: HandlerContext, code: string, message: string): Promise<true | RestError> => {
    const target = await found(ctx);
    if ('code' in target) return target as RestError;
    return canEditComment(ctx.actor, target.post) ? true : restError(code, message, status(ctx.actor));
  };

  return [
    {
      namespace: NS,
      path: '/core/v2/comments',
      schema: shownSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: commentListArgs(),
          cacheable: true,
          permission: async (ctx) => {
            const posts = (ctx.params.post as number[] | undefined) ?? [];
            for (const id of posts) {
              const post = id !== 0 ? await postOf(ctx, id) : null;
              if (post && !canReadCommentPost(ctx.actor, post, ctx.params.password, posts.length === 1)) {
                return restError(
                  'rest_cannot_read_post',
                  'Sorry, you are not allowed to read the post for this comment.',
                  status(ctx.actor),
                );
              }
              if (id === 0 && !moderates(ctx.actor))
                return restError(
                  'rest_cannot_read',
                  'Sorry, you are not allowed to read comments without a post.',
                  status(ctx.actor),
                );
            }
            if (ctx.params.context === 'edit' && !moderates(ctx.actor))
              return restError(
                'rest_forbidden_context',
                'Sorry, you are not allowed to edit comments.',
                status(ctx.actor),
              );
            if (!hasCap(ctx.actor, 'edit_posts')) {
              const forbidden = PROTECTED_PARAMS.filter((name) => {
                const value = ctx.params[name];
                if (name === 'status') return value !== 'approve';
                if (name === 'type') return value !== 'comment';
                return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== null && value !== '';
              });
              if (forbidden.length > 0)
                return restError(
                  'rest_forbidden_param',
                  `Query parameter not permitted: ${forbidden.join(', ')}`,
                  status(ctx.actor),
                );
            }
            return true;
          },
          handle: async (ctx) => {
            const { items, total } = await site.readModel.query(
              COMMENT_COLLECTION,
              buildCommentPlan(ctx.params, site.settings.timezone),
            );
            const posts = (ctx.params.post as number[] | undefined) ?? [];
            const body: unknown[] = [];
            // As WordPress: the total counts every match, the page shows those the caller may read.
            for (const doc of items as CommentDoc[]) {
              const post = doc.post !== 0 ? await postOf(ctx, doc.post) : null;
              if (!canReadComment(ctx.actor, doc, post, ctx.params.password, posts.length === 1)) continue;
              body.push(await answer(doc, ctx.params.context as Context));
            }
            return collectionResult(
              body,
              { total, page: ctx.params.page as number, perPage: ctx.params.per_page as number },
              `${site.apiRoot}core/v2/comments`,
              linkQuery(ctx),
            );
          },
        },
        {
          methods: ['POST'],
          args: commentWriteArgs('create'),
          signedInOnly: true,
          permission: async (ctx) => {
            const actor = ctx.actor;
            // WordPress refuses anonymous REST comments unless a plug-in allows them; none can here.
            if (!actor)
              return restError('rest_comment_login_required', 'Sorry, you must be logged in to comment.', 401);
            const notAllowed = (field: string) =>
              restError(
                `rest_comment_invalid_${field}`,
                `Sorry, you are not allowed to edit '${field}' for comments.`,
                status(actor),
              );
            if (ctx.params.author !== undefined && ctx.params.author !== actor.id && !moderates(actor))
              return notAllowed('author');
            if (ctx.params.author_ip !== undefined && !moderates(actor) && ctx.params.author_ip !== clientIp(ctx))
              return notAllowed('author_ip');
            if (statusSet(ctx) && !moderates(actor)) return notAllowed('status');
            const noPost = () =>
              restError(
                'rest_comment_invalid_post_id',
                'Sorry, you are not allowed to create this comment without a post.',
                403,
              );
            const postId = ctx.params.post as number;
            if (!postId) return noPost();
            const post = await postOf(ctx, postId);
            if (!post) return noPost();
            const onThis = 'Sorry, you are not allowed to create a comment on this post.';
            if (post.status === 'draft') return restError('rest_comment_draft_post', onThis, 403);
            if (post.status === 'trash') return restError('rest_comment_trash_post', onThis, 403);
            if (!canReadCommentPost(actor, post, ctx.params.password, true))
              return restError(
                'rest_cannot_read_post',
                'Sorry, you are not allowed to read the post for this comment.',
                status(actor),
              );
            if (post.comment_status !== 'open')
              return restError('rest_comment_closed', 'Sorry, comments are closed for this item.', 403);
            return true;
          },
          handle: async (ctx) => {
            if (!phpEmpty(ctx.params.id))
              throw restError('rest_comment_exists', 'Cannot create existing comment.', 400);
            if (!phpEmpty(ctx.params.type) && ctx.params.type !== 'comment')
              throw restError('rest_invalid_comment_type', 'Cannot create a comment with that type.', 400);
            const post = (await postOf(ctx, ctx.params.post as number))!;
            const input = commentInput(site, ctx, true);
            const outcome = await createComment(site, post, input, ctx.actor, ctx.request.requestId);
            await site.settle(outcome.position);
            // As WordPress: a moderator is answered in the edit context, anyone else in the view context.
            const context = moderates(ctx.actor) ? 'edit' : 'view';
            return created(
              await answer(await written(outcome.id, outcome.position), context),
              `${site.apiRoot}core/v2/comments/${outcome.id}`,
            );
          },
        },
      ],
    },
    {
      namespace: NS,
      path: '/core/v2/comments/(?P<id>[\\d]+)',
      schema: shownSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            ...idArg,
            context: contextParam('view', commentSchema),
            password: { description: 'The password of the post, when it is protected.', type: 'string' },
          },
          cacheable: true,
          permission: async (ctx) => {
            const target = await found(ctx);
            if ('code' in target) return target as RestError;
            if (ctx.params.context === 'edit' && !moderates(ctx.actor))
              return restError(
                'rest_forbidden_context',
                'Sorry, you are not allowed to edit comments.',
                status(ctx.actor),
              );
            const { comment, post } = target;
            if (!canReadComment(ctx.actor, comment, post, ctx.params.password, true))
              return restError(
                'rest_cannot_read',
                'Sorry, you are not allowed to read this comment.',
                status(ctx.actor),
              );
            if (post && !canReadCommentPost(ctx.actor, post, ctx.params.password, true))
              return restError(
                'rest_cannot_read_post',
                'Sorry, you are not allowed to read the post for this comment.',
                status(ctx.actor),
              );
            return true;
          },
          handle: async (ctx) => ok(await answer((await existing(ctx))!, ctx.params.context as Context)),
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: { ...idArg, ...commentWriteArgs('update') },
          signedInOnly: true,
          permission: (ctx) => editRule(ctx, 'rest_cannot_edit', 'Sorry, you are not allowed to edit this comment.'),
          handle: async (ctx) => {
            const id = ctx.params.id as number;
            if (ctx.params.type !== undefined && ctx.params.type !== (await existing(ctx))?.type) {
              throw restError(
                'rest_comment_invalid_type',
                'Sorry, you are not allowed to change the comment type.',
                404,
              );
            }
            if (
              ctx.params.post !== undefined &&
              ctx.params.post !== 0 &&
              !(await commentedPost(site, ctx.params.post as number))
            ) {
              throw restError('rest_comment_invalid_post_id', 'Invalid post ID.', 403);
            }
            const outcome = await updateComment(
              site,
              id,
              commentInput(site, ctx, false),
              ctx.actor,
              ctx.request.requestId,
            );
            await site.settle(outcome.position);
            return ok(await answer(await written(id, outcome.position), 'edit'));
          },
        },
        {
          methods: ['DELETE'],
          args: {
            ...idArg,
            force: { type: 'boolean', default: false, description: 'Whether to bypass the trash and delete for good.' },
            password: { description: 'The password of the post, when it is protected.', type: 'string' },
          },
          signedInOnly: true,
          permission: (ctx) =>
            editRule(ctx, 'rest_cannot_delete', 'Sorry, you are not allowed to delete this comment.'),
          handle: async (ctx) => {
            const doc = (await existing(ctx))!;
            if (ctx.params.force === true) {
              // The deleted comment as it was, without links (WordPress sends the answer's data only).
              const previous = await answer(doc, 'edit', false);
              const outcome = await deleteComment(site, doc.id, ctx.actor, ctx.request.requestId);
              await site.settle(outcome.position);
              return ok({ deleted: true, previous });
            }
            const outcome = await trashComment(site, doc.id, ctx.actor, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok(await answer(await written(doc.id, outcome.position), 'edit'));
          },
        },
      ],
    },
  ];
}

const clientIp = (ctx: HandlerContext): string => ctx.request.ip ?? '127.0.0.1';

/**
 * Whether the request sets a comment's status. WordPress judges every method of a route, for the `Allow` header, on
 * the request it answered: after a list read that request carries the list's default `status` (`approve`), so the
 * create rule finds a status set and leaves POST out for those who may not moderate.
 */
const statusSet = (ctx: HandlerContext): boolean =>
  ctx.params.status !== undefined || ctx.request.method === 'GET' || ctx.request.method === 'HEAD';

/** Request params -> what the operations take. Only moderators choose the IP; everyone else's is their own. */
function commentInput(site: Site, ctx: HandlerContext, creating: boolean): CommentInput {
  const p = ctx.params;
  const input: CommentInput = {};
  for (const key of ['post', 'parent', 'author', 'author_name', 'author_url', 'author_user_agent'] as const) {
    if (p[key] !== undefined) (input as Record<string, unknown>)[key] = p[key];
  }
  // Checked by its argument: an address, '', or false (PHP's empty string); null is not sent.
  if (typeof p.author_email === 'string') input.author_email = p.author_email;
  else if (p.author_email === false) input.author_email = '';
  const content = p.content as string | { raw?: unknown } | null | undefined;
  if (content !== undefined)
    input.content = typeof content === 'string' ? content : typeof content?.raw === 'string' ? content.raw : undefined;
  if (p.author_ip !== undefined && moderates(ctx.actor)) input.author_ip = p.author_ip as string;
  else if (creating) input.author_ip = clientIp(ctx);
  if (creating && !input.author_user_agent) {
    const agent = ctx.request.headers['user-agent'];
    input.author_user_agent = typeof agent === 'string' ? agent : '';
  }
  if (p.status !== undefined) input.status = statusRequest(p.status);
  const timezone = site.settings.timezone;
  const ms =
    typeof p.date_gmt === 'string'
      ? parseRestDateGmt(p.date_gmt)
      : typeof p.date === 'string'
        ? parseRestDate(p.date, timezone)
        : creating
          ? site.clock.now()
          : null;
  if (ms !== null) {
    input.date = formatLocal(ms, timezone);
    input.date_gmt = formatGmt(ms);
  }
  return input;
}

async function memo<T>(ctx: HandlerContext, key: string, load: () => Promise<T>): Promise<T> {
  if (!ctx.memo.has(key)) ctx.memo.set(key, load());
  return (await ctx.memo.get(key)) as T;
}

/** The comment `id` as the log has it now (also while its projection rebuilds). */
async function currentComment(site: Site, id: number): Promise<CommentDoc | null> {
  if (!Number.isInteger(id) || id <= 0) return null;
  return readCurrent<CommentDoc>(site, {
    projection: 'comments',
    collection: COMMENT_COLLECTION,
    id,
    stream: commentStreamId(id),
  });
}
