/**
 * `/core/v2/users/{user_id}/application-passwords` (`user_id` a number or `me`): list, create (the password
 * is answered once), delete all; `/{uuid}`: read, rename, delete; `/introspect`: the password this request
 * was authenticated with. Every rule maps onto edit_user, as in WordPress: your own, or anyone's with
 * `edit_users`. Application passwords are always available here (WordPress needs HTTPS or a local site).
 */
import type { Site } from '../../site';
import { applicationPasswordOf } from '../../rest/authenticate';
import { sanitizeValue } from '../../rest/args/walkers';
import { argsFromSchema, contextParam } from '../../rest/schema';
import type { Context } from '../../rest/schema';
import { authorizationStatus, restError } from '../../rest/errors';
import type { RestError } from '../../rest/errors';
import { ok } from '../../rest/route';
import type { HandlerContext, RouteDefinition } from '../../rest/route';
import type { ApplicationPasswordDoc, UserDoc } from '../../../projections/users';
import { canEditUser } from './access';
import {
  createApplicationPassword,
  renameApplicationPassword,
  revokeAllApplicationPasswords,
  revokeApplicationPassword,
} from './operations';
import { applicationPasswordUrl, presentApplicationPassword } from './present';
import { applicationPasswordSchema } from './schema';
import { userStreamId } from './events';
import { readCurrent } from '../../projection/written';

const BASE = '/core/v2/users/(?P<user_id>(?:[\\d]+|me))/application-passwords';

export function applicationPasswordRoutes(site: Site): RouteDefinition[] {
  const schema = applicationPasswordSchema();
  const contextArgs = { context: contextParam('view') };
  const present = (
    user: UserDoc,
    password: ApplicationPasswordDoc,
    context: Context,
    extra: { newPassword?: string; links?: boolean } = {},
  ) => presentApplicationPassword(password, schema, { context, apiRoot: site.apiRoot, userId: user.id, ...extra });

  /** The permission rule of an endpoint: the user must exist, and the caller may edit them. */
  const mayManage =
    (code: string, message: string) =>
    async (ctx: HandlerContext): Promise<true | RestError> => {
      const user = await targetUser(site, ctx);
      if (!canEditUser(ctx.actor, user.id)) return restError(code, message, authorizationStatus(ctx.actor?.id ?? null));
      return true;
    };

  return [
    {
      namespace: 'core/v2',
      path: BASE,
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: contextArgs,
          permission: mayManage(
            'rest_cannot_list_application_passwords',
            'Sorry, you are not allowed to list application passwords for this user.',
          ),
          handle: async (ctx) => {
            const user = await targetUser(site, ctx);
            return ok(user.application_passwords.map((p) => present(user, p, ctx.params.context as Context)));
          },
        },
        {
          methods: ['POST'],
          args: argsFromSchema(schema, 'create'),
          permission: mayManage(
            'rest_cannot_create_application_passwords',
            'Sorry, you are not allowed to create application passwords for this user.',
          ),
          // This rule and the other writes' pass only for the user themselves or with a capability: never anonymously.
          signedInOnly: true,
          // The new password is shown once: no answer of this endpoint is kept for a retry.
          answersSecret: true,
          handle: async (ctx) => {
            const user = await targetUser(site, ctx);
            const name = typeof ctx.params.name === 'string' ? sanitizeName(ctx.params.name) : '';
            const appId = typeof ctx.params.app_id === 'string' ? ctx.params.app_id : '';
            const outcome = await createApplicationPassword(
              site,
              user.id,
              { name, appId },
              ctx.actor!.id,
              ctx.request.requestId,
            );
            await site.settle(outcome.position);
            const fresh = await reloadPassword(site, user.id, outcome.uuid);
            const body = present(user, fresh, 'edit', { newPassword: outcome.password });
            return {
              status: 201,
              body,
              headers: { Location: applicationPasswordUrl(site.apiRoot, user.id, outcome.uuid) },
            };
          },
        },
        {
          methods: ['DELETE'],
          args: {},
          permission: mayManage(
            'rest_cannot_delete_application_passwords',
            'Sorry, you are not allowed to delete application passwords for this user.',
          ),
          signedInOnly: true,
          handle: async (ctx) => {
            const user = await targetUser(site, ctx);
            const outcome = await revokeAllApplicationPasswords(site, user.id, ctx.actor!.id, ctx.request.requestId);
            await site.settle(outcome.position);
            return ok({ deleted: true, count: outcome.count });
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: `${BASE}/introspect`,
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: contextArgs,
          permission: async (ctx) => {
            const user = await targetUser(site, ctx);
            if (ctx.actor?.id !== user.id) {
              return restError(
                'rest_cannot_introspect_app_password_for_non_authenticated_user',
                'The authenticated application password can only be introspected for the current user.',
                authorizationStatus(ctx.actor?.id ?? null),
              );
            }
            return true;
          },
          handle: async (ctx) => {
            const user = await targetUser(site, ctx);
            const uuid = ctx.actor ? applicationPasswordOf(ctx.actor) : null;
            if (!uuid)
              throw restError('rest_no_authenticated_app_password', 'Cannot introspect application password.', 404);
            const password = user.application_passwords.find((p) => p.uuid === uuid);
            if (!password)
              throw restError('rest_application_password_not_found', 'Application password not found.', 500);
            return ok(present(user, password, ctx.params.context as Context));
          },
        },
      ],
    },
    {
      namespace: 'core/v2',
      path: `${BASE}/(?P<uuid>[\\w\\-]+)`,
      schema,
      endpoints: [
        {
          methods: ['GET'],
          args: contextArgs,
          permission: mayManage(
            'rest_cannot_read_application_password',
            'Sorry, you are not allowed to read this application password.',
          ),
          handle: async (ctx) => {
            const user = await targetUser(site, ctx);
            return ok(present(user, passwordOf(user, ctx), ctx.params.context as Context));
          },
        },
        {
          methods: ['POST', 'PUT', 'PATCH'],
          args: argsFromSchema(schema, 'update'),
          permission: mayManage(
            'rest_cannot_edit_application_password',
            'Sorry, you are not allowed to edit this application password.',
          ),
          signedInOnly: true,
          handle: async (ctx) => {
            const user = await targetUser(site, ctx);
            const password = passwordOf(user, ctx);
            // Only the name can change; an empty one (after sanitizing) changes nothing, as in WordPress.
            const name = typeof ctx.params.name === 'string' ? sanitizeName(ctx.params.name) : '';
            if (name !== '') {
              const outcome = await renameApplicationPassword(
                site,
                user.id,
                password.uuid,
                name,
                ctx.actor!.id,
                ctx.request.requestId,
              );
              await site.settle(outcome.position);
            }
            return ok(present(user, await reloadPassword(site, user.id, password.uuid), 'edit'));
          },
        },
        {
          methods: ['DELETE'],
          args: {},
          permission: mayManage(
            'rest_cannot_delete_application_password',
            'Sorry, you are not allowed to delete this application password.',
          ),
          signedInOnly: true,
          handle: async (ctx) => {
            const user = await targetUser(site, ctx);
            const password = passwordOf(user, ctx);
            const previous = present(user, password, 'edit', { links: false });
            const outcome = await revokeApplicationPassword(
              site,
              user.id,
              password.uuid,
              ctx.actor!.id,
              ctx.request.requestId,
            );
            await site.settle(outcome.position);
            return ok({ deleted: true, previous });
          },
        },
      ],
    },
  ];
}

/** WordPress cleans application names as text fields (no tags, no line breaks, trimmed). */
const sanitizeName = (name: string): string => sanitizeValue(name, { type: 'string', format: 'text-field' }) as string;

/**
 * The user named by `{user_id}`: `me` needs a signed-in caller. Throws WordPress's errors, so permission rules
 * and handlers report a missing user the same way. Loaded once per request.
 */
async function targetUser(site: Site, ctx: HandlerContext): Promise<UserDoc> {
  const key = 'application-passwords:user';
  if (!ctx.memo.has(key)) {
    let doc: UserDoc | null = null;
    if (ctx.params.user_id === 'me') {
      if (!ctx.actor) throw restError('rest_not_logged_in', 'You are not currently logged in.', 401);
      doc = await currentUser(site, ctx.actor.id);
    } else {
      const id = Number(ctx.params.user_id);
      if (Number.isInteger(id) && id > 0) doc = await currentUser(site, id);
    }
    ctx.memo.set(key, doc);
  }
  const doc = ctx.memo.get(key) as UserDoc | null;
  if (!doc) throw restError('rest_user_invalid_id', 'Invalid user ID.', 404);
  return doc;
}

function passwordOf(user: UserDoc, ctx: HandlerContext): ApplicationPasswordDoc {
  const password = user.application_passwords.find((p) => p.uuid === ctx.params.uuid);
  if (!password) throw restError('rest_application_password_not_found', 'Application password not found.', 404);
  return password;
}

/** The user as the log has it: while the users projection is rebuilt, folded from its stream (readCurrent). */
const currentUser = (site: Site, id: number) =>
  readCurrent<UserDoc>(site, { projection: 'users', collection: 'user', id, stream: userStreamId(id) });

async function reloadPassword(site: Site, userId: number, uuid: string): Promise<ApplicationPasswordDoc> {
  const user = await currentUser(site, userId);
  const password = user?.application_passwords.find((p) => p.uuid === uuid);
  if (!password) throw restError('rest_application_password_not_found', 'Application password not found.', 404);
  return password;
}
