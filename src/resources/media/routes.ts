/**
 * Routes of `/core/v2/media`: list, upload, read, update, delete, `post-process` and `edit`, plus the history
 * extension. Not batchable (WordPress gives media no allow_batch). Permission rules in capability terms:
 * uploading takes `upload_files`; editing follows WordPress's mapping for an attachment, whose status is its
 * parent's (or published when it has none); reading an attached item follows its parent post.
 */
import type { Site } from '../../site';
import type { Actor } from '../../access/capabilities';
import { canDeleteItem, canEditItem, canReadItem, hasCap, postTypeCaps } from '../../access/capabilities';
import type { PostTypeCaps } from '../../access/capabilities';
import { SchemaIssue } from '../../rest/args/schema';
import type { ArgSchema, Context } from '../../rest/args/schema';
import { argsFromSchema, publicSchema } from '../../rest/schema';
import type { ResourceSchema } from '../../rest/schema';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { collectionResult, linkQuery, listableItems } from '../../rest/collection';
import { created, ok, uncacheable } from '../../rest/route';
import type { HandlerContext, RestRequest, RouteDefinition } from '../../rest/route';
import type { Filter } from '../../ports/readModel';
import type { ContentDoc } from '../../../projections/content';
import type { MediaDoc } from '../../../projections/media';
import { buildListPlan, contentListArgs, listPaging } from '../content/listQuery';
import { sanitizeSlug } from '../../text/slug';
import { permalink } from '../content/present';
import { ancestorPath } from '../content/operations';
import { writableStatuses } from '../content/schema';
import { mediaActionLinks, mediaSchema } from './schema';
import { mediaLink, presentMedia, uploadUrl } from './present';
import type { AttachmentInput } from './decider';
import { EDITABLE_TYPES } from './files';
import { uploadedContent } from './upload';
import type { Modifier } from './files';
import {
  MEDIA_SLUG_SCOPE,
  createAttachment,
  createMissingSubsizes,
  deleteAttachment,
  editImage,
  updateAttachment,
} from './operations';
import { mediaAsOf, mediaHistoryRoute } from './history';
import { asOfArg } from '../history/routes';
import { attachmentStreamId } from './events';
import { featuredMediaToKeep } from './featuredMedia';
import { readCurrent, readWritten } from '../../projection/written';

/** Attachments use the post capabilities, except that creating one takes upload_files. */
export const MEDIA_CAPS: PostTypeCaps = { ...postTypeCaps('posts'), create_posts: 'upload_files' };
const MEDIA_STATUSES = ['inherit', 'private', 'trash'];
const MEDIA_TYPES = ['image', 'video', 'text', 'application', 'audio'];

export function mediaRoutes(site: Site): RouteDefinition[] {
  const schema = mediaSchema(writableStatuses(site.instance.statuses), {
    featuredMedia: site.instance.media.featuredMedia,
  });
  const shownSchema = publicSchema(schema, mediaActionLinks(site.apiRoot));
  const itemArgs: Record<string, ArgSchema> = {
    id: { description: 'Unique identifier of the item.', type: 'integer' },
  };
  const writeArgs = (kind: 'create' | 'update') => {
    const args = argsFromSchema(schema, kind);
    // No theme here: only the default template ("") exists.
    if (args.template)
      args.template = {
        ...args.template,
        validate: (value) => value === '' || new SchemaIssue('rest_invalid_param', 'template is not one of .'),
      };
    return args;
  };

  return [
    {
      namespace: 'core/v2',
      path: '/core/v2/media',
      schema: shownSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: mediaListArgs(),
          cacheable: true,
          permission: (ctx) =>
            ctx.params.context === 'edit' && !hasCap(ctx.actor, MEDIA_CAPS.edit_posts)
              ? restError(
                  'rest_forbidden_context',
                  'Sorry, you are not allowed to edit posts in this post type.',
                  authorizationStatus(ctx.actor?.id ?? null),
                )
              : true,
          handle: (ctx) => listMedia(site, ctx, schema),
        },
        {
          methods: ['POST'],
          args: writeArgs('create'),
          permission: (ctx) => createPermission(site, ctx),
          // This rule and the other writes' end on a capability (or the right to edit an item), never held anonymously.
          signedInOnly: true,
          handle: async (ctx) => {
            const actor = ctx.actor!;
            if (
              typeof ctx.params.post === 'number' &&
              ctx.params.post > 0 &&
              (await site.readModel.get('attachment', ctx.params.post))
            ) {
              throw restError('rest_invalid_param', 'Invalid parent type.', 400);
            }
            const { content, multipart } = await uploadedContent(ctx.request);
            const input = await writeInput(site, ctx, schema);
            const outcome = await createAttachment(site, content, input, actor, ctx.request.requestId, { multipart });
            await site.settle(outcome.position);
            const doc = await readDoc(site, outcome.id, outcome.position);
            const result = created(
              await present(site, ctx, doc, schema, 'edit'),
              `${site.apiRoot}core/v2/media/${outcome.id}`,
            );
            result.headers!['X-WP-Upload-Attachment-ID'] = String(outcome.id);
            return result;
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: '/core/v2/media/(?P<id>[\\d]+)',
      schema: shownSchema,
      endpoints: [
        {
          methods: ['GET'],
          args: {
            ...itemArgs,
            context: {
              description: 'Scope under which the request is made; determines fields present in response.',
              type: 'string',
              enum: ['view', 'embed', 'edit'],
              default: 'view',
            },
            as_of: asOfArg,
          },
          cacheable: true,
          permission: (ctx) => readPermission(site, ctx),
          handle: async (ctx) => {
            const live = (await loadDoc(site, ctx))!;
            // Time travel (an extension, as for posts): the attachment folded from its stream up to `as_of`.
            const doc =
              ctx.params.as_of !== undefined
                ? await mediaAsOf(
                    site,
                    live.id,
                    String(ctx.params.as_of),
                    ctx.actor,
                    await canEditMedia(site, ctx.actor, live),
                  )
                : live;
            const item = await present(site, ctx, doc, schema, ctx.params.context as Context);
            // As for posts, the item's page on the site (WordPress sends it for every viewable type).
            const link = mediaLink(doc, site.settings.siteUrl, await parentPermalink(site, doc.post));
            const result = ok(item, { Link: `<${link}>; rel="alternate"; type=text/html` });
            // `as_of` reads the attachment's stream from the log: not cached.
            return ctx.params.as_of !== undefined ? uncacheable(result) : result;
          },
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: { ...itemArgs, ...writeArgs('update') },
          permission: (ctx) => updatePermission(site, ctx),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await loadDoc(site, ctx))!;
            const input = await writeInput(site, ctx, schema);
            const body = { ...(ctx.request.form ?? {}), ...(ctx.request.json ?? {}) };
            const slugSent = Object.hasOwn(body, 'slug') || Object.hasOwn(ctx.request.query, 'slug');
            const outcome = await updateAttachment(
              site,
              doc.id,
              { ...input, ...(slugSent && typeof ctx.params.slug === 'string' ? { slug: ctx.params.slug } : {}) },
              ctx.actor!,
              ctx.request.requestId,
            );
            await site.settle(outcome.position);
            return ok(await present(site, ctx, await readDoc(site, doc.id, outcome.position), schema, 'edit'));
          },
        },
        {
          methods: ['DELETE'],
          args: {
            ...itemArgs,
            force: { type: 'boolean', default: false, description: 'Delete for good (attachments cannot be trashed).' },
          },
          permission: (ctx) => deletePermission(site, ctx),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await loadDoc(site, ctx))!;
            if (ctx.params.force !== true)
              throw restError(
                'rest_trash_not_supported',
                "The post does not support trashing. Set 'force=true' to delete.",
                501,
              );
            const previous = await present(site, ctx, doc, schema, 'edit', { withoutLinks: true });
            const outcome = await deleteAttachment(site, doc.id, ctx.actor!, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok({ deleted: true, previous });
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: '/core/v2/media/(?P<id>[\\d]+)/post-process',
      endpoints: [
        {
          methods: ['POST'],
          args: {
            id: { description: 'Unique identifier of the attachment.', type: 'integer' },
            action: { type: 'string', enum: ['create-image-subsizes'], required: true },
          },
          permission: (ctx) => updatePermission(site, ctx),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await loadDoc(site, ctx))!;
            const outcome = await createMissingSubsizes(site, doc.id, ctx.actor!, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok(await present(site, ctx, await readDoc(site, doc.id, outcome.position), schema, 'edit'));
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: '/core/v2/media/(?P<id>[\\d]+)/edit',
      endpoints: [
        {
          methods: ['POST'],
          args: editArgs(),
          // An instance may list fewer (the second lists `src` alone); the others are still accepted and validated.
          ...(site.instance.media.editListedArgs ? { listedArgs: [...site.instance.media.editListedArgs] } : {}),
          permission: (ctx) => editImagePermission(site, ctx),
          signedInOnly: true,
          handle: async (ctx) => {
            const doc = (await loadDoc(site, ctx))!;
            const modifiers = editModifiers(ctx.params);
            const details = doc.media_details;
            const isImage = doc.mime_type.startsWith('image/') && details.width !== undefined;
            if (!isImage || !srcMatches(String(ctx.params.src), site, doc)) {
              // A sub-size's URL is this attachment's too, but not one that can be edited.
              if (isImage && isSubsizeUrl(String(ctx.params.src), site, doc)) throw notEdited();
              throw restError('rest_unknown_attachment', 'Unable to get meta information for file.', 404);
            }
            if (!EDITABLE_TYPES.has(doc.mime_type))
              throw restError('rest_cannot_edit_file_type', 'This type of file cannot be edited.', 400);
            if (modifiers.length === 0) throw notEdited();
            const outcome = await editImage(site, doc.id, modifiers, ctx.actor!, ctx.request.requestId);
            await site.settle(outcome.position);
            // WordPress answers the edit in view context.
            return created(
              await present(site, ctx, await readDoc(site, outcome.id, outcome.position), schema, 'view'),
              `${site.apiRoot}core/v2/media/${outcome.id}`,
            );
          },
        },
      ],
    },
    mediaHistoryRoute(
      site,
      (ctx) => loadDoc(site, ctx),
      (actor, doc) => canEditMedia(site, actor, doc),
    ),
  ];
}

// --- list ---------------------------------------------------------------------------------------------------

/** The post list args without terms and sticky, with parent filters, media_type, mime_type and the media statuses. */
export function mediaListArgs(): Record<string, ArgSchema> {
  const post = contentListArgs('post');
  const args: Record<string, ArgSchema> = {};
  for (const [name, arg] of Object.entries(post)) {
    if (['tax_relation', 'categories', 'categories_exclude', 'tags', 'tags_exclude', 'sticky'].includes(name)) continue;
    if (name === 'status') {
      args.status = {
        ...arg,
        default: 'inherit',
        items: { enum: MEDIA_STATUSES, type: 'string' },
        validate: (value, ctx) =>
          forbiddenStatus(value as string[], (ctx.request as RestRequest | undefined)?.actor ?? null) ?? true,
      };
      continue;
    }
    args[name] = arg;
    if (name === 'orderby') {
      args.parent = {
        description: 'Only attachments of these posts.',
        type: 'array',
        items: { type: 'integer' },
        default: [],
        lateValidation: true,
      };
      args.parent_exclude = {
        description: 'No attachments of these posts.',
        type: 'array',
        items: { type: 'integer' },
        default: [],
        lateValidation: true,
      };
    }
  }
  args.media_type = {
    description: 'Only attachments of this kind.',
    type: 'string',
    enum: MEDIA_TYPES,
    default: null as unknown as string,
    lateValidation: true,
  };
  args.mime_type = {
    description: 'Only attachments of this MIME type.',
    type: 'string',
    default: null as unknown as string,
    lateValidation: true,
  };
  return args;
}

/** `inherit` is the default and open to all; `private` needs read_private_posts, `trash` edit_posts (checked while sanitizing, as WordPress does). */
function forbiddenStatus(statuses: readonly string[], actor: Actor | null): RestError | null {
  for (const status of statuses) {
    if (status === 'inherit') continue;
    const allowed =
      status === 'private'
        ? hasCap(actor, MEDIA_CAPS.read_private_posts) || hasCap(actor, MEDIA_CAPS.edit_posts)
        : hasCap(actor, MEDIA_CAPS.edit_posts);
    if (!allowed)
      return restError('rest_forbidden_status', 'Status is forbidden.', authorizationStatus(actor?.id ?? null));
  }
  return null;
}

/** The media list plan: the posts' plan (same filters, search, order, paging) plus the media filters. */
export async function buildMediaListPlan(
  params: Record<string, unknown>,
  options: { timezone: string; signedIn: boolean },
) {
  const plan = await buildListPlan(params, {
    postType: 'post',
    timezone: options.timezone,
    signedIn: options.signedIn,
    descendants: async () => [],
  });
  const filters: Filter[] = [...plan.filters];
  const parent = (params.parent as number[] | undefined) ?? [];
  const parentExclude = (params.parent_exclude as number[] | undefined) ?? [];
  if (parent.length > 0) filters.push({ kind: 'any', field: 'parent', values: parent });
  if (parentExclude.length > 0) filters.push({ kind: 'none', field: 'parent', values: parentExclude });
  if (typeof params.media_type === 'string')
    filters.push({ kind: 'any', field: 'media_type', values: [params.media_type] });
  if (typeof params.mime_type === 'string' && params.mime_type !== '')
    filters.push({ kind: 'any', field: 'mime_type', values: [params.mime_type] });
  // Media search also looks in the file name.
  const withFile = filters.map((filter) =>
    filter.kind === 'text' && !((params.search_columns as string[] | undefined) ?? []).length
      ? { ...filter, fields: [...filter.fields, 'file'] }
      : filter,
  );
  return { ...plan, filters: withFile };
}

async function listMedia(site: Site, ctx: HandlerContext, schema: ReturnType<typeof mediaSchema>) {
  const p = ctx.params;
  const plan = await buildMediaListPlan(p, { timezone: site.settings.timezone, signedIn: ctx.actor !== null });
  const { items, total } = await site.readModel.query('attachment', plan);
  const paging = listPaging(p, total, items.length);
  const docs = items as MediaDoc[];
  const visible = await listableItems(docs, p.context, {
    mayRead: (doc) => canReadMedia(site, ctx.actor, doc),
    mayEdit: (doc) => canEditMedia(site, ctx.actor, doc),
  });
  const body = await Promise.all(visible.map((doc) => present(site, ctx, doc, schema, p.context as Context)));
  return collectionResult(body, paging, `${site.apiRoot}core/v2/media`, linkQuery(ctx));
}

// --- permissions --------------------------------------------------------------------------------------------

async function parentOf(site: Site, id: number): Promise<ContentDoc | null> {
  if (id <= 0) return null;
  return ((await site.readModel.get('post', id)) ?? (await site.readModel.get('page', id))) as ContentDoc | null;
}

const parentCaps = (parent: ContentDoc) => postTypeCaps(parent.type === 'page' ? 'pages' : 'posts');
const ownedContent = (doc: ContentDoc) => ({ author: doc.author, status: doc.status, trashedFrom: doc.trashed_from });

/**
 * The status WordPress judges editing an attachment by: its own when private, else its parent's; an unattached one
 * keeps `inherit`, neither published nor private, so its own author needs only edit_posts / delete_posts.
 */
async function effectiveStatus(site: Site, doc: MediaDoc): Promise<string> {
  if (doc.status !== 'inherit') return doc.status;
  const parent = await parentOf(site, doc.post);
  if (!parent) return 'inherit';
  return parent.status === 'trash' ? (parent.trashed_from ?? 'draft') : parent.status;
}

export async function canEditMedia(site: Site, actor: Actor | null, doc: MediaDoc): Promise<boolean> {
  return canEditItem(actor, MEDIA_CAPS, { author: doc.author, status: await effectiveStatus(site, doc) });
}

/** Readable: an attached `inherit` item as its parent is; an unattached one by everyone; a private one by read_post. */
async function canReadMedia(site: Site, actor: Actor | null, doc: MediaDoc): Promise<boolean> {
  if (doc.status === 'inherit') {
    const parent = await parentOf(site, doc.post);
    return parent ? canReadItem(actor, parentCaps(parent), ownedContent(parent)) : true;
  }
  return canReadItem(actor, MEDIA_CAPS, { author: doc.author, status: doc.status });
}

/** May the actor attach media to this post (WordPress: edit_post on it)? */
async function canAttachTo(site: Site, actor: Actor | null, postId: number): Promise<boolean> {
  const parent = await parentOf(site, postId);
  if (parent) return canEditItem(actor, parentCaps(parent), ownedContent(parent));
  // An attachment is editable too; naming one is refused afterwards as an invalid parent type.
  const attachment = (await site.readModel.get('attachment', postId)) as MediaDoc | null;
  return attachment !== null && canEditMedia(site, actor, attachment);
}

async function createPermission(site: Site, ctx: HandlerContext): Promise<true | RestError> {
  const actor = ctx.actor;
  const status = authorizationStatus(actor?.id ?? null);
  if (
    typeof ctx.params.post === 'number' &&
    ctx.params.post > 0 &&
    !(await canAttachTo(site, actor, ctx.params.post))
  ) {
    return restError('rest_cannot_edit', 'Sorry, you are not allowed to upload media to this post.', status);
  }
  if (ctx.params.id !== undefined && ctx.params.id !== null && ctx.params.id !== '' && ctx.params.id !== 0) {
    return restError('rest_post_exists', 'Cannot create existing post.', 400);
  }
  if (ctx.params.author && ctx.params.author !== actor?.id && !hasCap(actor, MEDIA_CAPS.edit_others_posts)) {
    return restError('rest_cannot_edit_others', 'Sorry, you are not allowed to create posts as this user.', status);
  }
  if (!hasCap(actor, MEDIA_CAPS.create_posts))
    return restError('rest_cannot_create', 'Sorry, you are not allowed to create posts as this user.', status);
  return true;
}

async function readPermission(site: Site, ctx: HandlerContext): Promise<boolean | RestError> {
  const doc = await loadDoc(site, ctx);
  if (!doc) return invalidId();
  if (ctx.params.context === 'edit' && !(await canEditMedia(site, ctx.actor, doc))) {
    return restError(
      'rest_forbidden_context',
      'Sorry, you are not allowed to edit this post.',
      authorizationStatus(ctx.actor?.id ?? null),
    );
  }
  return canReadMedia(site, ctx.actor, doc);
}

async function updatePermission(site: Site, ctx: HandlerContext): Promise<boolean | RestError> {
  const doc = await loadDoc(site, ctx);
  if (!doc) return invalidId();
  const actor = ctx.actor;
  const status = authorizationStatus(actor?.id ?? null);
  if (!(await canEditMedia(site, actor, doc)))
    return restError('rest_cannot_edit', 'Sorry, you are not allowed to edit this post.', status);
  if (ctx.params.author && ctx.params.author !== actor?.id && !hasCap(actor, MEDIA_CAPS.edit_others_posts)) {
    return restError('rest_cannot_edit_others', 'Sorry, you are not allowed to update posts as this user.', status);
  }
  if (
    typeof ctx.params.post === 'number' &&
    ctx.params.post > 0 &&
    ctx.params.post !== doc.post &&
    !(await canAttachTo(site, actor, ctx.params.post))
  ) {
    return restError('rest_cannot_edit', 'Sorry, you are not allowed to upload media to this post.', status);
  }
  return true;
}

async function deletePermission(site: Site, ctx: HandlerContext): Promise<boolean | RestError> {
  const doc = await loadDoc(site, ctx);
  if (!doc) return invalidId();
  if (!canDeleteItem(ctx.actor, MEDIA_CAPS, { author: doc.author, status: await effectiveStatus(site, doc) })) {
    return restError(
      'rest_cannot_delete',
      'Sorry, you are not allowed to delete this post.',
      authorizationStatus(ctx.actor?.id ?? null),
    );
  }
  return true;
}

/** Editing an image takes upload_files first, then the right to edit the attachment. */
async function editImagePermission(site: Site, ctx: HandlerContext): Promise<boolean | RestError> {
  const actor = ctx.actor;
  const status = authorizationStatus(actor?.id ?? null);
  if (!hasCap(actor, 'upload_files'))
    return restError('rest_cannot_edit_image', 'Sorry, you are not allowed to upload media on this site.', status);
  const doc = await loadDoc(site, ctx);
  if (!doc) return invalidId();
  if (!(await canEditMedia(site, actor, doc)))
    return restError('rest_cannot_edit', 'Sorry, you are not allowed to edit this post.', status);
  return true;
}

// --- edit ---------------------------------------------------------------------------------------------------

function editArgs(): Record<string, ArgSchema> {
  const percent = (description: string): ArgSchema => ({ description, type: 'number', minimum: 0, maximum: 100 });
  // The id comes from the path only: WordPress lists no `id` argument for this route.
  return {
    src: { description: 'URL of the edited image file.', type: 'string', format: 'uri', required: true },
    modifiers: {
      description: 'Array of image edits.',
      type: 'array',
      minItems: 1,
      items: {
        description: 'Image edit.',
        type: 'object',
        required: ['type', 'args'],
        oneOf: [
          {
            title: 'Rotation',
            properties: {
              type: { description: 'Rotation type.', type: 'string', enum: ['rotate'] },
              args: {
                description: 'Rotation arguments.',
                type: 'object',
                required: ['angle'],
                properties: { angle: { description: 'Angle to rotate clockwise in degrees.', type: 'number' } },
              },
            },
          },
          {
            title: 'Crop',
            properties: {
              type: { description: 'Crop type.', type: 'string', enum: ['crop'] },
              args: {
                description: 'Crop arguments.',
                type: 'object',
                required: ['left', 'top', 'width', 'height'],
                properties: {
                  left: {
                    description:
                      'Horizontal position from the left to begin the crop as a percentage of the image width.',
                    type: 'number',
                  },
                  top: {
                    description:
                      'Vertical position from the top to begin the crop as a percentage of the image height.',
                    type: 'number',
                  },
                  width: { description: 'Width of the crop as a percentage of the image width.', type: 'number' },
                  height: { description: 'Height of the crop as a percentage of the image height.', type: 'number' },
                },
              },
            },
          },
        ],
      },
    } as ArgSchema,
    rotation: {
      description: 'The amount to rotate the image clockwise in degrees. DEPRECATED: Use `modifiers` instead.',
      type: 'integer',
      minimum: 0,
      exclusiveMinimum: true,
      maximum: 360,
      exclusiveMaximum: true,
    } as ArgSchema,
    x: percent(
      'As a percentage of the image, the x position to start the crop from. DEPRECATED: Use `modifiers` instead.',
    ),
    y: percent(
      'As a percentage of the image, the y position to start the crop from. DEPRECATED: Use `modifiers` instead.',
    ),
    width: percent(
      'As a percentage of the image, the width to crop the image to. DEPRECATED: Use `modifiers` instead.',
    ),
    height: percent(
      'As a percentage of the image, the height to crop the image to. DEPRECATED: Use `modifiers` instead.',
    ),
  };
}

/** `modifiers`, or the deprecated rotation then x/y/width/height (all four needed), as WordPress reads them. */
function editModifiers(params: Record<string, unknown>): Modifier[] {
  if (Array.isArray(params.modifiers)) return params.modifiers as Modifier[];
  const modifiers: Modifier[] = [];
  if (typeof params.rotation === 'number' && params.rotation !== 0)
    modifiers.push({ type: 'rotate', args: { angle: params.rotation } });
  const { x, y, width, height } = params;
  if (typeof x === 'number' && typeof y === 'number' && typeof width === 'number' && typeof height === 'number') {
    modifiers.push({ type: 'crop', args: { left: x, top: y, width, height } });
  }
  return modifiers;
}

const stripQuery = (url: string) => url.split(/[?#]/)[0]!;
/** `src` must name the attachment's full file, or the original it was scaled from. */
function srcMatches(src: string, site: Site, doc: MediaDoc): boolean {
  const { file, original_image: original } = doc.media_details;
  const folder = file.slice(0, file.lastIndexOf('/') + 1);
  return [file, ...(original ? [`${folder}${original}`] : [])].some(
    (key) => stripQuery(src) === uploadUrl(site.settings.siteUrl, key),
  );
}
function isSubsizeUrl(src: string, site: Site, doc: MediaDoc): boolean {
  const folder = doc.media_details.file.slice(0, doc.media_details.file.lastIndexOf('/') + 1);
  return Object.values(doc.media_details.sizes).some(
    (size) => stripQuery(src) === uploadUrl(site.settings.siteUrl, `${folder}${size.file}`),
  );
}
const notEdited = () =>
  restError('rest_image_not_edited', 'The image was not edited. Edit the image before applying the changes.', 400);

// --- helpers ------------------------------------------------------------------------------------------------

const invalidId = () => restError('rest_post_invalid_id', 'Invalid post ID.', 404);

async function loadDoc(site: Site, ctx: HandlerContext): Promise<MediaDoc | null> {
  if (!ctx.memo.has('doc:attachment')) {
    const id = Number(ctx.params.id);
    // As the log has it now, also while the media projection rebuilds.
    ctx.memo.set(
      'doc:attachment',
      Number.isInteger(id) && id > 0
        ? await readCurrent<MediaDoc>(site, {
            projection: 'media',
            collection: 'attachment',
            id,
            stream: attachmentStreamId(id),
          })
        : null,
    );
  }
  return ctx.memo.get('doc:attachment') as MediaDoc | null;
}

/** The attachment as the write at `position` left it, for the write's answer (also while the media projection rebuilds). */
async function readDoc(site: Site, id: number, position: number): Promise<MediaDoc> {
  const doc = await readWritten<MediaDoc>(site, {
    projection: 'media',
    collection: 'attachment',
    id,
    stream: attachmentStreamId(id),
    position,
  });
  if (!doc) throw invalidId();
  return doc;
}

/** The validated write params as the decider's input; `post` must name a post or page when given. */
async function writeInput(site: Site, ctx: HandlerContext, schema: ResourceSchema): Promise<AttachmentInput> {
  const p = ctx.params;
  const body = { ...(ctx.request.form ?? {}), ...(ctx.request.json ?? {}) };
  const sent = (key: string) => Object.hasOwn(body, key) || Object.hasOwn(ctx.request.query, key);
  const text = (value: unknown): string | undefined =>
    typeof value === 'string'
      ? value
      : value && typeof value === 'object' && typeof (value as { raw?: unknown }).raw === 'string'
        ? (value as { raw: string }).raw
        : undefined;
  const input: AttachmentInput = {};
  for (const field of ['title', 'caption', 'description'] as const) {
    const value = sent(field) ? text(p[field]) : undefined;
    if (value !== undefined) input[field] = value;
  }
  for (const field of ['alt_text', 'status', 'comment_status', 'ping_status', 'template', 'post'] as const) {
    if (sent(field) && p[field] !== undefined && p[field] !== null)
      (input as Record<string, unknown>)[field] = p[field];
  }
  if (sent('date')) input.date = (p.date as string | null | undefined) ?? null;
  if (sent('date_gmt')) input.date_gmt = (p.date_gmt as string | null | undefined) ?? null;
  // Only where the schema has it: elsewhere the param is unvalidated input.
  if (schema.properties.featured_media && sent('featured_media') && typeof p.featured_media === 'number') {
    const kept = await featuredMediaToKeep(site.readModel, p.featured_media);
    if (kept !== undefined) input.featured_media = kept;
  }
  if (input.post !== undefined && input.post !== 0 && !(await parentOf(site, input.post))) {
    throw restError('rest_invalid_param', 'Invalid parent type.', 400);
  }
  if (sent('author') && p.author) {
    if (p.author !== ctx.actor!.id && !(await site.readModel.get('user', p.author as number)))
      throw restError('rest_invalid_author', 'Invalid author ID.', 400);
    input.author = p.author as number;
  }
  return input;
}

async function present(
  site: Site,
  ctx: HandlerContext,
  doc: MediaDoc,
  schema: ReturnType<typeof mediaSchema>,
  context: 'view' | 'edit' | 'embed',
  options: { withoutLinks?: boolean } = {},
) {
  const edit = context === 'edit';
  return presentMedia(doc, schema, {
    context,
    parentLink: await parentPermalink(site, doc.post),
    siteUrl: site.settings.siteUrl,
    apiRoot: site.apiRoot,
    ...(edit ? { generatedSlug: await uniqueTitleSlug(site, doc) } : {}),
    ...(edit && !options.withoutLinks ? { actions: mediaActions(ctx.actor) } : {}),
    ...(options.withoutLinks ? { withoutLinks: true } : {}),
  });
}

function mediaActions(actor: Actor | null): string[] {
  const actions: string[] = [];
  if (hasCap(actor, 'unfiltered_html')) actions.push('unfiltered-html');
  if (hasCap(actor, MEDIA_CAPS.edit_others_posts)) actions.push('assign-author');
  return actions;
}

/** The permalink of the post or page an attachment is attached to (a page's under its ancestors); null for none. */
export async function parentPermalink(site: Site, postId: number): Promise<string | null> {
  const parent = await parentOf(site, postId);
  if (!parent) return null;
  return permalink(
    parent,
    site.settings.siteUrl,
    parent.type === 'page' && parent.parent > 0 ? await ancestorPath(site, parent.parent) : '',
  );
}

async function uniqueTitleSlug(site: Site, doc: MediaDoc): Promise<string> {
  const base = sanitizeSlug(doc.title) || String(doc.id);
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    const owner = await site.claims.ownerOf(MEDIA_SLUG_SCOPE, candidate);
    if (owner === null || owner === doc.id) return candidate;
  }
}
